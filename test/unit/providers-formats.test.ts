import { describe, expect, it } from "vitest";
import { anthropic } from "../../workers/src/formats/anthropic/index.js";
import { gemini } from "../../workers/src/formats/gemini/index.js";
import { getFormatAdapter, isWireFormat, WIRE_FORMATS } from "../../workers/src/formats/index.js";
import { openaiChat } from "../../workers/src/formats/openai-chat/index.js";
import { openaiResponses } from "../../workers/src/formats/openai-responses/index.js";
import type { CallOutcome, ExtractedCall, ToolSpec } from "../../workers/src/formats/types.js";
import {
  anthropicRequest,
  anthropicResponse,
  chatRequest,
  chatResponse,
  geminiCandidates,
  geminiRequest,
  geminiRestRequest,
  json,
  responsesRequest,
  responsesResponse,
} from "./providers-fixtures.js";

const SKILL = "lookupWeather_v1_0_0";
const spec: ToolSpec = {
  name: SKILL,
  description: "Current weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const outcomes = (calls: ExtractedCall[]): CallOutcome[] => [
  { call: calls[0]!, status: "success", output: { tempC: 21 }, executionId: "ex1" },
  { call: calls[2]!, status: "error", error: "boom", executionId: "ex3" },
];

describe("provider registry", () => {
  it("lists the four formats and rejects others", () => {
    expect(WIRE_FORMATS).toEqual(["openai-chat", "openai-responses", "anthropic", "gemini"]);
    expect(isWireFormat("gemini")).toBe(true);
    expect(isWireFormat("cohere")).toBe(false);
    expect(isWireFormat("toString")).toBe(false);
    expect(getFormatAdapter("anthropic").provider).toBe("anthropic");
    expect(getFormatAdapter("openai-responses").provider).toBe("openai");
    expect(getFormatAdapter("gemini").provider).toBe("google");
  });
});

describe("context text (system prompt and user/assistant text only)", () => {
  it.each([
    ["openai-chat", json(chatRequest())],
    ["openai-responses", json(responsesRequest())],
    ["anthropic", json(anthropicRequest())],
    ["gemini (SDK shape)", json(geminiRequest())],
    ["gemini (REST shape)", geminiRestRequest()],
  ] as const)("%s", (label, request) => {
    const format = label.startsWith("gemini") ? "gemini" : (label as "openai-chat");
    const text = getFormatAdapter(format).contextText(request);
    expect(text).toContain("You are a travel assistant.");
    expect(text).toContain("What is the weather in Paris and Rome?");
    expect(text).not.toContain("SECRET");
    expect(text).not.toContain("Run a shell command");
    expect(text).not.toContain("thinking about it");
  });
});

describe("'no tools' choice and client tool names", () => {
  it("reads tool_choice none / Gemini mode NONE", () => {
    expect(openaiChat.toolsDisabled({ ...json(chatRequest()), tool_choice: "none" })).toBe(true);
    expect(openaiChat.toolsDisabled({ ...json(chatRequest()), tool_choice: "auto" })).toBe(false);
    expect(openaiResponses.toolsDisabled({ tool_choice: "none" })).toBe(true);
    expect(anthropic.toolsDisabled({ tool_choice: { type: "none" } })).toBe(true);
    expect(anthropic.toolsDisabled({ tool_choice: { type: "auto" } })).toBe(false);
    expect(gemini.toolsDisabled({ toolConfig: { functionCallingConfig: { mode: "NONE" } } })).toBe(
      true,
    );
    expect(
      gemini.toolsDisabled({ tool_config: { function_calling_config: { mode: "none" } } }),
    ).toBe(true);
    expect(
      gemini.toolsDisabled({ config: { toolConfig: { functionCallingConfig: { mode: "NONE" } } } }),
    ).toBe(true);
    expect(gemini.toolsDisabled({ toolConfig: { functionCallingConfig: { mode: "AUTO" } } })).toBe(
      false,
    );
  });
  it("lists the client's own tools", () => {
    expect([...openaiChat.clientToolNames(json(chatRequest()))]).toEqual(["Bash"]);
    expect([...openaiResponses.clientToolNames(json(responsesRequest()))]).toEqual(["Bash"]);
    expect([...anthropic.clientToolNames(json(anthropicRequest()))]).toEqual(["Bash"]);
    expect([...gemini.clientToolNames(json(geminiRequest()))]).toEqual(["Bash"]);
    expect([...gemini.clientToolNames(geminiRestRequest())]).toEqual(["Bash"]);
  });
});

describe("tools go where each format wants them", () => {
  it("Chat Completions: tools[] of type function, appended after the client's", () => {
    const req = json(chatRequest());
    const out = openaiChat.addTools(req, [spec]);
    expect(out.tools).toEqual([
      (req.tools as unknown[])[0],
      {
        type: "function",
        function: { name: SKILL, description: "Current weather", parameters: spec.parameters },
      },
    ]);
    expect((req.tools as unknown[]).length).toBe(1);
  });
  it("Responses: flat function tools with strict off", () => {
    const out = openaiResponses.addTools(json(responsesRequest()), [spec]);
    expect((out.tools as unknown[])[1]).toEqual({
      type: "function",
      name: SKILL,
      description: "Current weather",
      parameters: spec.parameters,
      strict: false,
    });
  });
  it("Anthropic: name, description, input_schema", () => {
    const out = anthropic.addTools(json(anthropicRequest()), [spec]);
    expect((out.tools as unknown[])[1]).toEqual({
      name: SKILL,
      description: "Current weather",
      input_schema: spec.parameters,
    });
  });
  it("Gemini: merged into the existing functionDeclarations tool (SDK config and REST)", () => {
    const sdk = gemini.addTools(json(geminiRequest()), [spec]);
    expect((sdk.config as { tools: unknown[] }).tools).toEqual([
      {
        functionDeclarations: [
          { name: "Bash", description: "Run a shell command" },
          { name: SKILL, description: "Current weather", parametersJsonSchema: spec.parameters },
        ],
      },
    ]);
    expect(sdk.tools).toBeUndefined();
    const rest = gemini.addTools({ contents: [] }, [spec]);
    expect(rest.tools).toEqual([
      {
        functionDeclarations: [
          { name: SKILL, description: "Current weather", parametersJsonSchema: spec.parameters },
        ],
      },
    ]);
  });
});

describe("Gemini REST requests in snake_case", () => {
  it("reads system_instruction and merges into function_declarations", () => {
    const request = {
      system_instruction: { parts: [{ text: "Be brief." }] },
      contents: [{ role: "user", parts: [{ text: "hello" }] }],
      tools: [{ function_declarations: [{ name: "Bash" }] }, { google_search: {} }],
    };
    expect(gemini.contextText(request)).toBe("Be brief.\nhello");
    expect([...gemini.clientToolNames(request)]).toEqual(["Bash"]);
    expect(gemini.addTools(request, [spec]).tools).toEqual([
      {
        function_declarations: [
          { name: "Bash" },
          { name: SKILL, description: "Current weather", parametersJsonSchema: spec.parameters },
        ],
      },
      { google_search: {} },
    ]);
  });
});

describe("OpenAI follow-ups", () => {
  it("Chat: one tool message per tool_call_id in call order; response unchanged", () => {
    const res = json(chatResponse(SKILL));
    const calls = openaiChat.extractCalls(res);
    expect(calls.map((c) => [c.callId, c.name, c.input])).toEqual([
      ["call_1", SKILL, { city: "Paris" }],
      ["call_2", "Bash", { cmd: "ls" }],
      ["call_3", SKILL, { city: "Rome" }],
    ]);
    expect(openaiChat.followUp(outcomes(calls))).toEqual([
      { role: "tool", tool_call_id: "call_1", content: '{"tempC":21}' },
      { role: "tool", tool_call_id: "call_3", content: '{"status":"error","error":"boom"}' },
    ]);
    const spliced = openaiChat.splice(res, outcomes(calls));
    expect(spliced).toEqual(json(chatResponse(SKILL)));
    expect(JSON.stringify(spliced)).not.toContain("tool_results");
  });
  it("Chat: malformed arguments are reported, not thrown", () => {
    const res = json(chatResponse(SKILL));
    const choice = (
      res.choices as { message: { tool_calls: { function: { arguments: string } }[] } }[]
    )[0]!;
    choice.message.tool_calls[0]!.function.arguments = "{not json";
    expect(openaiChat.extractCalls(res)[0]!.inputError).toBe(
      "Tool call arguments are not valid JSON",
    );
  });
  it("Responses: one function_call_output per call_id; spliced after each owned call", () => {
    const res = responsesResponse(SKILL);
    const calls = openaiResponses.extractCalls(res);
    expect(calls.map((c) => c.callId)).toEqual(["call_1", "call_2", "call_3"]);
    expect(openaiResponses.followUp(outcomes(calls))).toEqual([
      { type: "function_call_output", call_id: "call_1", output: '{"tempC":21}' },
      {
        type: "function_call_output",
        call_id: "call_3",
        output: '{"status":"error","error":"boom"}',
      },
    ]);
    const output = openaiResponses.splice(res, outcomes(calls)).output as {
      type: string;
      call_id?: string;
    }[];
    expect(output.map((i) => `${i.type}:${i.call_id ?? ""}`)).toEqual([
      "reasoning:",
      "function_call:call_1",
      "function_call_output:call_1",
      "function_call:call_2",
      "function_call:call_3",
      "function_call_output:call_3",
    ]);
    expect((res.output as unknown[]).length).toBe(4);
  });
});

describe("Anthropic follow-up", () => {
  it("one user message starting with one tool_result per tool_use_id, is_error on failure", () => {
    const res = json(anthropicResponse(SKILL));
    const calls = anthropic.extractCalls(res);
    expect(calls.map((c) => [c.callId, c.name])).toEqual([
      ["toolu_1", SKILL],
      ["toolu_2", "Bash"],
      ["toolu_3", SKILL],
    ]);
    expect(anthropic.followUp(outcomes(calls))).toEqual([
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: '{"tempC":21}' },
          {
            type: "tool_result",
            tool_use_id: "toolu_3",
            content: '{"status":"error","error":"boom"}',
            is_error: true,
          },
        ],
      },
    ]);
    expect(anthropic.splice(res, outcomes(calls))).toEqual(res);
    expect(anthropic.replayTurn(res)).toEqual([{ role: "assistant", content: res.content }]);
    expect(anthropic.followUp([])).toEqual([]);
  });
});

describe("Gemini REST shape", () => {
  it("reads candidates[].content.parts[].functionCall; one user turn of functionResponse parts in order", () => {
    const res = json({ candidates: geminiCandidates(SKILL, false) });
    const calls = gemini.extractCalls(res);
    expect(calls.map((c) => [c.callId, c.providerId, c.name, c.input])).toEqual([
      ["fc_0", undefined, SKILL, { city: "Paris" }],
      ["fc_1", undefined, "Bash", { cmd: "ls" }],
      ["fc_2", undefined, SKILL, { city: "Rome" }],
    ]);
    expect(gemini.followUp(outcomes(calls))).toEqual([
      {
        role: "user",
        parts: [
          { functionResponse: { name: SKILL, response: { output: { tempC: 21 } } } },
          { functionResponse: { name: SKILL, response: { error: "boom", status: "error" } } },
        ],
      },
    ]);
  });
  it("echoes ids when present", () => {
    const calls = gemini.extractCalls(json({ candidates: geminiCandidates(SKILL, true) }));
    const turn = gemini.followUp(outcomes(calls))[0] as {
      parts: { functionResponse: { id?: string } }[];
    };
    expect(turn.parts.map((p) => p.functionResponse.id)).toEqual(["g1", "g3"]);
  });
  it("uses the SDK functionCalls field only when there are no candidates (never twice)", () => {
    const candidates = geminiCandidates(SKILL, true);
    const functionCalls = candidates[0]!.content!.parts!.map((p) => p.functionCall);
    expect(gemini.extractCalls(json({ candidates, functionCalls })).length).toBe(3);
    const sdkOnly = gemini.extractCalls(json({ functionCalls }));
    expect(sdkOnly.map((c) => c.callId)).toEqual(["g1", "g2", "g3"]);
  });
  it("keeps thoughtSignature on its part in the replayed model turn", () => {
    const res = json({ candidates: geminiCandidates(SKILL, false) });
    const [turn] = gemini.replayTurn(res) as {
      role: string;
      parts: { thoughtSignature?: string }[];
    }[];
    expect(turn!.role).toBe("model");
    expect(turn!.parts.map((p) => p.thoughtSignature)).toEqual(["c2lnLTE=", undefined, undefined]);
    expect(gemini.splice(res, [])).toEqual(res);
  });
});

describe("pending approval results", () => {
  it("tell the model the call waits for an operator", () => {
    const call: ExtractedCall = { callId: "c", providerId: "c", name: SKILL, input: {}, index: 0 };
    const [msg] = openaiChat.followUp([
      { call, status: "pending_approval", executionId: "ex9" },
    ]) as { content: string }[];
    expect(JSON.parse(msg!.content)).toEqual({
      status: "pending_approval",
      executionId: "ex9",
      message: "This call needs approval by an operator before it runs; it has not run yet.",
    });
    const [turn] = anthropic.followUp([
      { call, status: "pending_approval", executionId: "ex9" },
    ]) as { content: { is_error?: boolean }[] }[];
    expect(turn!.content[0]!.is_error).toBeUndefined();
  });
});
