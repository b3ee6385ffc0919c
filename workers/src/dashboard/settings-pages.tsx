/**
 * Settings and API key pages (docs/dashboard.md#pages): the master switch, the custom skill
 * execution switch, the active catalog provider, the SkillsMP key (write-only: the page shows only
 * whether it is set), the default limits of keys (docs/rate-limits.md), and API keys (create — the
 * key is shown once —, list with a link to each key's page, revoke). Management only; a key is
 * told so and pointed to its own limits page.
 */
import { Hono } from "hono";
import { requireManagement } from "../auth/principal.js";
import { isScope, SCOPES, type Scope } from "../auth/scopes.js";
import { InvalidInputError } from "../errors.js";
import type { ApiKeyInfo } from "../services/keys.js";
import { type DashContext, type DashEnv, formOf, pageProps, redirectWith } from "./env.js";
import { Checkbox, Csrf, Empty, Input, Page, Pager, Select, when } from "./layout.js";
import { DefaultLimitsForm, defaultValues, parseLimitFields } from "./limits-view.js";

/** API keys per page of the settings page. */
const KEYS_PER_PAGE = 50;

/**
 * The scopes ticked in the key creation form (fields `scope:<name>`); a form without any scope
 * field at all (an older page) gives undefined, i.e. every scope (docs/api.md#scopes).
 */
function scopesOf(form: Record<string, string>): Scope[] | undefined {
  const fields = Object.keys(form).filter((k) => k.startsWith("scope:"));
  if (fields.length === 0 && form.scopesShown !== "1") return undefined;
  return fields
    .filter((k) => form[k] === "on")
    .map((k) => k.slice("scope:".length))
    .filter(isScope);
}

/** The confirmation page of a revoke (docs/dashboard.md#pages): names the key and its use. */
const ConfirmRevoke = ({ c, apiKey }: { c: DashContext; apiKey: ApiKeyInfo }) => (
  <Page title="Revoke key" {...pageProps(c, "/dashboard/settings")}>
    <div class="card">
      <h1>Revoke key {apiKey.name}?</h1>
      <p>
        Key <code>{apiKey.prefix}…</code> (id <code>{apiKey.id}</code>, last used{" "}
        {apiKey.lastUsedAt ? `${when(apiKey.lastUsedAt)} UTC` : "never"}) stops working at once, on
        every front door. This cannot be undone.
      </p>
      <form method="post" action={`/dashboard/keys/${apiKey.id}/revoke`} class="inline">
        <Csrf token={c.get("session").csrf} />
        <input type="hidden" name="confirm" value="yes" />
        <button type="submit" class="danger">
          Revoke {apiKey.name} permanently
        </button>
      </form>{" "}
      <a href="/dashboard/settings">Cancel</a>
    </div>
  </Page>
);

/** Builds the settings routes. */
export function settingsPages(): Hono<DashEnv> {
  const app = new Hono<DashEnv>();

  /**
   * The settings page. @param created a key just created (shown once); @param refusedLimits the
   *   default limits form as posted and its errors, when it was refused (answered with 400).
   */
  async function settingsPage(
    c: DashContext,
    created?: string,
    refusedLimits?: { values: Record<string, string>; errors: string[] },
  ) {
    const services = c.get("services");
    const session = c.get("session");
    if (session.principal.kind !== "management") {
      return c.html(
        <Page title="Settings" {...pageProps(c, "/dashboard/settings")}>
          <h1>Settings</h1>
          <Empty>
            Settings and API keys are managed with the management token. Your key can see its skills
            and executions, and{" "}
            <a href={`/dashboard/keys/${session.principal.apiKeyId}`}>its limits and usage today</a>
            .
          </Empty>
        </Page>,
      );
    }
    const settings = await services.settings.getPublic();
    const defaults = settings.defaultLimits;
    const page = Math.max(1, Number.parseInt(c.req.query("page") ?? "1", 10) || 1);
    const keyPage = await services.keys.list(page, KEYS_PER_PAGE);
    const keys = keyPage.data;
    return c.html(
      <Page title="Settings" {...pageProps(c, "/dashboard/settings")}>
        <h1>Settings</h1>
        <form method="post" action="/dashboard/settings" class="card" aria-label="Settings">
          <Csrf token={session.csrf} />
          <Checkbox
            name="skillsEnabled"
            label="Skills enabled (master switch: off blocks every execution)"
            checked={settings.skillsEnabled}
          />
          <Checkbox
            name="customSkillExecution"
            label="Custom skill execution (off: only builtins run; custom skills are not injected and their calls are refused)"
            checked={settings.customSkillExecution}
          />
          <Select
            name="activeProvider"
            label="Active catalog provider"
            value={settings.activeProvider}
            options={["skillsmp", "skillssh"]}
          />
          <Input
            name="skillsmpApiKey"
            label={`SkillsMP API key (write-only; ${settings.skillsmpApiKeySet ? "a key is set — leave blank to keep it" : "not set"})`}
            type="password"
          />
          {settings.skillsmpApiKeySet ? (
            <Checkbox
              name="clearSkillsmpApiKey"
              id="f-clearKey"
              label="Remove the stored SkillsMP key"
            />
          ) : null}
          <button type="submit">Save settings</button>
        </form>

        <h2>Default limits</h2>
        <DefaultLimitsForm
          values={refusedLimits?.values ?? defaultValues(defaults)}
          defaults={defaults}
          csrf={session.csrf}
          errors={refusedLimits?.errors ?? []}
        />

        <h2>API keys</h2>
        {created ? (
          <div class="flash ok" role="status">
            New key (shown once; copy it now): <code data-field="new-key">{created}</code>
          </div>
        ) : null}
        <form
          method="post"
          action="/dashboard/keys"
          class="card filters"
          aria-label="Create an API key"
        >
          <Csrf token={session.csrf} />
          <input type="hidden" name="scopesShown" value="1" />
          <Input name="name" label="Name" required />
          <Input name="expiresAt" label="Expires (UTC, optional)" type="datetime-local" />
          <fieldset class="scopes">
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <Checkbox name={`scope:${scope}`} id={`f-scope-${scope}`} label={scope} checked />
            ))}
          </fieldset>
          <button type="submit">Create key</button>
        </form>
        {keys.length === 0 ? (
          <Empty>No API keys yet.</Empty>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Id</th>
                  <th>Prefix</th>
                  <th>Created</th>
                  <th>Last used</th>
                  <th>Expires</th>
                  <th>Scopes</th>
                  <th>State</th>
                </tr>
              </thead>
              <tbody>
                {keys.map((k) => (
                  <tr data-key={k.name}>
                    <td>
                      <a
                        href={`/dashboard/keys/${k.id}`}
                        aria-label={`Key ${k.name}: limits and usage`}
                      >
                        {k.name}
                      </a>
                    </td>
                    <td>
                      <code>{k.id}</code>
                    </td>
                    <td>
                      <code>{k.prefix}…</code>
                    </td>
                    <td>{when(k.createdAt)}</td>
                    <td>{k.lastUsedAt ? when(k.lastUsedAt) : "never"}</td>
                    <td>{k.expiresAt ? when(k.expiresAt) : "never"}</td>
                    <td>{k.scopes.join(", ") || "none"}</td>
                    <td>
                      {k.revokedAt ? (
                        <span class="badge error">revoked</span>
                      ) : (
                        <a
                          href={`/dashboard/keys/${k.id}/revoke`}
                          aria-label={`Revoke key ${k.name}`}
                        >
                          Revoke…
                        </a>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager
          base="/dashboard/settings"
          query={new URLSearchParams()}
          page={page}
          totalPages={keyPage.totalPages}
          total={keyPage.total}
        />
      </Page>,
      created ? 201 : refusedLimits ? 400 : 200,
      created ? { "Cache-Control": "no-store" } : {},
    );
  }

  app.get("/settings", (c) => settingsPage(c));

  app.post("/settings", async (c) => {
    requireManagement(c.get("session").principal);
    const form = await formOf(c);
    const provider = form.activeProvider === "skillssh" ? "skillssh" : "skillsmp";
    const key = form.skillsmpApiKey?.trim();
    await c.get("services").settings.change({
      skillsEnabled: form.skillsEnabled === "on",
      customSkillExecution: form.customSkillExecution === "on",
      activeProvider: provider,
      ...(form.clearSkillsmpApiKey === "on"
        ? { skillsmpApiKey: null }
        : key
          ? { skillsmpApiKey: key }
          : {}),
    });
    return redirectWith(c, "/dashboard/settings", { ok: "Settings saved." });
  });

  app.post("/settings/limits", async (c) => {
    requireManagement(c.get("session").principal);
    const services = c.get("services");
    const form = await formOf(c);
    const parsed = parseLimitFields(form, "default");
    if (!parsed.ok) return settingsPage(c, undefined, { values: form, errors: parsed.errors });
    await services.settings.change({ defaultLimits: parsed.limits });
    services.limits.forgetEffective();
    return redirectWith(c, "/dashboard/settings", { ok: "Default limits saved." });
  });

  app.post("/keys", async (c) => {
    requireManagement(c.get("session").principal);
    const form = await formOf(c);
    const name = form.name?.trim();
    if (!name || name.length > 200) {
      return redirectWith(c, "/dashboard/settings", {
        err: "A key needs a name of 1 to 200 characters.",
      });
    }
    const exp = form.expiresAt ? Date.parse(`${form.expiresAt}Z`) : null;
    if (exp !== null && Number.isNaN(exp)) {
      return redirectWith(c, "/dashboard/settings", { err: "The expiry is not a valid date." });
    }
    try {
      const { key } = await c.get("services").keys.create(name, exp, scopesOf(form));
      return settingsPage(c, key);
    } catch (err) {
      if (err instanceof InvalidInputError) {
        return redirectWith(c, "/dashboard/settings", { err: err.message });
      }
      throw err;
    }
  });

  /** The second step of a revoke: what the key is, and a button that really revokes it. */
  app.get("/keys/:id/revoke", async (c) => {
    requireManagement(c.get("session").principal);
    const key = await c.get("services").keys.getChangeable(c.req.param("id"));
    return c.html(<ConfirmRevoke c={c} apiKey={key} />);
  });

  app.post("/keys/:id/revoke", async (c) => {
    requireManagement(c.get("session").principal);
    const form = await formOf(c);
    const services = c.get("services");
    if (form.confirm !== "yes") {
      // A post without the confirmation step's field (an old page, a stray form) revokes nothing.
      return c.html(
        <ConfirmRevoke c={c} apiKey={await services.keys.getChangeable(c.req.param("id"))} />,
        400,
      );
    }
    const info = await services.keys.revoke(c.req.param("id"));
    return redirectWith(c, "/dashboard/settings", { ok: `Revoked key ${info.name}.` });
  });

  return app;
}
