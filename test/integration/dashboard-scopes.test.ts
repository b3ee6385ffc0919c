/**
 * The dashboard over real HTTP (docs/dashboard.md#scopes): a key signed in sees only the controls
 * its scopes allow and gets 403 when it posts a form anyway; the Settings page shows and toggles
 * the custom skill execution switch (docs/configuration.md#custom-skill-execution).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";
import { captureConsole } from "../support/console-capture.js";
import { signIn } from "../support/dashboard-client.js";
import { toolTurn } from "../support/proxy-fixtures.js";

/** A Chat Completions answer calling `name` once. */
const chatCalling = (name: string) =>
  toolTurn("openai-chat", [{ id: "call_1", name, args: { v: "hold" } }], 1);

describe("dashboard and key scopes", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
    const installed = await t.api.post("/api/skills/install", {
      name: "needs-approval",
      version: "1.0.0",
      description: "repeats its input after an operator approves",
      schema: { input: { type: "object", properties: { v: { type: "string" } } } },
      handlerCode: "echo-handler",
      mode: "on",
      policy: "hybrid",
    });
    expect(installed.status).toBe(201);
  });
  afterEach(() => t.close());

  /** A key with `scopes` and one execution of its own awaiting approval. */
  async function keyWithPending(scopes: string[]) {
    const created = await t.api.post("/api/keys", {
      name: `k-${scopes.join("-")}`,
      scopes: [...scopes, "inject"],
    });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    const inj = await t.api.as(key).post("/api/skills/inject", {
      format: "openai-chat",
      request: { model: "gpt-4.1", messages: [{ role: "user", content: "needs-approval" }] },
      include: ["needs-approval"],
    });
    const toolName = inj.body.injected[0].toolName as string;
    const res = await t.api.as(key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: chatCalling(toolName),
    });
    const id = res.body.toolResults[0].executionId as string;
    expect(id).toBeTruthy();
    return { key, id };
  }

  it("a key without execute sees no approve control and gets 403 posting the form anyway", async () => {
    const { key, id } = await keyWithPending(["read"]);
    const dash = await signIn(t, key);
    const list = await dash.get("/dashboard/executions");
    expect(list.status).toBe(200);
    expect(list.html).toContain(id);
    expect(list.html).not.toContain(`Approve execution ${id}`);
    const detail = await dash.get(`/dashboard/executions/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.html).not.toContain(`/dashboard/executions/${id}/approve`);

    const posted = await dash.post(`/dashboard/executions/${id}/approve`, {});
    expect(posted.status).toBe(403);
    expect(posted.html).toMatch(/lacks the scope (&quot;|")execute/);
    const after = await t.api.get(`/api/skills/executions/${id}`);
    expect(after.body.execution.status).toBe("pending");
  });

  it("a key with execute sees the control and approves its own execution", async () => {
    const { key, id } = await keyWithPending(["read", "execute"]);
    const dash = await signIn(t, key);
    expect((await dash.get("/dashboard/executions")).html).toContain(`Approve execution ${id}`);
    const posted = await dash.post(`/dashboard/executions/${id}/approve`, {
      back: `/dashboard/executions/${id}`,
    });
    expect(posted.status).toBe(303);
    const after = await t.api.get(`/api/skills/executions/${id}`);
    expect(after.body.execution.status).toBe("success");
  });

  it("a key without read is refused the reading pages", async () => {
    const created = await t.api.post("/api/keys", { name: "inject-only", scopes: ["inject"] });
    const dash = await signIn(t, created.body.key);
    const page = await dash.get("/dashboard/executions");
    expect(page.status).toBe(403);
    expect(page.html).toMatch(/lacks the scope (&quot;|")read/);
  });

  it("the Settings page shows and toggles custom skill execution", async () => {
    const dash = await signIn(t, MGMT_TOKEN);
    const page = await dash.get("/dashboard/settings");
    expect(page.html).toMatch(/id="f-customSkillExecution"[^>]*checked/);
    const off = await dash.post("/dashboard/settings", {
      skillsEnabled: "on",
      activeProvider: "skillsmp",
    });
    expect(off.status).toBe(303);
    expect((await t.api.get("/api/settings")).body.settings).toMatchObject({
      skillsEnabled: true,
      customSkillExecution: false,
    });
    const shown = await dash.get("/dashboard/settings");
    expect(shown.html).toContain('id="f-customSkillExecution"');
    expect(shown.html).not.toMatch(/id="f-customSkillExecution"[^>]*checked/);
    await dash.post("/dashboard/settings", {
      skillsEnabled: "on",
      customSkillExecution: "on",
      activeProvider: "skillsmp",
    });
    expect((await t.api.get("/api/settings")).body.settings.customSkillExecution).toBe(true);
  });

  it("a cross-site form post is refused with 403 and a page, not a server error", async () => {
    const logs = captureConsole();
    try {
      const noOrigin = await fetch(`${t.url}/dashboard/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: MGMT_TOKEN }).toString(),
        redirect: "manual",
      });
      expect(noOrigin.status).toBe(403);
      expect(noOrigin.headers.get("set-cookie")).toBeNull();
      expect(await noOrigin.text()).toContain("cross-site request refused");
      const dash = await signIn(t, MGMT_TOKEN);
      expect(dash).toBeDefined();
      const evil = await fetch(`${t.url}/dashboard/settings`, {
        method: "POST",
        headers: {
          origin: "https://evil.example",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ activeProvider: "skillsmp" }).toString(),
        redirect: "manual",
      });
      expect(evil.status).toBe(403);
      expect((await t.api.get("/api/settings")).body.settings.skillsEnabled).toBe(true);
      expect(logs.lines.filter((l) => l.includes("dashboard error"))).toEqual([]);
    } finally {
      logs.restore();
    }
  });
});
