import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../workers/src/errors.js";
import { emittedToolName } from "../../workers/src/skills/injection/tool-names.js";
import {
  interceptToolCalls,
  MANUAL_POLICY_ERROR,
} from "../../workers/src/skills/interception/interception.js";
import { execution, fakeExecutor, skill, snapshot } from "./injection-fixtures.js";
import { anthropicResponse, chatResponse, json } from "./providers-fixtures.js";

const weather = skill({ name: "lookupWeather", version: "1.0.0" });
const weather2 = skill({ name: "lookupWeather", version: "2.0.0" });
const webSearch = skill({ name: "web_search", sourceProvider: "builtin", mode: "auto" });
const aliases = new Map([["omniroute_web_search", "web_search"]]);

describe("native client tools pass through", () => {
  it("runs only the owned calls, concurrently; Bash is passed through untouched", async () => {
    const fake = fakeExecutor();
    const response = json(anthropicResponse("lookupWeather_v1_0_0"));
    const before = JSON.stringify(response);
    const r = await interceptToolCalls({
      format: "anthropic",
      response,
      snapshot: snapshot([weather, webSearch]),
      apiKeyId: "key-a",
      sessionId: "sess-1",
      executor: fake.executor,
    });
    expect(fake.calls.map((c) => [c.skill, c.input, c.ctx])).toEqual([
      ["lookupWeather@1.0.0", { city: "Paris" }, { apiKeyId: "key-a", sessionId: "sess-1" }],
      ["lookupWeather@1.0.0", { city: "Rome" }, { apiKeyId: "key-a", sessionId: "sess-1" }],
    ]);
    expect(fake.maxInFlight()).toBe(2);
    expect(r.passThrough).toEqual(["toolu_2"]);
    expect(r.toolResults.map((t) => [t.callId, t.toolName, t.skill, t.status])).toEqual([
      ["toolu_1", "lookupWeather_v1_0_0", "lookupWeather@1.0.0", "success"],
      ["toolu_3", "lookupWeather_v1_0_0", "lookupWeather@1.0.0", "success"],
    ]);
    expect(r.toolResults[0]!.executionId).toMatch(/^ex-/);
    expect(r.messages).toEqual([
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: JSON.stringify({ ran: "lookupWeather@1.0.0", input: { city: "Paris" } }),
          },
          {
            type: "tool_result",
            tool_use_id: "toolu_3",
            content: JSON.stringify({ ran: "lookupWeather@1.0.0", input: { city: "Rome" } }),
          },
        ],
      },
    ]);
    expect(JSON.stringify(r.response)).toBe(before);
  });
});

/** A Chat response calling each of `names` once, ids call_0.. */
const chatCalling = (...names: string[]) => {
  const res = json(chatResponse("x"));
  const choice = (res.choices as { message: { tool_calls: unknown[] } }[])[0]!;
  choice.message.tool_calls = names.map((n, i) => ({
    id: `call_${i}`,
    type: "function",
    function: { name: n, arguments: "{}" },
  }));
  return res;
};

describe("ownership rules", () => {
  const base = { format: "openai-chat" as const, apiKeyId: "key-a" };
  it("two versions side by side each run their own version", async () => {
    const fake = fakeExecutor();
    const r = await interceptToolCalls({
      ...base,
      response: chatCalling("lookupWeather_v2_0_0", "lookupWeather@1.0.0"),
      snapshot: snapshot([weather, weather2]),
      executor: fake.executor,
    });
    expect(r.toolResults.map((t) => t.skill)).toEqual([
      "lookupWeather@2.0.0",
      "lookupWeather@1.0.0",
    ]);
  });
  it("hash-form names of digit-leading and 64-character names resolve through the registry", async () => {
    const digit = skill({ name: "5h1w", version: "1.0.0" });
    const long = skill({ name: `L${"o".repeat(63)}`, version: "3.2.1" });
    const fake = fakeExecutor();
    const r = await interceptToolCalls({
      ...base,
      response: chatCalling(emittedToolName(digit), emittedToolName(long)),
      snapshot: snapshot([digit, long]),
      executor: fake.executor,
    });
    expect(r.toolResults.map((t) => t.skill)).toEqual(["5h1w@1.0.0", `L${"o".repeat(63)}@3.2.1`]);
    expect(r.passThrough).toEqual([]);
  });
  it("builtin aliases resolve first; builtin bare names are ours unless `injected` leaves them out", async () => {
    const fake = fakeExecutor();
    const snap = snapshot([webSearch]);
    const r = await interceptToolCalls({
      ...base,
      response: chatCalling("omniroute_web_search", "web_search"),
      snapshot: snap,
      builtinAliases: aliases,
      executor: fake.executor,
    });
    expect(r.toolResults.map((t) => [t.toolName, t.skill])).toEqual([
      ["omniroute_web_search", "web_search@1.0.0"],
      ["web_search", "web_search@1.0.0"],
    ]);
    const r2 = await interceptToolCalls({
      ...base,
      response: chatCalling("web_search"),
      snapshot: snap,
      injected: ["lookupWeather_v1_0_0"],
      executor: fake.executor,
    });
    expect(r2.passThrough).toEqual(["call_0"]);
  });
  it("a bare custom name is ours only when `injected` lists the skill", async () => {
    const fake = fakeExecutor();
    const snap = snapshot([weather, weather2]);
    const r = await interceptToolCalls({
      ...base,
      response: chatCalling("lookupWeather"),
      snapshot: snap,
      executor: fake.executor,
    });
    expect(r.passThrough).toEqual(["call_0"]);
    expect(fake.calls).toEqual([]);
    const r2 = await interceptToolCalls({
      ...base,
      response: chatCalling("lookupWeather"),
      snapshot: snap,
      injected: [{ name: "lookupWeather", version: "1.0.0", toolName: "lookupWeather_v1_0_0" }],
      executor: fake.executor,
    });
    expect(r2.toolResults.map((t) => t.skill)).toEqual(["lookupWeather@1.0.0"]);
  });
  it("another key's skill passes through; an unknown version of a visible skill does not", async () => {
    const theirs = skill({ name: "private", apiKeyId: "key-b" });
    const fake = fakeExecutor();
    const r = await interceptToolCalls({
      ...base,
      response: chatCalling("private_v1_0_0", "lookupWeather_v9_0_0"),
      snapshot: snapshot([theirs, weather]),
      executor: fake.executor,
    });
    expect(r.passThrough).toEqual(["call_0"]);
    expect(r.toolResults.map((t) => [t.callId, t.status, t.error])).toEqual([
      [
        "call_1",
        "error",
        "Version not found: lookupWeather@9.0.0. Available versions of lookupWeather: 1.0.0",
      ],
    ]);
    expect(fake.calls).toEqual([]);
  });
  it("customSkillExecutionEnabled: false intercepts builtins only", async () => {
    const fake = fakeExecutor();
    const r = await interceptToolCalls({
      ...base,
      response: chatCalling("lookupWeather_v1_0_0", "web_search"),
      snapshot: snapshot([weather, webSearch]),
      customSkillExecutionEnabled: false,
      executor: fake.executor,
    });
    expect(r.passThrough).toEqual(["call_0"]);
    expect(r.toolResults.map((t) => t.skill)).toEqual(["web_search@1.0.0"]);
  });
});

describe("tool kinds Skillgate never injects", () => {
  it("OpenAI custom tool calls are listed as passed through, even under a skill's name", async () => {
    const fake = fakeExecutor();
    const chat = chatCalling("lookupWeather_v1_0_0");
    const message = (chat.choices as { message: { tool_calls: unknown[] } }[])[0]!.message;
    message.tool_calls.push({
      id: "call_custom",
      type: "custom",
      custom: { name: "lookupWeather_v1_0_0", input: "raw text" },
    });
    const r = await interceptToolCalls({
      format: "openai-chat",
      apiKeyId: null,
      response: chat,
      snapshot: snapshot([weather]),
      executor: fake.executor,
    });
    expect(r.passThrough).toEqual(["call_custom"]);
    expect(r.toolResults.map((t) => t.callId)).toEqual(["call_0"]);
    const responses = {
      output: [
        {
          type: "custom_tool_call",
          id: "ctc_1",
          call_id: "call_c",
          name: "apply_patch",
          input: "*** patch",
        },
        {
          type: "function_call",
          id: "fc_1",
          call_id: "call_f",
          name: "lookupWeather_v1_0_0",
          arguments: "{}",
        },
      ],
    };
    const r2 = await interceptToolCalls({
      format: "openai-responses",
      apiKeyId: null,
      response: responses,
      snapshot: snapshot([weather]),
      executor: fake.executor,
    });
    expect(r2.passThrough).toEqual(["call_c"]);
    expect(r2.toolResults.map((t) => t.callId)).toEqual(["call_f"]);
  });
});

describe("policies and failures become tool results", () => {
  const base = { format: "openai-chat" as const, apiKeyId: "key-a" };
  it("manual: error result, nothing runs; hybrid: an execution awaiting approval", async () => {
    const manual = skill({ name: "execute_command", sourceProvider: "builtin", policy: "manual" });
    const hybrid = skill({ name: "eval_code", sourceProvider: "builtin", policy: "hybrid" });
    const fake = fakeExecutor();
    const r = await interceptToolCalls({
      ...base,
      response: chatCalling("execute_command", "eval_code"),
      snapshot: snapshot([manual, hybrid]),
      executor: fake.executor,
    });
    expect(r.toolResults[0]).toEqual({
      callId: "call_0",
      toolName: "execute_command",
      skill: "execute_command@1.0.0",
      status: "error",
      error: `Skill execute_command@1.0.0 ${MANUAL_POLICY_ERROR}`,
      executionId: null,
    });
    expect(r.toolResults[1]).toMatchObject({
      status: "pending_approval",
      skill: "eval_code@1.0.0",
      executionId: expect.stringMatching(/^ex-/),
    });
    expect(fake.calls.map((c) => [c.skill, c.approval])).toEqual([["eval_code@1.0.0", true]]);
    expect(JSON.parse((r.messages[1] as { content: string }).content).status).toBe(
      "pending_approval",
    );
  });
  it("mode off is never executed", async () => {
    const off = skill({ name: "lookupWeather", mode: "off" });
    const fake = fakeExecutor();
    const r = await interceptToolCalls({
      ...base,
      response: chatCalling("lookupWeather_v1_0_0"),
      snapshot: snapshot([off]),
      executor: fake.executor,
    });
    expect(r.toolResults[0]).toMatchObject({
      status: "error",
      error: "Skill lookupWeather@1.0.0 is disabled",
      executionId: null,
    });
    expect(fake.calls).toEqual([]);
  });
  it("invalid input, handler errors and timeouts", async () => {
    const fake = fakeExecutor(async (s, input) => {
      const city = (input as { city?: string }).city;
      if (city === "bad") throw new InvalidInputError("input.city must be a known city");
      if (city === "slow")
        return execution(s, {
          status: "timeout",
          errorMessage: "Skill execution timed out",
          output: { partial: true },
        });
      return execution(s, { status: "error", errorMessage: "upstream said no" });
    });
    const res = chatCalling(
      "lookupWeather_v1_0_0",
      "lookupWeather_v1_0_0",
      "lookupWeather_v1_0_0",
      "lookupWeather_v1_0_0",
    );
    const calls = (
      res.choices as { message: { tool_calls: { function: { arguments: string } }[] } }[]
    )[0]!.message.tool_calls;
    calls[0]!.function.arguments = '{"city":"bad"}';
    calls[1]!.function.arguments = '{"city":"slow"}';
    calls[2]!.function.arguments = '{"city":"x"}';
    calls[3]!.function.arguments = "{oops";
    const r = await interceptToolCalls({
      ...base,
      response: res,
      snapshot: snapshot([weather]),
      executor: fake.executor,
    });
    expect(r.toolResults.map((t) => [t.status, t.error, t.executionId === null])).toEqual([
      ["error", "input.city must be a known city", true],
      ["timeout", "Skill execution timed out", false],
      ["error", "upstream said no", false],
      ["error", "Tool call arguments are not valid JSON", true],
    ]);
    expect(r.toolResults[1]!.output).toEqual({ partial: true });
    expect(r.messages).toHaveLength(4);
  });
});

describe("maxOwnedCalls", () => {
  it("runs the first owned calls only; the later ones get a 'Not run' error and no execution", async () => {
    const fake = fakeExecutor();
    const name = emittedToolName(weather);
    const r = await interceptToolCalls({
      format: "openai-chat",
      response: chatCalling(name, "clientTool", name, name, name),
      snapshot: snapshot([weather]),
      apiKeyId: "key-a",
      executor: fake.executor,
      maxOwnedCalls: 2,
    });
    expect(fake.calls).toHaveLength(2);
    expect(r.passThrough).toEqual(["call_1"]);
    expect(r.toolResults.map((t) => [t.callId, t.status, t.executionId === null])).toEqual([
      ["call_0", "success", false],
      ["call_2", "success", false],
      ["call_3", "error", true],
      ["call_4", "error", true],
    ]);
    expect(r.toolResults[2]!.error).toMatch(/^Not run: at most 2 /);
  });
});
