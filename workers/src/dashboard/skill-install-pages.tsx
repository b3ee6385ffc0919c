/**
 * Installing a custom skill from the dashboard (docs/dashboard.md#pages): the form, and its post
 * with validation feedback (the form comes back with every error and the values as posted, and
 * nothing is installed). Management only.
 */
import type { Hono } from "hono";
import { requireManagement } from "../auth/principal.js";
import { AppError } from "../errors.js";
import { type DashEnv, formOf, pageProps, redirectWith } from "./env.js";
import { Page } from "./layout.js";
import { InstallForm, MODES, POLICIES, pick } from "./skill-forms.js";

/** Adds `GET` and `POST /skills/new` to `app`. */
export function registerInstallPages(app: Hono<DashEnv>): void {
  app.get("/skills/new", (c) => {
    requireManagement(c.get("session").principal);
    const handlers = c.get("services").operator.handlerNames();
    return c.html(
      <Page title="Install a skill" {...pageProps(c, "/dashboard/skills")}>
        <h1>Install a skill</h1>
        <InstallForm values={{}} handlers={handlers} csrf={c.get("session").csrf} errors={[]} />
      </Page>,
    );
  });

  app.post("/skills/new", async (c) => {
    const services = c.get("services");
    requireManagement(c.get("session").principal);
    const form = await formOf(c);
    const errors: string[] = [];
    let schema: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(form.inputSchema?.trim() || "{}");
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
        errors.push("Input JSON schema: must be a JSON object");
      } else schema = parsed as Record<string, unknown>;
    } catch (err) {
      errors.push(`Input JSON schema: not valid JSON (${(err as Error).message})`);
    }
    const timeout = form.timeoutMs?.trim();
    const timeoutMs = timeout ? Number(timeout) : null;
    if (
      timeoutMs !== null &&
      !(Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= 600_000)
    ) {
      errors.push("Timeout: a whole number of milliseconds between 1 and 600000");
    }
    if (!errors.length) {
      try {
        const skill = await services.skills.install({
          name: form.name?.trim() ?? "",
          version: form.version?.trim() ?? "",
          description: form.description ?? "",
          handlerCode: form.handlerCode ?? "",
          schema: { input: schema },
          mode: pick(form.mode, MODES),
          policy: pick(form.policy, POLICIES),
          tags: (form.tags ?? "")
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean),
          timeoutMs,
          apiKeyId: form.apiKeyId?.trim() || null,
        });
        return redirectWith(c, `/dashboard/skills/${skill.id}`, {
          ok: `Installed ${skill.name}@${skill.version}.`,
        });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const details = Array.isArray(err.details)
          ? (err.details as { field?: string; message?: string }[])
          : [];
        errors.push(
          err.message,
          ...details.map((d) => `${d.field ?? "field"}: ${d.message ?? "invalid"}`),
        );
      }
    }
    return c.html(
      <Page title="Install a skill" {...pageProps(c, "/dashboard/skills")}>
        <h1>Install a skill</h1>
        <InstallForm
          values={form}
          handlers={services.operator.handlerNames().sort()}
          csrf={c.get("session").csrf}
          errors={errors}
        />
      </Page>,
      400,
    );
  });
}
