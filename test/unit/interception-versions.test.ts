/**
 * A call naming a registered skill at a version or constraint that does not resolve for the
 * caller gets a "Version not found" tool error (with the name and the versions it could use) and
 * nothing runs; a tool that only looks like a versioned name of a skill the caller cannot see
 * stays the client's.
 */
import { describe, expect, it } from "vitest";
import { getFormatAdapter } from "../../workers/src/formats/index.js";
import type { JsonObject, WireFormat } from "../../workers/src/formats/types.js";
import { parseToolName } from "../../workers/src/skills/injection/tool-names.js";
import { interceptToolCalls } from "../../workers/src/skills/interception/interception.js";
import { fakeExecutor, skill, snapshot } from "./injection-fixtures.js";
import { json } from "./providers-fixtures.js";

const v100 = skill({ name: "lookupWeather", version: "1.0.0" });
const v120 = skill({ name: "lookupWeather", version: "1.2.0" });
const ownV150 = skill({ name: "lookupWeather", version: "1.5.0", apiKeyId: "key-a" });
const theirs = skill({ name: "private", version: "1.0.0", apiKeyId: "key-b" });
const webSearch = skill({ name: "web_search", sourceProvider: "builtin" });
const registry = () => snapshot([v100, v120, ownV150, theirs, webSearch]);

const notFound = (ref: string, versions: string) =>
  `Version not found: ${ref}. Available versions of ${ref.split("@")[0]}: ${versions}`;

/** A Chat response calling each of `names` once with `{ city }`, ids call_0.. */
const chatCalling = (...names: string[]): JsonObject => ({
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: null,
        tool_calls: names.map((n, i) => ({
          id: `call_${i}`,
          type: "function",
          function: { name: n, arguments: '{"city":"Paris"}' },
        })),
      },
    },
  ],
});

describe("parseToolName reads constraints", () => {
  it.each([
    ["lookupWeather@^3.0.0", "^3.0.0"],
    ["lookupWeather@>=1.1.0", ">=1.1.0"],
    ["lookupWeather@~1.2.0", "~1.2.0"],
    ["lookupWeather@latest", "latest"],
  ])("%s", (name, constraint) => {
    expect(parseToolName(name)).toEqual({ kind: "constraint", name: "lookupWeather", constraint });
  });
  it("an @ followed by something that is not a version stays a bare name", () => {
    expect(parseToolName("mail@example")).toEqual({ kind: "bare", name: "mail@example" });
  });
});

describe("a version that does not exist", () => {
  it("name@3.0.0, name_v3_0_0 and name@^3.0.0 get a tool error; nothing runs; the rest is unchanged", async () => {
    const fake = fakeExecutor();
    const r = await interceptToolCalls({
      format: "openai-chat",
      apiKeyId: null,
      response: chatCalling(
        "lookupWeather@3.0.0",
        "lookupWeather_v3_0_0",
        "lookupWeather@^3.0.0",
        "Bash",
      ),
      snapshot: registry(),
      executor: fake.executor,
    });
    expect(fake.calls).toEqual([]);
    expect(r.passThrough).toEqual(["call_3"]);
    const global = "1.2.0, 1.0.0";
    expect(r.toolResults).toEqual([
      {
        callId: "call_0",
        toolName: "lookupWeather@3.0.0",
        skill: "lookupWeather@3.0.0",
        status: "error",
        error: notFound("lookupWeather@3.0.0", global),
        executionId: null,
      },
      {
        callId: "call_1",
        toolName: "lookupWeather_v3_0_0",
        skill: "lookupWeather@3.0.0",
        status: "error",
        error: notFound("lookupWeather@3.0.0", global),
        executionId: null,
      },
      {
        callId: "call_2",
        toolName: "lookupWeather@^3.0.0",
        skill: "lookupWeather@^3.0.0",
        status: "error",
        error: notFound("lookupWeather@^3.0.0", global),
        executionId: null,
      },
    ]);
    expect(r.messages).toHaveLength(3);
  });
  it("lists the caller's own versions too, and a constraint that matches one runs it", async () => {
    const fake = fakeExecutor();
    const r = await interceptToolCalls({
      format: "openai-chat",
      apiKeyId: "key-a",
      response: chatCalling("lookupWeather@2.0.0", "lookupWeather@^1.0.0", "lookupWeather@~1.2.0"),
      snapshot: registry(),
      executor: fake.executor,
    });
    expect(r.toolResults.map((t) => [t.skill, t.status, t.error])).toEqual([
      ["lookupWeather@2.0.0", "error", notFound("lookupWeather@2.0.0", "1.5.0, 1.2.0, 1.0.0")],
      ["lookupWeather@1.5.0", "success", undefined],
      ["lookupWeather@1.2.0", "success", undefined],
    ]);
    expect(fake.calls.map((c) => c.skill)).toEqual(["lookupWeather@1.5.0", "lookupWeather@1.2.0"]);
  });
  it("client tools that only look versioned stay the client's", async () => {
    const fmt = skill({ name: "fmt_v1_0_0", version: "2.0.0" });
    const fmtBase = skill({ name: "fmt", version: "1.1.0" });
    const fake = fakeExecutor();
    const r = await interceptToolCalls({
      format: "openai-chat",
      apiKeyId: "key-a",
      // foo is not a skill; private belongs to another key; fmt_v1_0_0 is itself a skill name.
      response: chatCalling("foo_v3_0_0", "foo@3.0.0", "private_v3_0_0", "fmt_v1_0_0"),
      snapshot: snapshot([v100, theirs, fmt, fmtBase]),
      executor: fake.executor,
    });
    expect(r.passThrough).toEqual(["call_0", "call_1", "call_2", "call_3"]);
    expect(r.toolResults).toEqual([]);
  });
  it("with custom skill execution off, only builtins get the error", async () => {
    const fake = fakeExecutor();
    const r = await interceptToolCalls({
      format: "openai-chat",
      apiKeyId: null,
      response: chatCalling("web_search@2.0.0", "lookupWeather@3.0.0"),
      snapshot: registry(),
      customSkillExecutionEnabled: false,
      executor: fake.executor,
    });
    expect(r.toolResults.map((t) => [t.callId, t.error])).toEqual([
      ["call_0", notFound("web_search@2.0.0", "1.0.0")],
    ]);
    expect(r.passThrough).toEqual(["call_1"]);
  });
});

describe("in every format: the error reaches the model as a failed tool result", () => {
  const cases: [WireFormat, JsonObject, (messages: object[]) => unknown][] = [
    [
      "openai-chat",
      chatCalling("lookupWeather_v3_0_0"),
      (m) => JSON.parse((m[0] as { content: string }).content),
    ],
    [
      "openai-responses",
      {
        output: [
          { type: "function_call", call_id: "c", name: "lookupWeather_v3_0_0", arguments: "{}" },
        ],
      },
      (m) => JSON.parse((m[0] as { output: string }).output),
    ],
    [
      "anthropic",
      { content: [{ type: "tool_use", id: "t", name: "lookupWeather_v3_0_0", input: {} }] },
      (m) => {
        const block = (m[0] as { content: { is_error?: boolean; content: string }[] }).content[0]!;
        expect(block.is_error).toBe(true);
        return JSON.parse(block.content);
      },
    ],
    [
      "gemini",
      {
        candidates: [{ content: { parts: [{ functionCall: { name: "lookupWeather_v3_0_0" } }] } }],
      },
      (m) =>
        (m[0] as { parts: { functionResponse: { response: unknown } }[] }).parts[0]!
          .functionResponse.response,
    ],
  ];
  it.each(cases)("%s", async (format, response, read) => {
    const fake = fakeExecutor();
    const r = await interceptToolCalls({
      format,
      apiKeyId: null,
      response: json(response),
      snapshot: registry(),
      executor: fake.executor,
    });
    expect(fake.calls).toEqual([]);
    expect(r.passThrough).toEqual([]);
    expect(read(r.messages)).toMatchObject({
      status: "error",
      error: notFound("lookupWeather@3.0.0", "1.2.0, 1.0.0"),
    });
    expect(getFormatAdapter(format).extractCalls(r.response)).toHaveLength(1);
  });
});
