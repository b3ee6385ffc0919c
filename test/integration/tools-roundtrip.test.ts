/**
 * Issue 4 acceptance: a full round trip per wire format through the real HTTP surface against
 * embedded libSQL — install a handler-backed skill, inject it into a realistic request, feed a
 * realistic provider response calling it twice in parallel next to one client tool (`Bash`),
 * and check the results, the pass-through and the follow-up shape.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import {
  anthropicRequest,
  anthropicResponse,
  chatRequest,
  chatResponse,
  geminiCandidates,
  geminiRequest,
  json,
  responsesRequest,
  responsesResponse,
} from "../unit/providers-fixtures.js";

let t: TestApp;
let keyA: { key: string; id: string };
const handled: { input: unknown; sessionId: string | null }[] = [];

beforeAll(async () => {
  t = await startTestApp();
  t.services.executor.registerHandler("weather-handler", async (input, ctx) => {
    handled.push({ input, sessionId: ctx.sessionId });
    await new Promise((r) => setTimeout(r, 30));
    const city = (input as { city: string }).city;
    return { city, tempC: city === "Paris" ? 18 : 24 };
  });
  keyA = await t.api.createKey("A");
  const res = await t.api.post("/api/skills/install", {
    name: "lookupWeather",
    version: "1.0.0",
    description: "Current weather for a city",
    schema: { input: { city: { type: "string", required: true } } },
    handlerCode: "weather-handler",
    apiKeyId: keyA.id,
  });
  expect(res.status).toBe(201);
});
afterAll(() => t.close());

const TOOL = "lookupWeather_v1_0_0";
const asKey = () => t.api.as(keyA.key);

async function injectFor(format: string, request: object) {
  const res = await asKey().post("/api/skills/inject", { format, request });
  expect(res.status).toBe(200);
  const mine = res.body.injected.find((i: { name: string }) => i.name === "lookupWeather");
  expect(mine).toEqual({
    name: "lookupWeather",
    version: "1.0.0",
    toolName: TOOL,
    mode: "on",
    score: null,
    ranker: null,
  });
  return res.body as { request: Record<string, unknown>; injected: { toolName: string }[] };
}

async function intercept(
  format: string,
  response: object,
  sessionId: string,
  injected: { toolName: string }[],
) {
  const res = await asKey().post("/api/skills/intercept", {
    format,
    response,
    sessionId,
    injected: injected.map((i) => i.toolName),
  });
  expect(res.status).toBe(200);
  expect(
    res.body.toolResults.map((r: { status: string; skill: string; output: unknown }) => [
      r.status,
      r.skill,
      r.output,
    ]),
  ).toEqual([
    ["success", "lookupWeather@1.0.0", { city: "Paris", tempC: 18 }],
    ["success", "lookupWeather@1.0.0", { city: "Rome", tempC: 24 }],
  ]);
  // The handler ran once per owned call, with this intercept's session id.
  expect(
    handled
      .filter((h) => h.sessionId === sessionId)
      .map((h) => (h.input as { city: string }).city)
      .sort(),
  ).toEqual(["Paris", "Rome"]);
  const executions = await asKey().get(`/api/skills/executions?sessionId=${sessionId}`);
  expect(executions.body.total).toBe(2);
  expect(new Set(executions.body.data.map((e: { id: string }) => e.id))).toEqual(
    new Set(res.body.toolResults.map((r: { executionId: string }) => r.executionId)),
  );
  return res.body;
}

describe("round trip per format", () => {
  it("OpenAI Chat Completions", async () => {
    const injected = await injectFor("openai-chat", chatRequest());
    const tools = injected.request.tools as { function: { name: string; parameters: unknown } }[];
    expect(tools[0]!.function.name).toBe("Bash");
    expect(tools.find((x) => x.function.name === TOOL)!.function.parameters).toEqual({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
    const body = await intercept("openai-chat", chatResponse(TOOL), "s-chat", injected.injected);
    expect(body.passThrough).toEqual(["call_2"]);
    expect(body.messages).toEqual([
      {
        role: "tool",
        tool_call_id: "call_1",
        content: JSON.stringify({ city: "Paris", tempC: 18 }),
      },
      {
        role: "tool",
        tool_call_id: "call_3",
        content: JSON.stringify({ city: "Rome", tempC: 24 }),
      },
    ]);
    expect(body.response).toEqual(json(chatResponse(TOOL)));
  });

  it("OpenAI Responses", async () => {
    const injected = await injectFor("openai-responses", responsesRequest());
    expect((injected.request.tools as { name: string }[]).map((x) => x.name)).toContain(TOOL);
    const body = await intercept(
      "openai-responses",
      responsesResponse(TOOL),
      "s-resp",
      injected.injected,
    );
    expect(body.passThrough).toEqual(["call_2"]);
    expect(
      body.messages.map((m: { type: string; call_id: string }) => [m.type, m.call_id]),
    ).toEqual([
      ["function_call_output", "call_1"],
      ["function_call_output", "call_3"],
    ]);
    expect(body.response.output.map((i: { type: string }) => i.type)).toEqual([
      "reasoning",
      "function_call",
      "function_call_output",
      "function_call",
      "function_call",
      "function_call_output",
    ]);
  });

  it("Anthropic Messages", async () => {
    const injected = await injectFor("anthropic", anthropicRequest());
    const tool = (injected.request.tools as { name: string; input_schema: unknown }[]).find(
      (x) => x.name === TOOL,
    );
    expect(tool!.input_schema).toMatchObject({ type: "object", required: ["city"] });
    const body = await intercept("anthropic", anthropicResponse(TOOL), "s-anth", injected.injected);
    expect(body.passThrough).toEqual(["toolu_2"]);
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0].role).toBe("user");
    expect(
      body.messages[0].content.map((b: { type: string; tool_use_id: string }) => [
        b.type,
        b.tool_use_id,
      ]),
    ).toEqual([
      ["tool_result", "toolu_1"],
      ["tool_result", "toolu_3"],
    ]);
    expect(body.response).toEqual(json(anthropicResponse(TOOL)));
  });

  it("Gemini", async () => {
    const injected = await injectFor("gemini", geminiRequest());
    const decls = (
      injected.request.config as {
        tools: { functionDeclarations: { name: string; parametersJsonSchema?: unknown }[] }[];
      }
    ).tools[0]!.functionDeclarations;
    expect(decls.find((d) => d.name === TOOL)!.parametersJsonSchema).toEqual({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
    const body = await intercept(
      "gemini",
      { candidates: geminiCandidates(TOOL, true) },
      "s-gem",
      injected.injected,
    );
    expect(body.passThrough).toEqual(["g2"]);
    expect(body.messages).toEqual([
      {
        role: "user",
        parts: [
          {
            functionResponse: {
              name: TOOL,
              id: "g1",
              response: { output: { city: "Paris", tempC: 18 } },
            },
          },
          {
            functionResponse: {
              name: TOOL,
              id: "g3",
              response: { output: { city: "Rome", tempC: 24 } },
            },
          },
        ],
      },
    ]);
    expect(body.response.candidates[0].content.parts[0].thoughtSignature).toBe("c2lnLTE=");
  });
});
