/**
 * Per-key limits and usage in the dashboard over real HTTP (docs/dashboard.md#limits-and-usage,
 * docs/rate-limits.md): a key's page shows its effective limits (override or default) and today's
 * usage as the REST API reports them; management edits a key's overrides and the defaults through
 * the forms, the REST API then reports them and the executor enforces them at once; a bad value is
 * refused with the values as posted and nothing changes; a key session sees its own limits
 * read-only and gets 403 posting the forms.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";
import { signIn } from "../support/dashboard-client.js";

/** The text of cell `field` in the row `attr="name"` of a page. */
function cell(html: string, attr: string, name: string, field: string): string | undefined {
  const row = html.match(new RegExp(`<tr ${attr}="${name}">([\\s\\S]*?)</tr>`))?.[1];
  return row?.match(new RegExp(`data-field="${field}"[^>]*>([^<]*)<`))?.[1];
}

/** The `data-source` of a limit's row: `override` or `default`. */
function sourceOf(html: string, name: string): string | undefined {
  const row = html.match(new RegExp(`<tr data-limit="${name}">([\\s\\S]*?)</tr>`))?.[1];
  return row?.match(/data-source="([a-z]+)"/)?.[1];
}

/** The value attribute of the input named `name`. */
function inputValue(html: string, name: string): string | undefined {
  return html.match(new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`))?.[1];
}

const seconds = (s: number) => `${Number(s.toFixed(3))} s`;

describe("dashboard: per-key limits and usage", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  async function keyWithLimits(name: string, overrides: Record<string, number | null>) {
    const key = await t.api.createKey(name);
    const put = await t.api.put(`/api/keys/${key.id}/limits`, overrides);
    expect(put.status).toBe(200);
    return key;
  }

  it("shows a key's effective limits, marked override or default, and today's usage as REST reports them", async () => {
    expect(
      (
        await t.api.put("/api/settings", {
          defaultLimits: {
            executionsPerMinute: 60,
            concurrentSandboxRuns: 2,
            dailySandboxSeconds: 3600,
          },
        })
      ).status,
    ).toBe(200);
    const key = await keyWithLimits("audited", {
      executionsPerMinute: 600,
      concurrentSandboxRuns: null,
    });
    // Runs of echo-handler count as sandbox runs here, so the daily counters move without Docker.
    t.services.limiter.countAsSandbox("echo-handler");
    const installed = await t.api.post("/api/skills/install", {
      name: "counted-echo",
      version: "1.0.0",
      handlerCode: "echo-handler",
      apiKeyId: key.id,
    });
    expect(installed.status).toBe(201);
    for (const n of [1, 2]) {
      const run = await t.api.as(key.key).post("/api/skills/executions", {
        skillName: "counted-echo",
        input: { n },
      });
      expect(run.body.execution.status).toBe("success");
    }
    const rest = (await t.api.get(`/api/keys/${key.id}`)).body.limits;
    expect(rest.usage).toMatchObject({ executionsToday: 2, sandboxRunsToday: 2 });

    const dash = await signIn(t, MGMT_TOKEN);
    const settings = await dash.get("/dashboard/settings");
    expect(settings.html).toContain(`href="/dashboard/keys/${key.id}"`);
    expect(settings.html).toMatch(/data-default="executionsPerMinute">60</);
    expect(settings.html).toMatch(/data-default="dailySandboxSeconds">3600</);

    const page = await dash.get(`/dashboard/keys/${key.id}`);
    expect(page.status).toBe(200);
    const limit = (name: string, field: string) => cell(page.html, "data-limit", name, field);
    expect(limit("executionsPerMinute", "effective")).toBe("600");
    expect(sourceOf(page.html, "executionsPerMinute")).toBe("override");
    expect(limit("executionsPerMinute", "default")).toBe("60");
    expect(limit("concurrentSandboxRuns", "effective")).toBe("no limit");
    expect(sourceOf(page.html, "concurrentSandboxRuns")).toBe("override");
    expect(limit("concurrentSandboxRuns", "default")).toBe("2");
    expect(limit("dailySandboxSeconds", "effective")).toBe("3600");
    expect(sourceOf(page.html, "dailySandboxSeconds")).toBe("default");

    const usage = (name: string) => cell(page.html, "data-usage", name, "value");
    expect(usage("executionsToday")).toBe("2");
    expect(usage("sandboxRunsToday")).toBe("2");
    expect(usage("sandboxSecondsToday")).toBe(seconds(rest.usage.sandboxSecondsToday));
    expect(usage("reservedSandboxSeconds")).toBe("0 s");
    expect(usage("remainingSandboxSeconds")).toBe(seconds(rest.usage.remainingSandboxSeconds));
    expect(page.html).toContain("daily budget 3600 s");
    // The form shows the overrides: a number, none for no limit, blank to follow the default.
    expect(inputValue(page.html, "executionsPerMinute")).toBe("600");
    expect(inputValue(page.html, "concurrentSandboxRuns")).toBe("none");
    expect(inputValue(page.html, "dailySandboxSeconds")).toBe("");
  });

  it("management edits a key's overrides and the defaults; the REST API reports them", async () => {
    const key = await keyWithLimits("edited", { dailySandboxSeconds: 50 });
    const dash = await signIn(t, MGMT_TOKEN);
    const saved = await dash.post(`/dashboard/keys/${key.id}/limits`, {
      executionsPerMinute: "5",
      concurrentSandboxRuns: "none",
      dailySandboxSeconds: "",
    });
    expect(saved.status).toBe(303);
    const after = (await t.api.get(`/api/keys/${key.id}`)).body.limits;
    expect(after.overrides).toEqual({ executionsPerMinute: 5, concurrentSandboxRuns: null });
    expect(after.limits).toEqual({
      executionsPerMinute: 5,
      concurrentSandboxRuns: null,
      dailySandboxSeconds: null,
    });
    const page = await dash.get(`/dashboard/keys/${key.id}`);
    expect(cell(page.html, "data-limit", "executionsPerMinute", "effective")).toBe("5");
    expect(sourceOf(page.html, "dailySandboxSeconds")).toBe("default");

    const defaults = await dash.post("/dashboard/settings/limits", {
      executionsPerMinute: "",
      concurrentSandboxRuns: "3",
      dailySandboxSeconds: "7200",
    });
    expect(defaults.status).toBe(303);
    expect((await t.api.get("/api/settings")).body.settings.defaultLimits).toEqual({
      executionsPerMinute: null,
      concurrentSandboxRuns: 3,
      dailySandboxSeconds: 7200,
    });
    // The key follows the new default where it has no override of its own, at once.
    expect((await t.api.get(`/api/keys/${key.id}`)).body.limits.limits).toEqual({
      executionsPerMinute: 5,
      concurrentSandboxRuns: null,
      dailySandboxSeconds: 7200,
    });
    const shown = await dash.get(`/dashboard/keys/${key.id}`);
    expect(cell(shown.html, "data-limit", "dailySandboxSeconds", "effective")).toBe("7200");
  });

  it("a default saved from the dashboard is enforced at once, even for a key that just ran", async () => {
    const key = await t.api.createKey("runner");
    await t.api.post("/api/skills/install", {
      name: "plain-echo",
      version: "1.0.0",
      handlerCode: "echo-handler",
    });
    const run = () =>
      t.api.as(key.key).post("/api/skills/executions", { skillName: "plain-echo", input: {} });
    expect((await run()).status).toBe(200);
    const dash = await signIn(t, MGMT_TOKEN);
    const saved = await dash.post("/dashboard/settings/limits", {
      executionsPerMinute: "0",
      concurrentSandboxRuns: "",
      dailySandboxSeconds: "",
    });
    expect(saved.status).toBe(303);
    const blocked = await run();
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe("limit_blocked");
    const cleared = await dash.post(`/dashboard/keys/${key.id}/limits`, {
      executionsPerMinute: "none",
    });
    expect(cleared.status).toBe(303);
    expect((await run()).status).toBe(200);
  });

  it("refuses a bad value with the values as posted, and changes nothing", async () => {
    await t.api.put("/api/settings", { defaultLimits: { executionsPerMinute: 30 } });
    const key = await keyWithLimits("careful", { executionsPerMinute: 10 });
    const dash = await signIn(t, MGMT_TOKEN);
    const bad = await dash.post(`/dashboard/keys/${key.id}/limits`, {
      executionsPerMinute: "-1",
      concurrentSandboxRuns: "abc",
      dailySandboxSeconds: "5",
    });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('role="alert"');
    expect(bad.html).toContain("The key&#39;s limits were not changed");
    expect(bad.html).toMatch(/Executions per minute: (&quot;|")-1/);
    expect(bad.html).toMatch(/Concurrent sandbox runs: (&quot;|")abc/);
    expect(inputValue(bad.html, "executionsPerMinute")).toBe("-1");
    expect(inputValue(bad.html, "concurrentSandboxRuns")).toBe("abc");
    expect(inputValue(bad.html, "dailySandboxSeconds")).toBe("5");
    expect((await t.api.get(`/api/keys/${key.id}`)).body.limits.overrides).toEqual({
      executionsPerMinute: 10,
    });

    const badDefaults = await dash.post("/dashboard/settings/limits", {
      executionsPerMinute: "1.5",
      concurrentSandboxRuns: "2",
      dailySandboxSeconds: "2000000000",
    });
    expect(badDefaults.status).toBe(400);
    expect(badDefaults.html).toContain("The default limits were not changed");
    expect(inputValue(badDefaults.html, "executionsPerMinute")).toBe("1.5");
    expect(inputValue(badDefaults.html, "dailySandboxSeconds")).toBe("2000000000");
    expect((await t.api.get("/api/settings")).body.settings.defaultLimits).toEqual({
      executionsPerMinute: 30,
      concurrentSandboxRuns: null,
      dailySandboxSeconds: null,
    });
  });

  it("a revoked key's page shows its limits without the form; a post answers 409", async () => {
    const key = await keyWithLimits("gone", { executionsPerMinute: 7 });
    expect((await t.api.delete(`/api/keys/${key.id}`)).status).toBe(200);
    const dash = await signIn(t, MGMT_TOKEN);
    const page = await dash.get(`/dashboard/keys/${key.id}`);
    expect(page.status).toBe(200);
    expect(cell(page.html, "data-limit", "executionsPerMinute", "effective")).toBe("7");
    expect(page.html).not.toContain(`action="/dashboard/keys/${key.id}/limits"`);
    const posted = await dash.post(`/dashboard/keys/${key.id}/limits`, {
      executionsPerMinute: "8",
    });
    expect(posted.status).toBe(409);
    expect((await t.api.get(`/api/keys/${key.id}`)).body.limits.overrides).toEqual({
      executionsPerMinute: 7,
    });
  });

  it("a key session sees its own limits read-only, not another key's, and cannot edit", async () => {
    await t.api.put("/api/settings", { defaultLimits: { dailySandboxSeconds: 900 } });
    const mine = await keyWithLimits("mine", { executionsPerMinute: 12 });
    const other = await keyWithLimits("other", { executionsPerMinute: 99 });
    const dash = await signIn(t, mine.key);

    const settings = await dash.get("/dashboard/settings");
    expect(settings.html).toContain(`href="/dashboard/keys/${mine.id}"`);
    const page = await dash.get(`/dashboard/keys/${mine.id}`);
    expect(page.status).toBe(200);
    expect(cell(page.html, "data-limit", "executionsPerMinute", "effective")).toBe("12");
    expect(sourceOf(page.html, "executionsPerMinute")).toBe("override");
    expect(cell(page.html, "data-limit", "dailySandboxSeconds", "effective")).toBe("900");
    expect(cell(page.html, "data-usage", "executionsToday", "value")).toBe("0");
    expect(page.html).not.toContain('/limits"');
    expect(page.html).not.toContain("Save limits");

    const others = await dash.get(`/dashboard/keys/${other.id}`);
    expect(others.status).toBe(404);
    expect(others.html).not.toContain("data-limit=");

    const forged = await dash.post(`/dashboard/keys/${mine.id}/limits`, {
      executionsPerMinute: "100000",
    });
    expect(forged.status).toBe(403);
    const forgedDefaults = await dash.post("/dashboard/settings/limits", {
      executionsPerMinute: "100000",
    });
    expect(forgedDefaults.status).toBe(403);
    expect((await t.api.get(`/api/keys/${mine.id}`)).body.limits.overrides).toEqual({
      executionsPerMinute: 12,
    });
    expect((await t.api.get("/api/settings")).body.settings.defaultLimits).toEqual({
      executionsPerMinute: null,
      concurrentSandboxRuns: null,
      dailySandboxSeconds: 900,
    });

    const noRead = await t.api.post("/api/keys", { name: "no-read", scopes: ["inject"] });
    const blind = await signIn(t, noRead.body.key);
    const refused = await blind.get(`/dashboard/keys/${noRead.body.apiKey.id}`);
    expect(refused.status).toBe(403);
    expect(refused.html).toMatch(/lacks the scope (&quot;|")read/);
  });
});
