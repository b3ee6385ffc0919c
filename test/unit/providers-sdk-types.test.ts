/**
 * Every request and follow-up the provider modules build type-checks against the official SDK
 * types. The assignments below are checked by `tsc --noEmit` (the repository
 * tsconfig includes test/); the runtime assertions prove that the adapters produce exactly those
 * typed objects. Gemini's SDK models enums as TS string enums; on the wire they are plain
 * strings, so {@link Wire} maps each enum to its string values before comparing.
 */
import type {
  Tool as AnthropicSdkTool,
  MessageCreateParamsNonStreaming,
  MessageParam,
} from "@anthropic-ai/sdk/resources/messages";
import type {
  Content,
  FunctionDeclaration,
  Tool as GeminiSdkTool,
  GenerateContentParameters,
} from "@google/genai";
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type {
  FunctionTool,
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
  ResponseOutputItem,
} from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import {
  anthropic,
  anthropicFollowUp,
  anthropicTool,
} from "../../workers/src/formats/anthropic/index.js";
import {
  gemini,
  geminiDeclaration,
  geminiFollowUp,
} from "../../workers/src/formats/gemini/index.js";
import { chatFollowUp, chatTool, openaiChat } from "../../workers/src/formats/openai-chat/index.js";
import {
  openaiResponses,
  type ResponsesFunctionCallOutputItem,
  responsesFollowUp,
  responsesTool,
} from "../../workers/src/formats/openai-responses/index.js";
import type { CallOutcome, ExtractedCall, ToolSpec } from "../../workers/src/formats/types.js";
import {
  toGeminiParameters,
  toJsonSchemaParameters,
} from "../../workers/src/skills/injection/schema-adapt.js";
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
} from "./providers-fixtures.js";

/** JSON wire form of an SDK type: string enums become their string values. */
type Wire<T> = T extends string
  ? string extends T
    ? T
    : `${T}`
  : T extends (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

const input = {
  type: "object",
  properties: { city: { type: ["string", "null"] }, days: { type: "integer", minimum: 1 } },
  required: ["days"],
  additionalProperties: false,
};
const jsonSpec: ToolSpec = {
  name: "lookupWeather_v1_0_0",
  description: "Weather",
  parameters: toJsonSchemaParameters(input),
};
const geminiSpec: ToolSpec = {
  name: "lookupWeather_v1_0_0",
  description: "Weather",
  parameters: toGeminiParameters(input),
};
const outcomesFor = (calls: ExtractedCall[]): CallOutcome[] => [
  { call: calls[0]!, status: "success", output: "sunny", executionId: "e1" },
  { call: calls[2]!, status: "timeout", error: "timed out", executionId: "e3" },
];

describe("SDK types: OpenAI Chat Completions", () => {
  it("the injected request and the follow-up are ChatCompletionCreateParams", () => {
    const req = chatRequest();
    const typed: ChatCompletionCreateParamsNonStreaming = {
      ...req,
      tools: [...(req.tools ?? []), chatTool(jsonSpec)],
    };
    expect(openaiChat.addTools(json(req), [jsonSpec])).toEqual(json(typed));
    const calls = openaiChat.extractCalls(json(chatResponse(jsonSpec.name)));
    const toolMessages: ChatCompletionMessageParam[] = chatFollowUp(outcomesFor(calls));
    const next: ChatCompletionCreateParamsNonStreaming = {
      ...req,
      messages: [...req.messages, ...toolMessages],
    };
    expect(openaiChat.followUp(outcomesFor(calls))).toEqual(toolMessages);
    expect(next.messages.slice(-2).map((m) => m.role)).toEqual(["tool", "tool"]);
  });
});

describe("SDK types: OpenAI Responses", () => {
  it("tools are FunctionTool, follow-ups ResponseInputItem, the splice ResponseOutputItem", () => {
    const req = responsesRequest();
    const tool: FunctionTool = responsesTool(jsonSpec);
    const typed: ResponseCreateParamsNonStreaming = { ...req, tools: [...(req.tools ?? []), tool] };
    expect(openaiResponses.addTools(json(req), [jsonSpec])).toEqual(json(typed));
    const res = responsesResponse(jsonSpec.name);
    const calls = openaiResponses.extractCalls(res);
    const items: ResponseInputItem[] = responsesFollowUp(outcomesFor(calls));
    expect(openaiResponses.followUp(outcomesFor(calls))).toEqual(items);
    const spliced = (
      openaiResponses.splice(res, outcomesFor(calls)).output as ResponsesFunctionCallOutputItem[]
    )[2]!;
    const asOutput: ResponseOutputItem = spliced;
    expect(asOutput.type).toBe("function_call_output");
  });
});

describe("SDK types: Anthropic Messages", () => {
  it("tools are Tool, the follow-up a MessageParam", () => {
    const req = anthropicRequest();
    const tool: AnthropicSdkTool = anthropicTool(jsonSpec);
    const typed: MessageCreateParamsNonStreaming = { ...req, tools: [...(req.tools ?? []), tool] };
    expect(anthropic.addTools(json(req), [jsonSpec])).toEqual(json(typed));
    const res = anthropicResponse(jsonSpec.name);
    const calls = anthropic.extractCalls(json(res));
    const followUp: MessageParam[] = anthropicFollowUp(outcomesFor(calls));
    const next: MessageCreateParamsNonStreaming = {
      ...req,
      messages: [...req.messages, { role: "assistant", content: res.content }, ...followUp],
    };
    expect(next.messages.at(-1)).toEqual(anthropic.followUp(outcomesFor(calls))[0]);
  });
});

describe("SDK types: Google Gemini", () => {
  it("declarations are Tool, the follow-up a Content, the replayed model turn a Content", () => {
    const req = geminiRequest();
    const decl: FunctionDeclaration = geminiDeclaration(geminiSpec);
    const tool: GeminiSdkTool = {
      functionDeclarations: [{ name: "Bash", description: "Run a shell command" }, decl],
    };
    const typed: GenerateContentParameters = { ...req, config: { ...req.config, tools: [tool] } };
    expect(gemini.addTools(json(req), [geminiSpec])).toEqual(json(typed));
    expect(decl).not.toHaveProperty("parameters");
    expect(decl.parametersJsonSchema).toEqual({
      type: "object",
      properties: {
        city: { anyOf: [{ type: "string" }, { type: "null" }] },
        days: { type: "integer", minimum: 1 },
      },
      required: ["days"],
    });
    const candidates = geminiCandidates(geminiSpec.name, true);
    const calls = gemini.extractCalls(json({ candidates }));
    const followUp: Wire<Content>[] = geminiFollowUp(outcomesFor(calls));
    const replay: Wire<Content>[] = gemini.replayTurn(json({ candidates })) as Wire<Content>[];
    const next: Wire<GenerateContentParameters> = {
      ...json(req),
      model: req.model,
      contents: [...(req.contents as Wire<Content>[]), ...replay, ...followUp],
    };
    expect((next.contents as Wire<Content>[]).at(-1)).toEqual({
      role: "user",
      parts: [
        { functionResponse: { name: geminiSpec.name, id: "g1", response: { output: "sunny" } } },
        {
          functionResponse: {
            name: geminiSpec.name,
            id: "g3",
            response: { error: "timed out", status: "timeout" },
          },
        },
      ],
    });
    expect(replay[0]?.parts?.[0]?.thoughtSignature).toBe("c2lnLTE=");
  });
});
