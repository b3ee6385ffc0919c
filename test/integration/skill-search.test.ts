/**
 * `skill_search` through the real HTTP doors (docs/scoring.md#skill-search): inject offers it in
 * every wire format, intercept answers it server-side in the format's own follow-up shape, the
 * session's next inject offers what it found, MCP lists and answers it (official SDK client), a
 * key never finds a skill it may not use, and the setting switches it.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FoundSkillsStore } from "../../workers/src/services/found-skills.js";
import { type SearchedSkillCalled, ToolsService } from "../../workers/src/services/tools.js";
import { policyFloorsFor } from "../../workers/src/skills/interception/policy-floor.js";
import {
  NO_LEARNING_STORE,
  SelectionLearning,
} from "../../workers/src/skills/learning/learning.js";
import { SelectionStats } from "../../workers/src/skills/learning/selection-stats.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { callTool, connectMcp, listAllTools } from "../support/mcp.js";

type Format = "openai-chat" | "openai-responses" | "anthropic" | "gemini";
const FORMATS: Format[] = ["openai-chat", "openai-responses", "anthropic", "gemini"];
const QUESTION = "I want to send back the blender I bought last week";
const TARGET = "orderReturn_v1_0_0";

function requestOf(format: Format, text: string): Record<string, unknown> {
  if (format === "openai-chat") return { model: "m", messages: [{ role: "user", content: text }] };
  if (format === "openai-responses") return { model: "m", input: text };
  if (format === "anthropic") {
    return { model: "m", max_tokens: 64, messages: [{ role: "user", content: text }] };
  }
  return { contents: [{ role: "user", parts: [{ text }] }] };
}

/** Tool names a request declares, read from the format's own shape. */
function toolNames(format: Format, request: Record<string, unknown>): string[] {
  const tools = (request.tools ?? []) as Record<string, any>[];
  if (format === "openai-chat") return tools.map((t) => t.function.name);
  if (format === "gemini")
    return tools.flatMap((t) => (t.functionDeclarations ?? []).map((d: any) => d.name));
  return tools.map((t) => t.name);
}

/** A model response of `format` calling `name` with `args` (call id `call_s1` / `toolu_s1`). */
function responseCalling(format: Format, name: string, args: object): Record<string, unknown> {
  if (format === "openai-chat") {
    return {
      id: "chatcmpl-s1",
      object: "chat.completion",
      created: 1,
      model: "m",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "call_s1",
                type: "function",
                function: { name, arguments: JSON.stringify(args) },
              },
            ],
          },
        },
      ],
    };
  }
  if (format === "openai-responses") {
    return {
      id: "resp_s1",
      object: "response",
      output: [
        {
          type: "function_call",
          id: "fc_s1",
          call_id: "call_s1",
          name,
          arguments: JSON.stringify(args),
        },
      ],
    };
  }
  if (format === "anthropic") {
    return {
      id: "msg_s1",
      type: "message",
      role: "assistant",
      model: "m",
      content: [{ type: "tool_use", id: "toolu_s1", name, input: args }],
      stop_reason: "tool_use",
    };
  }
  return {
    candidates: [{ content: { role: "model", parts: [{ functionCall: { name, args } }] } }],
  };
}

/** The skill_search output carried by a follow-up item, read from the format's own shape. */
function searchOutputOf(format: Format, messages: any[]): any {
  expect(messages).toHaveLength(1);
  const m = messages[0];
  if (format === "openai-chat") {
    expect(m).toMatchObject({ role: "tool", tool_call_id: "call_s1" });
    return JSON.parse(m.content);
  }
  if (format === "openai-responses") {
    expect(m).toMatchObject({ type: "function_call_output", call_id: "call_s1" });
    return JSON.parse(m.output);
  }
  if (format === "anthropic") {
    expect(m.role).toBe("user");
    expect(m.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_s1" });
    expect(m.content[0].is_error).not.toBe(true);
    return JSON.parse(m.content[0].content);
  }
  expect(m.role).toBe("user");
  expect(m.parts[0].functionResponse.name).toBe("skill_search");
  return m.parts[0].functionResponse.response.output;
}

let t: TestApp;
let keyA: { key: string; id: string };
let keyB: { key: string; id: string };
const returns: unknown[] = [];

async function install(body: Record<string, unknown>) {
  const res = await t.api.post("/api/skills/install", { version: "1.0.0", mode: "auto", ...body });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  // Learning off: a found skill called in one test must not be offered directly in another
  // (learning from traffic has its own tests, selection-learning.test.ts).
  t = await startTestApp({ env: { SELECTION_LEARNING: "false" } });
  t.services.executor.registerHandler("return-handler", async (input) => {
    returns.push(input);
    return { accepted: true, order: (input as { orderId: string }).orderId };
  });
  keyA = await t.api.createKey("search-A");
  keyB = await t.api.createKey("search-B");
  await install({
    name: "orderReturn",
    description: "Start a return or refund of an order",
    schema: { input: { orderId: { type: "string", required: true } } },
    handlerCode: "return-handler",
    apiKeyId: keyA.id,
  });
  for (const [name, description] of [
    ["weatherNow", "Current weather for a city"],
    ["stockQuote", "Latest stock price of a ticker"],
    ["translateText", "Translate text between languages"],
    ["calendarEvent", "Create a calendar event"],
    ["flightStatus", "Status of a flight by number"],
    ["currencyRate", "Exchange rate between two currencies"],
  ] as const) {
    await install({ name, description, handlerCode: "echo-handler", apiKeyId: keyA.id });
  }
  await install({
    name: "purgeOrders",
    description: "Delete every order and its return records",
    handlerCode: "echo-handler",
    policy: "manual",
    apiKeyId: keyA.id,
  });
  await install({
    name: "payrollRun",
    description: "Run the payroll of employees",
    handlerCode: "echo-handler",
    apiKeyId: keyB.id,
  });
});
afterAll(() => t.close());

const asA = () => t.api.as(keyA.key);

async function inject(format: Format, text: string, sessionId?: string, key = keyA) {
  const res = await t.api.as(key.key).post("/api/skills/inject", {
    format,
    request: requestOf(format, text),
    ...(sessionId ? { sessionId } : {}),
  });
  expect(res.status).toBe(200);
  return res.body as { request: Record<string, unknown>; injected: { toolName: string }[] };
}

async function interceptSearch(format: Format, query: string, sessionId: string, key = keyA) {
  const res = await t.api.as(key.key).post("/api/skills/intercept", {
    format,
    response: responseCalling(format, "skill_search", { query }),
    sessionId,
  });
  expect(res.status).toBe(200);
  return res.body;
}

describe("skill_search at inject and intercept", () => {
  it.each(FORMATS)(
    "%s: inject offers skill_search beside the AUTO picks of a session",
    async (format) => {
      const body = await inject(format, QUESTION, `offer-${format}`);
      const names = toolNames(format, body.request);
      expect(names).toContain("skill_search");
      expect(names).not.toContain(TARGET);
      expect(body.injected).toContainEqual({
        name: "skill_search",
        version: "1.0.0",
        toolName: "skill_search",
        mode: "on",
        score: null,
        ranker: null,
      });
      const tools = body.request.tools as any[];
      if (format === "anthropic") {
        const spec = tools.find((x) => x.name === "skill_search");
        expect(spec.input_schema.required).toEqual(["query"]);
      }
    },
  );

  it.each(FORMATS)(
    "%s: intercept answers skill_search itself, and the session's next inject offers the found skill",
    async (format) => {
      const session = `found-${format}`;
      const result = await interceptSearch(format, "return an order", session);
      expect(result.passThrough).toEqual([]);
      expect(result.toolResults).toHaveLength(1);
      expect(result.toolResults[0]).toMatchObject({
        toolName: "skill_search",
        skill: "skill_search@1.0.0",
        status: "success",
        executionId: null,
      });
      const output = searchOutputOf(format, result.messages);
      expect(output.skills[0]).toMatchObject({
        name: "orderReturn",
        version: "1.0.0",
        toolName: TARGET,
        description: "Start a return or refund of an order",
      });
      expect(output.skills[0].parameters.properties.orderId.type).toBe("string");

      const next = await inject(format, QUESTION, session);
      expect(toolNames(format, next.request)).toContain(TARGET);
      // Another session, and another key with the same session id, are not offered it.
      const other = await inject(format, QUESTION, `${session}-other`);
      expect(toolNames(format, other.request)).not.toContain(TARGET);
      const otherKey = await inject(format, QUESTION, session, keyB);
      expect(toolNames(format, otherKey.request)).not.toContain(TARGET);
    },
  );

  it("the found skill, once offered, runs through interception like any skill", async () => {
    const search = await interceptSearch("anthropic", "refund order", "run-found");
    expect(searchOutputOf("anthropic", search.messages).skills[0].toolName).toBe(TARGET);
    const offered = await inject("anthropic", QUESTION, "run-found");
    expect(toolNames("anthropic", offered.request)).toContain(TARGET);
    const res = await asA().post("/api/skills/intercept", {
      format: "anthropic",
      response: responseCalling("anthropic", TARGET, { orderId: "A-17" }),
      sessionId: "run-found",
    });
    expect(res.status).toBe(200);
    expect(res.body.toolResults[0]).toMatchObject({
      skill: "orderReturn@1.0.0",
      status: "success",
    });
    expect(res.body.toolResults[0].output).toEqual({ accepted: true, order: "A-17" });
  });

  it("a key never finds another key's skill nor a manual one", async () => {
    const a = searchOutputOf(
      "openai-chat",
      (await interceptSearch("openai-chat", "payroll employees", "vis-a")).messages,
    );
    expect(a.skills.map((s: { name: string }) => s.name)).not.toContain("payrollRun");
    const b = searchOutputOf(
      "openai-chat",
      (await interceptSearch("openai-chat", "payroll employees", "vis-b", keyB)).messages,
    );
    expect(b.skills.map((s: { name: string }) => s.name)).toContain("payrollRun");
    const purge = searchOutputOf(
      "openai-chat",
      (await interceptSearch("openai-chat", "delete orders records", "vis-m")).messages,
    );
    expect(purge.skills.map((s: { name: string }) => s.name)).not.toContain("purgeOrders");
    // The next inject of key A's session does not offer key B's skill either.
    const next = await inject("openai-chat", "payroll", "vis-a");
    expect(toolNames("openai-chat", next.request)).not.toContain("payrollRun_v1_0_0");
  });

  it("leaves out the tools the request was already offered (`injected`)", async () => {
    const res = await asA().post("/api/skills/intercept", {
      format: "openai-chat",
      response: responseCalling("openai-chat", "skill_search", { query: "return an order" }),
      sessionId: "offered",
      injected: ["skill_search", TARGET],
    });
    expect(res.status).toBe(200);
    const output = searchOutputOf("openai-chat", res.body.messages);
    expect(output.skills.map((s: { toolName: string }) => s.toolName)).not.toContain(TARGET);
    const without = await interceptSearch("openai-chat", "return an order", "offered-2");
    const found = searchOutputOf("openai-chat", without.messages);
    expect(found.skills.map((s: { toolName: string }) => s.toolName)).toContain(TARGET);
  });

  it("bad arguments get an error result, nothing is remembered", async () => {
    const res = await asA().post("/api/skills/intercept", {
      format: "openai-chat",
      response: responseCalling("openai-chat", "skill_search", { query: "return", limit: 500 }),
      sessionId: "bad-args",
    });
    expect(res.status).toBe(200);
    expect(res.body.toolResults[0]).toMatchObject({ status: "error" });
    expect(res.body.toolResults[0].error).toMatch(/limit must be an integer from 1 to 10/);
    const next = await inject("openai-chat", QUESTION, "bad-args");
    expect(toolNames("openai-chat", next.request)).not.toContain(TARGET);
  });

  it("a client tool named skill_search stays the client's; listed in injected it is Skillgate's", async () => {
    const request = {
      ...requestOf("anthropic", QUESTION),
      tools: [{ name: "skill_search", description: "mine", input_schema: { type: "object" } }],
    };
    const res = await asA().post("/api/skills/inject", {
      format: "anthropic",
      request,
      sessionId: "own",
    });
    expect(res.status).toBe(200);
    const names = toolNames("anthropic", res.body.request);
    expect(names.filter((n) => n === "skill_search")).toHaveLength(1);
    const passed = await asA().post("/api/skills/intercept", {
      format: "anthropic",
      response: responseCalling("anthropic", "skill_search", { query: "x" }),
      sessionId: "own",
      injected: res.body.injected.map((i: { toolName: string }) => i.toolName),
    });
    expect(passed.body.passThrough).toEqual(["toolu_s1"]);
    // Listed in `injected`, the same call is Skillgate's.
    const owned = await asA().post("/api/skills/intercept", {
      format: "anthropic",
      response: responseCalling("anthropic", "skill_search", { query: "refund" }),
      sessionId: "own",
      injected: ["skill_search"],
    });
    expect(owned.body.passThrough).toEqual([]);
    expect(owned.body.toolResults[0]).toMatchObject({
      skill: "skill_search@1.0.0",
      status: "success",
    });
  });

  it("a search found and then called is reported once to the learning hook", async () => {
    const signals: SearchedSkillCalled[] = [];
    const tools = new ToolsService({
      registry: t.services.registry,
      settings: t.services.settings,
      executor: t.services.executor,
      unavailableBuiltins: [],
      builtinAliases: new Map(),
      policyFloors: policyFloorsFor(false),
      foundSkills: new FoundSkillsStore(t.deps.cache),
      onSearchedSkillCalled: (s) => signals.push(s),
      learning: new SelectionLearning({
        store: NO_LEARNING_STORE,
        cache: t.deps.cache,
        params: { halfLifeMs: 30 * 86_400_000, maxFeaturesPerSkill: 256 },
        enabled: false,
        shareGlobal: false,
        clock: Date.now,
      }),
      stats: new SelectionStats(),
    });
    const ctx = { apiKeyId: keyA.id, sessionId: "learn" };
    const found = await tools.skillSearch.search({ query: "returning orders" }, ctx);
    expect(found.status).toBe("success");
    await tools.intercept(
      {
        format: "anthropic",
        response: responseCalling("anthropic", TARGET, { orderId: "L-1" }),
        sessionId: "learn",
      },
      keyA.id,
    );
    expect(signals).toHaveLength(1);
    expect(signals[0]!.skill.name).toBe("orderReturn");
    expect(signals[0]!.terms).toEqual(expect.arrayContaining(["return", "order"]));
    expect(signals[0]!.terms).not.toContain("returning orders");
  });
});

describe("skill_search over MCP", () => {
  it("is listed, answers with tools of the list, and the found tool runs", async () => {
    const client = await connectMcp(t.url, keyA.key);
    try {
      const listed = (await listAllTools(client)).map((x) => x.name);
      expect(listed).toContain("skill_search");
      expect(listed).toContain(TARGET);
      const res = await callTool(client, "skill_search", { query: "return my order", limit: 2 });
      expect(res.isError).not.toBe(true);
      const skills = res.structuredContent.output.skills as { toolName: string }[];
      expect(skills.length).toBeLessThanOrEqual(2);
      expect(skills[0]!.toolName).toBe(TARGET);
      expect(listed).toContain(skills[0]!.toolName);
      const ran = await callTool(client, skills[0]!.toolName, { orderId: "M-5" });
      expect(ran.structuredContent).toMatchObject({ status: "success", output: { order: "M-5" } });
      const none = await callTool(client, "skill_search", { query: "payroll employees" });
      expect(
        none.structuredContent.output.skills.map((s: { name: string }) => s.name),
      ).not.toContain("payrollRun");
    } finally {
      await client.close();
    }
  });
});

describe("the SKILLS_SEARCH_TOOL setting", () => {
  it("on offers it without a sessionId; off never offers it and lets a call pass through", async () => {
    const onApp = await startTestApp({ env: { SKILLS_SEARCH_TOOL: "on" } });
    try {
      const key = await onApp.api.createKey("on");
      const inj = await onApp.api.as(key.key).post("/api/skills/inject", {
        format: "gemini",
        request: requestOf("gemini", QUESTION),
      });
      expect(toolNames("gemini", inj.body.request)).toContain("skill_search");
    } finally {
      await onApp.close();
    }
    const app = await startTestApp({ env: { SKILLS_SEARCH_TOOL: "off" } });
    try {
      const key = await app.api.createKey("off");
      for (let i = 0; i < 7; i++) {
        const res = await app.api.post("/api/skills/install", {
          name: `tool${i}`,
          version: "1.0.0",
          description: `Tool number ${i}`,
          handlerCode: "echo-handler",
          apiKeyId: key.id,
        });
        expect(res.status).toBe(201);
      }
      const inj = await app.api.as(key.key).post("/api/skills/inject", {
        format: "openai-chat",
        request: requestOf("openai-chat", QUESTION),
        sessionId: "s",
      });
      expect(toolNames("openai-chat", inj.body.request)).not.toContain("skill_search");
      const res = await app.api.as(key.key).post("/api/skills/intercept", {
        format: "openai-chat",
        response: responseCalling("openai-chat", "skill_search", { query: "tool" }),
        sessionId: "s",
      });
      expect(res.body.passThrough).toEqual(["call_s1"]);
      const client = await connectMcp(app.url, key.key);
      try {
        expect((await listAllTools(client)).map((x) => x.name)).not.toContain("skill_search");
      } finally {
        await client.close();
      }
    } finally {
      await app.close();
    }
  });
});
