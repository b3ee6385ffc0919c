/**
 * One API key's page (docs/dashboard.md#limits-and-usage): the key's fields, its effective limits
 * (its own override or the default, marked) and its usage today (docs/rate-limits.md), and for
 * management a form that replaces the key's overrides. A key session sees its own page read-only;
 * another key's id answers 404, as in the REST API. Calls the keys and limits services only.
 */
import { Hono } from "hono";
import { canAccessOwned, requireManagement } from "../auth/principal.js";
import { NotFoundError } from "../errors.js";
import type { ApiKeyInfo } from "../services/keys.js";
import { type DashContext, type DashEnv, formOf, pageProps, redirectWith } from "./env.js";
import { Page, when } from "./layout.js";
import {
  EffectiveLimits,
  KeyLimitsForm,
  LIMIT_LABELS,
  limitText,
  overrideValues,
  parseLimitFields,
  UsageToday,
} from "./limits-view.js";
import { TokensToday } from "./token-usage-view.js";

/** The form state of a refused post: the values as posted and the messages. */
interface Refused {
  values: Record<string, string>;
  errors: string[];
}

/** Builds the routes of one key's page. */
export function keyPages(): Hono<DashEnv> {
  const app = new Hono<DashEnv>();

  /** The key `id` if the session may see it; another key's id answers as not found. */
  async function visibleKey(c: DashContext, id: string): Promise<ApiKeyInfo> {
    if (!canAccessOwned(c.get("session").principal, id)) {
      throw new NotFoundError(`API key ${id} not found`, "api_key_not_found");
    }
    return c.get("services").keys.get(id);
  }

  async function keyPage(c: DashContext, key: ApiKeyInfo, refused?: Refused) {
    const services = c.get("services");
    const session = c.get("session");
    const [view, defaults, tokens] = await Promise.all([
      services.limits.view(key.id),
      services.limits.defaults(),
      services.tokenUsage.view(key.id, 1),
    ]);
    const management = session.principal.kind === "management";
    return c.html(
      <Page title={`Key ${key.name}`} {...pageProps(c, "/dashboard/settings")}>
        <h1>
          Key {key.name} {key.revokedAt ? <span class="badge error">revoked</span> : null}
        </h1>
        <div class="card">
          <dl>
            <dt>Id</dt>
            <dd>
              <code>{key.id}</code>
            </dd>
            <dt>Prefix</dt>
            <dd>
              <code>{key.prefix}…</code>
            </dd>
            <dt>Scopes</dt>
            <dd>{key.scopes.join(", ")}</dd>
            <dt>Created</dt>
            <dd>{when(key.createdAt)}</dd>
            <dt>Last used</dt>
            <dd>{key.lastUsedAt ? when(key.lastUsedAt) : "never"}</dd>
            <dt>Expires</dt>
            <dd>{key.expiresAt ? when(key.expiresAt) : "never"}</dd>
            {key.revokedAt ? (
              <>
                <dt>Revoked</dt>
                <dd>{when(key.revokedAt)}</dd>
              </>
            ) : null}
          </dl>
        </div>

        <h2>Limits</h2>
        <EffectiveLimits view={view} defaults={defaults} />
        <h2>Usage today</h2>
        <UsageToday view={view} />
        <h2>Tokens today</h2>
        <TokensToday view={tokens} />
        <p class="muted">
          Daily counters come from the database; the counters marked "this instance" are those of
          the server that drew this page.
        </p>

        {management && !key.revokedAt ? (
          <>
            <h2>Edit this key's limits</h2>
            <KeyLimitsForm
              keyId={key.id}
              keyName={key.name}
              values={refused?.values ?? overrideValues(view.overrides)}
              defaults={defaults}
              csrf={session.csrf}
              errors={refused?.errors ?? []}
            />
          </>
        ) : management ? (
          <p class="muted">A revoked key's limits no longer change.</p>
        ) : (
          <p class="muted">Limits are set by an operator with the management token.</p>
        )}
      </Page>,
      refused ? 400 : 200,
    );
  }

  app.get("/keys/:id", async (c) => keyPage(c, await visibleKey(c, c.req.param("id"))));

  app.post("/keys/:id/limits", async (c) => {
    requireManagement(c.get("session").principal);
    const services = c.get("services");
    const key = await services.keys.getChangeable(c.req.param("id"));
    const form = await formOf(c);
    const parsed = parseLimitFields(form, "override");
    if (!parsed.ok) return keyPage(c, key, { values: form, errors: parsed.errors });
    await services.limits.setOverrides(key.id, parsed.limits);
    const own = Object.entries(parsed.limits)
      .map(([name, v]) => `${LIMIT_LABELS[name as keyof typeof LIMIT_LABELS]} ${limitText(v)}`)
      .join(", ");
    return redirectWith(c, `/dashboard/keys/${key.id}`, {
      ok: `Saved the limits of ${key.name}: ${own || "every limit follows the default"}.`,
    });
  });

  return app;
}
