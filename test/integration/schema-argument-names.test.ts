/**
 * Property names a provider refuses, end to end over the real HTTP surface (docs/schema-adaptation.md,
 * "Property names"): a skill installed through REST with `page[size]` and `first name` is injected
 * with provider-safe keys; a tool call written with those keys reaches the handler (`echo-handler`,
 * which returns its input) with the skill's own names, and the execution row stores them too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import {
  ANTHROPIC_KEY,
  anthropicViolations,
  geminiViolations,
  openaiViolations,
} from "../unit/schema-subsets.js";

type Obj = Record<string, any>;

let t: TestApp;
let keyA: { key: string; id: string };
const TOOL = "searchPeople_v1_0_0";
const ORIGINAL = { "page[size]": 25, "first name": "Ann", filter: { "last name": "Lee" } };

beforeAll(async () => {
  t = await startTestApp();
  keyA = await t.api.createKey("names");
  const res = await t.api.post("/api/skills/install", {
    name: "searchPeople",
    version: "1.0.0",
    description: "Search people by name",
    schema: {
      input: {
        type: "object",
        properties: {
          "page[size]": { type: "integer", minimum: 1 },
          "first name": { type: "string" },
          filter: { type: "object", properties: { "last name": { type: "string" } } },
        },
        required: ["first name"],
        additionalProperties: false,
      },
    },
    handlerCode: "echo-handler",
    apiKeyId: keyA.id,
  });
  expect(res.status).toBe(201);
});
afterAll(() => t.close());

const asKey = () => t.api.as(keyA.key);

async function inject(format: string, request: object): Promise<Obj> {
  const res = await asKey().post("/api/skills/inject", { format, request });
  expect(res.status).toBe(200);
  expect(res.body.injected.map((i: { toolName: string }) => i.toolName)).toContain(TOOL);
  return res.body.request;
}

async function intercept(format: string, response: object): Promise<Obj> {
  const res = await asKey().post("/api/skills/intercept", {
    format,
    response,
    sessionId: `names-${format}`,
    injected: [TOOL],
  });
  expect(res.status).toBe(200);
  return res.body;
}

/** The call arguments with emitted names, read from the injected schema (so nothing is assumed). */
function emittedArgs(schema: Obj): Obj {
  const top = Object.keys(schema.properties);
  const page = top.find((k) => k.startsWith("page"))!;
  const first = top.find((k) => k.startsWith("first"))!;
  const last = Object.keys(schema.properties.filter.properties)[0]!;
  return { [page]: 25, [first]: "Ann", filter: { [last]: "Lee" } };
}

async function expectOriginalNames(body: Obj): Promise<void> {
  expect(body.toolResults).toHaveLength(1);
  const [result] = body.toolResults;
  expect(result.status).toBe("success");
  expect(result.output).toEqual(ORIGINAL);
  const exec = await asKey().get(`/api/skills/executions/${result.executionId}`);
  expect(exec.status).toBe(200);
  expect(exec.body.execution.input).toEqual(ORIGINAL);
}

describe("property names a provider refuses", () => {
  it("Anthropic: safe keys injected, the handler gets the original names", async () => {
    const request = await inject("anthropic", {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      messages: [{ role: "user", content: "Find Ann Lee, 25 per page" }],
    });
    const tool = request.tools.find((x: { name: string }) => x.name === TOOL);
    const schema = tool.input_schema;
    expect(anthropicViolations(schema)).toEqual([]);
    for (const k of Object.keys(schema.properties)) expect(k).toMatch(ANTHROPIC_KEY);
    expect(Object.keys(schema.properties)).toEqual(["page_size", "first_name", "filter"]);
    expect(schema.required).toEqual(["first_name"]);
    expect(JSON.stringify(schema)).not.toMatch(/page\[size\]|first name|last name/);

    const body = await intercept("anthropic", {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "tool_use", id: "toolu_1", name: TOOL, input: emittedArgs(schema) }],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 10 },
    });
    await expectOriginalNames(body);
    expect(body.messages[0].content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_1",
    });
    expect(body.messages[0].content[0].is_error).toBeUndefined();
  });

  it("Anthropic: a call missing a required argument is refused by the skill's own schema", async () => {
    const body = await intercept("anthropic", {
      id: "msg_2",
      type: "message",
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_2", name: TOOL, input: { page_size: 5 } }],
    });
    expect(body.toolResults[0].status).toBe("error");
    expect(body.toolResults[0].error).toContain("first name");
    expect(body.toolResults[0].executionId).toBeNull();
  });

  it("OpenAI Chat, OpenAI Responses and Gemini: the same names, restored the same way", async () => {
    const chat = await inject("openai-chat", {
      model: "gpt-4.1",
      messages: [{ role: "user", content: "Find Ann Lee" }],
    });
    const chatSchema = chat.tools.find((x: Obj) => x.function.name === TOOL).function.parameters;
    expect(openaiViolations(chatSchema)).toEqual([]);
    await expectOriginalNames(
      await intercept("openai-chat", {
        id: "chatcmpl-1",
        object: "chat.completion",
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: "call_1",
                  type: "function",
                  function: { name: TOOL, arguments: JSON.stringify(emittedArgs(chatSchema)) },
                },
              ],
            },
          },
        ],
      }),
    );

    const responses = await inject("openai-responses", { model: "gpt-4.1", input: "Find Ann Lee" });
    const respSchema = responses.tools.find((x: Obj) => x.name === TOOL).parameters;
    expect(openaiViolations(respSchema)).toEqual([]);
    await expectOriginalNames(
      await intercept("openai-responses", {
        id: "resp_1",
        object: "response",
        output: [
          {
            type: "function_call",
            id: "fc_1",
            call_id: "call_r1",
            name: TOOL,
            arguments: JSON.stringify(emittedArgs(respSchema)),
            status: "completed",
          },
        ],
      }),
    );

    const gem = await inject("gemini", {
      contents: [{ role: "user", parts: [{ text: "Find Ann Lee" }] }],
    });
    const decl = gem.tools[0].functionDeclarations.find((d: Obj) => d.name === TOOL);
    expect(geminiViolations(decl.parametersJsonSchema)).toEqual([]);
    await expectOriginalNames(
      await intercept("gemini", {
        candidates: [
          {
            index: 0,
            content: {
              role: "model",
              parts: [
                {
                  functionCall: {
                    id: "g1",
                    name: TOOL,
                    args: emittedArgs(decl.parametersJsonSchema),
                  },
                },
              ],
            },
          },
        ],
      }),
    );
    // One rule for every format: the emitted keys are identical.
    expect(Object.keys(chatSchema.properties)).toEqual(Object.keys(respSchema.properties));
    expect(Object.keys(chatSchema.properties)).toEqual(
      Object.keys(decl.parametersJsonSchema.properties),
    );
  });
});
