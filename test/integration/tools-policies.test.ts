/**
 * Inject / intercept over HTTP: two versions side by side, key isolation, hybrid
 * approval and manual policy through interception, the master switch, the request's own "no
 * tools" choice, builtins-only interception, and strict input handling (400s).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";

let t: TestApp;
let keyA: { key: string; id: string };
let keyB: { key: string; id: string };

const chatRequest = (text: string, extra: object = {}) => ({
  model: "gpt-4.1",
  messages: [{ role: "user", content: text }],
  ...extra,
});
const chatResponse = (...names: string[]) => ({
  id: "chatcmpl-x",
  object: "chat.completion",
  created: 1,
  model: "gpt-4.1",
  choices: [
    {
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: null,
        tool_calls: names.map((name, i) => ({
          id: `call_${i}`,
          type: "function",
          function: { name, arguments: '{"text":"abc"}' },
        })),
      },
    },
  ],
});

beforeAll(async () => {
  t = await startTestApp();
  t.services.executor.registerHandler("echo-version", async (input, ctx) => ({
    version: ctx.skill.version,
    input,
  }));
  keyA = await t.api.createKey("A");
  keyB = await t.api.createKey("B");
  const install = async (body: object) => {
    const res = await t.api.post("/api/skills/install", {
      description: "Reverses text",
      schema: { input: { text: "string" } },
      handlerCode: "echo-version",
      ...body,
    });
    expect(res.status).toBe(201);
  };
  await install({ name: "reverseText", version: "1.0.0", apiKeyId: keyA.id });
  await install({ name: "reverseText", version: "2.0.0", apiKeyId: keyA.id });
  await install({ name: "approveMe", version: "1.0.0", policy: "hybrid", apiKeyId: keyA.id });
  await install({ name: "handsOff", version: "1.0.0", policy: "manual", apiKeyId: keyA.id });
});
afterAll(() => t.close());

describe("over HTTP: two versions side by side", () => {
  it("both injected on request, each call runs its own version", async () => {
    const inj = await t.api.as(keyA.key).post("/api/skills/inject", {
      format: "openai-chat",
      request: chatRequest("hello"),
      include: ["reverseText@1.0.0", "reverseText@2.0.0"],
      exclude: ["approveMe"],
    });
    expect(inj.status).toBe(200);
    const names = inj.body.injected.map((i: { toolName: string }) => i.toolName);
    expect(names).toContain("reverseText_v1_0_0");
    expect(names).toContain("reverseText_v2_0_0");
    expect(names).not.toContain("approveMe_v1_0_0");
    expect(names).not.toContain("handsOff_v1_0_0");
    for (const n of names) expect(n).toMatch(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/);
    const res = await t.api.as(keyA.key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: chatResponse("reverseText_v2_0_0", "reverseText_v1_0_0"),
    });
    expect(
      res.body.toolResults.map((r: { output: { version: string } }) => r.output.version),
    ).toEqual(["2.0.0", "1.0.0"]);
  });
});

describe("key isolation", () => {
  it("another key neither gets A's skills injected nor runs them", async () => {
    const inj = await t.api.as(keyB.key).post("/api/skills/inject", {
      format: "openai-chat",
      request: chatRequest("reverseText please"),
    });
    expect(inj.body.injected.map((i: { name: string }) => i.name)).not.toContain("reverseText");
    const res = await t.api.as(keyB.key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: chatResponse("reverseText_v1_0_0"),
    });
    expect(res.body).toMatchObject({ toolResults: [], messages: [], passThrough: ["call_0"] });
  });
  it("a key cannot act for another key; management can", async () => {
    const denied = await t.api.as(keyB.key).post("/api/skills/inject", {
      format: "openai-chat",
      request: chatRequest("x"),
      apiKeyId: keyA.id,
    });
    expect(denied.status).toBe(403);
    const mgmt = await t.api.post("/api/skills/intercept", {
      format: "openai-chat",
      response: chatResponse("reverseText_v1_0_0"),
      apiKeyId: keyA.id,
    });
    expect(mgmt.body.toolResults[0].status).toBe("success");
  });
});

describe("policies through interception", () => {
  it("hybrid → pending approval, listed, and runs once approved", async () => {
    const res = await t.api.as(keyA.key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: chatResponse("approveMe_v1_0_0"),
      sessionId: "s-approve",
    });
    const [result] = res.body.toolResults;
    expect(result).toMatchObject({ status: "pending_approval", skill: "approveMe@1.0.0" });
    expect(JSON.parse(res.body.messages[0].content)).toMatchObject({
      status: "pending_approval",
      executionId: result.executionId,
    });
    const pending = await t.api.as(keyA.key).get("/api/skills/executions?approval=required");
    expect(pending.body.data.map((e: { id: string }) => e.id)).toContain(result.executionId);
    const approved = await t.api
      .as(keyA.key)
      .post(`/api/skills/executions/${result.executionId}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.execution).toMatchObject({ status: "success", sessionId: "s-approve" });
  });
  it("manual → an error result saying it needs an explicit execution, nothing recorded", async () => {
    const res = await t.api.as(keyA.key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: chatResponse("handsOff_v1_0_0"),
      sessionId: "s-manual",
    });
    expect(res.body.toolResults[0]).toMatchObject({ status: "error", executionId: null });
    expect(res.body.toolResults[0].error).toMatch(/explicit execution/);
    const rows = await t.api.as(keyA.key).get("/api/skills/executions?sessionId=s-manual");
    expect(rows.body.total).toBe(0);
  });
  it("customSkillExecutionEnabled: false passes custom calls through", async () => {
    const res = await t.api.as(keyA.key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: chatResponse("reverseText_v1_0_0"),
      customSkillExecutionEnabled: false,
    });
    expect(res.body).toMatchObject({ toolResults: [], passThrough: ["call_0"] });
  });
  it("invalid input becomes an error tool result, not a failed request", async () => {
    const response = chatResponse("reverseText_v1_0_0");
    response.choices[0]!.message.tool_calls[0]!.function.arguments = '{"text": 42}';
    const res = await t.api
      .as(keyA.key)
      .post("/api/skills/intercept", { format: "openai-chat", response });
    expect(res.status).toBe(200);
    expect(res.body.toolResults[0]).toMatchObject({ status: "error", executionId: null });
  });
});

describe("nothing injected", () => {
  it("when the request says tool_choice none", async () => {
    const request = chatRequest("x", { tool_choice: "none" });
    const res = await t.api
      .as(keyA.key)
      .post("/api/skills/inject", { format: "openai-chat", request, include: ["reverseText"] });
    expect(res.body).toEqual({ request, injected: [] });
  });
  it("when the master switch is off", async () => {
    expect((await t.api.put("/api/settings", { skillsEnabled: false })).status).toBe(200);
    try {
      const res = await t.api.as(keyA.key).post("/api/skills/inject", {
        format: "anthropic",
        request: { model: "m", max_tokens: 10, messages: [] },
        include: ["reverseText"],
      });
      expect(res.body.injected).toEqual([]);
      const call = await t.api.as(keyA.key).post("/api/skills/intercept", {
        format: "openai-chat",
        response: chatResponse("reverseText_v1_0_0"),
      });
      expect(call.body.toolResults[0].error).toMatch(/^Skills execution is disabled/);
    } finally {
      await t.api.put("/api/settings", { skillsEnabled: true });
    }
  });
});

describe("OpenAPI document", () => {
  it("describes the inject and intercept endpoints", async () => {
    const res = await t.api.get("/openapi.json");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(["/api/skills/inject", "/api/skills/intercept"]),
    );
    expect(res.body.components.schemas.InjectBody.properties.format.enum).toEqual([
      "openai-chat",
      "openai-responses",
      "anthropic",
      "gemini",
    ]);
  });
});

describe("strict input handling", () => {
  it.each([
    ["unknown format", "/api/skills/inject", { format: "cohere", request: { messages: [] } }],
    ["request not an object", "/api/skills/inject", { format: "openai-chat", request: "hi" }],
    [
      "chat request without messages",
      "/api/skills/inject",
      { format: "openai-chat", request: { model: "x" } },
    ],
    [
      "tools not an array",
      "/api/skills/inject",
      { format: "anthropic", request: { messages: [], tools: {} } },
    ],
    [
      "unknown field",
      "/api/skills/inject",
      { format: "gemini", request: { contents: [] }, extra: 1 },
    ],
    [
      "response without output",
      "/api/skills/intercept",
      { format: "openai-responses", response: { id: "r" } },
    ],
    [
      "injected not a list",
      "/api/skills/intercept",
      { format: "anthropic", response: { content: [] }, injected: "x" },
    ],
  ])("%s → 400", async (_label, path, body) => {
    const res = await t.api.as(keyA.key).post(path, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_input");
  });
  it("a body of `{` → 400; no credentials → 401", async () => {
    expect((await t.api.as(keyA.key).post("/api/skills/intercept", "{")).status).toBe(400);
    expect(
      (
        await t.api
          .as(undefined)
          .post("/api/skills/inject", { format: "gemini", request: { contents: [] } })
      ).status,
    ).toBe(401);
  });
});
