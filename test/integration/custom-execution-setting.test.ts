/**
 * The `customSkillExecution` setting (docs/configuration.md#custom-skill-execution): off, only
 * builtins run at every front door — injection leaves custom skills out, interception answers a
 * custom call with an error result, MCP lists only builtins and answers `tools/call` of a custom
 * skill with an error result, an explicit run or an approval answers 409
 * `custom_execution_disabled` — and nothing is recorded for the refused custom skill.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { callTool, connectMcp, listAllTools } from "../support/mcp.js";
import { toolTurn } from "../support/proxy-fixtures.js";

/** A Chat Completions answer calling `name` once with `args`. */
const chatCalling = (name: string, args: Record<string, unknown>) =>
  toolTurn("openai-chat", [{ id: "call_1", name, args }], 1);

const install = (t: TestApp, name: string, policy: "auto" | "hybrid") =>
  t.api.post("/api/skills/install", {
    name,
    version: "1.0.0",
    description: `${name} repeats its input`,
    schema: { input: { type: "object", properties: { v: { type: "string" } } } },
    handlerCode: "echo-handler",
    mode: "on",
    policy,
  });

/** The tool name a key's model sees for skill `name` (from an injection naming it). */
async function toolNameOf(t: TestApp, key: string, name: string): Promise<string> {
  const res = await t.api.as(key).post("/api/skills/inject", {
    format: "openai-chat",
    request: { model: "gpt-4.1", messages: [{ role: "user", content: name }] },
    include: [name],
  });
  const tool = (res.body.injected as Array<{ name: string; toolName: string }>).find(
    (i) => i.name === name,
  );
  if (!tool) throw new Error(`${name} was not injected`);
  return tool.toolName;
}

describe("customSkillExecution setting", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
    expect((await install(t, "say-back", "auto")).status).toBe(201);
  });
  afterEach(() => t.close());

  it("defaults to true and is read and written through /api/settings", async () => {
    expect((await t.api.get("/api/settings")).body.settings.customSkillExecution).toBe(true);
    const put = await t.api.put("/api/settings", { customSkillExecution: false });
    expect(put.status).toBe(200);
    expect(put.body.settings.customSkillExecution).toBe(false);
    expect((await t.api.get("/api/settings")).body.settings.customSkillExecution).toBe(false);
    const bad = await t.api.put("/api/settings", { customSkillExecution: "no" });
    expect(bad.status).toBe(400);
    expect((await t.api.get("/api/settings")).body.settings.customSkillExecution).toBe(false);
  });

  it("off: explicit runs of a custom skill answer 409 and record nothing; builtins still run", async () => {
    const before = await t.api.post("/api/skills/executions", {
      skillName: "say-back",
      input: { v: "on" },
    });
    expect(before.status).toBe(200);
    expect(before.body.execution.status).toBe("success");

    await t.api.put("/api/settings", { customSkillExecution: false });
    const refused = await t.api.post("/api/skills/executions", {
      skillName: "say-back",
      input: { v: "off" },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("custom_execution_disabled");
    expect(refused.body.error.message).toContain("customSkillExecution");
    const rows = await t.api.get("/api/skills/executions?skill=say-back");
    expect(rows.body.data).toHaveLength(1);

    const builtin = await t.api.post("/api/skills/executions", {
      skillName: "file_write",
      input: { path: "notes.txt", content: "still runs" },
      sessionId: "custom-off-session",
    });
    expect(builtin.status).toBe(200);
    expect(builtin.body.execution.status).toBe("success");
  });

  it("off: a custom skill is not injected and its model call gets an error result", async () => {
    const key = await t.api.createKey("custom-off");
    const request = {
      model: "gpt-4.1",
      messages: [{ role: "user", content: "say-back please" }],
    };
    const injectedNames = async () =>
      (
        await t.api.as(key.key).post("/api/skills/inject", { format: "openai-chat", request })
      ).body.injected.map((i: { name: string }) => i.name) as string[];
    expect(await injectedNames()).toContain("say-back");
    const toolName = await toolNameOf(t, key.key, "say-back");

    await t.api.put("/api/settings", { customSkillExecution: false });
    expect(await injectedNames()).not.toContain("say-back");

    const res = await t.api.as(key.key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: chatCalling(toolName, { v: "x" }),
    });
    expect(res.status).toBe(200);
    expect(res.body.toolResults).toHaveLength(1);
    expect(res.body.toolResults[0]).toMatchObject({ status: "error", executionId: null });
    expect(res.body.toolResults[0].error).toContain("custom skill execution is off");
    expect((await t.api.get("/api/skills/executions?skill=say-back")).body.data).toEqual([]);
  });

  it("off: approving a pending custom execution answers 409 and leaves it pending", async () => {
    expect((await install(t, "held-back", "hybrid")).status).toBe(201);
    const key = await t.api.createKey("approver");
    const res = await t.api.as(key.key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: chatCalling(await toolNameOf(t, key.key, "held-back"), { v: "wait" }),
    });
    const id = res.body.toolResults[0].executionId as string;
    expect(id).toBeTruthy();

    await t.api.put("/api/settings", { customSkillExecution: false });
    const approve = await t.api.post(`/api/skills/executions/${id}/approve`);
    expect(approve.status).toBe(409);
    expect(approve.body.error.code).toBe("custom_execution_disabled");
    const after = await t.api.get(`/api/skills/executions/${id}`);
    expect(after.body.execution.status).toBe("pending");

    await t.api.put("/api/settings", { customSkillExecution: true });
    const approved = await t.api.post(`/api/skills/executions/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.execution.status).toBe("success");
  });

  it("off: MCP lists only builtins and a custom skill's tools/call is an error result", async () => {
    const key = await t.api.createKey("mcp-custom-off");
    const mcp = await connectMcp(t.url, key.key);
    try {
      const toolName = await toolNameOf(t, key.key, "say-back");
      const listed = async () => (await listAllTools(mcp)).map((x) => x.name);
      expect(await listed()).toContain(toolName);
      expect(await listed()).toContain("file_write");

      await t.api.put("/api/settings", { customSkillExecution: false });
      expect(await listed()).not.toContain(toolName);
      expect(await listed()).toContain("file_write");
      const r = await callTool(mcp, toolName, { v: "x" });
      expect(r.isError).toBe(true);
      expect(r.structuredContent.error).toContain("custom skill execution is off");
      expect((await t.api.get("/api/skills/executions?skill=say-back")).body.data).toEqual([]);
    } finally {
      await mcp.close();
    }
  });
});
