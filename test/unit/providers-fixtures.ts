/**
 * Realistic requests and responses per wire format, typed with the official SDK types so the
 * fixtures themselves are checked by `tsc`. Each response calls two tools in parallel
 * (`skillTool` twice) next to one client tool. Not a test file itself.
 */
import type {
  Message,
  MessageCreateParamsNonStreaming,
} from "@anthropic-ai/sdk/resources/messages";
import type { Candidate, GenerateContentParameters } from "@google/genai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
} from "openai/resources/chat/completions";
import type {
  ResponseCreateParamsNonStreaming,
  ResponseOutputItem,
} from "openai/resources/responses/responses";
import type { JsonObject } from "../../workers/src/formats/types.js";

/** Casts a typed SDK object to the plain JSON the adapters read. */
export const json = (value: object): JsonObject => JSON.parse(JSON.stringify(value)) as JsonObject;

export function chatRequest(): ChatCompletionCreateParamsNonStreaming {
  return {
    model: "gpt-4.1",
    messages: [
      { role: "system", content: "You are a travel assistant." },
      { role: "user", content: [{ type: "text", text: "What is the weather in Paris and Rome?" }] },
      { role: "assistant", content: "Let me check the forecast." },
      { role: "tool", tool_call_id: "call_old", content: "SECRET tool output must not count" },
    ],
    tools: [
      {
        type: "function",
        function: {
          name: "Bash",
          description: "Run a shell command",
          parameters: { type: "object", properties: { cmd: { type: "string" } } },
        },
      },
    ],
  };
}

export function chatResponse(skillTool: string): ChatCompletion {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1_767_225_600,
    model: "gpt-4.1-2025-04-14",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        logprobs: null,
        message: {
          role: "assistant",
          content: null,
          refusal: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: skillTool, arguments: '{"city":"Paris"}' },
            },
            {
              id: "call_2",
              type: "function",
              function: { name: "Bash", arguments: '{"cmd":"ls"}' },
            },
            {
              id: "call_3",
              type: "function",
              function: { name: skillTool, arguments: '{"city":"Rome"}' },
            },
          ],
        },
      },
    ],
    usage: { prompt_tokens: 50, completion_tokens: 40, total_tokens: 90 },
  };
}

export function responsesRequest(): ResponseCreateParamsNonStreaming {
  return {
    model: "gpt-4.1",
    instructions: "You are a travel assistant.",
    input: [
      {
        role: "user",
        content: [{ type: "input_text", text: "What is the weather in Paris and Rome?" }],
      },
      {
        type: "function_call_output",
        call_id: "call_old",
        output: "SECRET tool output must not count",
      },
    ],
    tools: [
      {
        type: "function",
        name: "Bash",
        description: "Run a shell command",
        parameters: { type: "object", properties: { cmd: { type: "string" } } },
        strict: false,
      },
    ],
  };
}

export function responsesOutput(skillTool: string): ResponseOutputItem[] {
  return [
    { type: "reasoning", id: "rs_1", summary: [] },
    {
      type: "function_call",
      id: "fc_1",
      call_id: "call_1",
      name: skillTool,
      arguments: '{"city":"Paris"}',
      status: "completed",
    },
    {
      type: "function_call",
      id: "fc_2",
      call_id: "call_2",
      name: "Bash",
      arguments: '{"cmd":"ls"}',
      status: "completed",
    },
    {
      type: "function_call",
      id: "fc_3",
      call_id: "call_3",
      name: skillTool,
      arguments: '{"city":"Rome"}',
      status: "completed",
    },
  ];
}

/** A Responses API response body (only the fields the tests read are typed). */
export function responsesResponse(skillTool: string): JsonObject {
  return json({
    id: "resp_1",
    object: "response",
    status: "completed",
    model: "gpt-4.1",
    output: responsesOutput(skillTool),
  });
}

export function anthropicRequest(): MessageCreateParamsNonStreaming {
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    system: [{ type: "text", text: "You are a travel assistant." }],
    messages: [
      { role: "user", content: "What is the weather in Paris and Rome?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check the forecast." },
          { type: "tool_use", id: "toolu_old", name: "Bash", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_old",
            content: "SECRET tool output must not count",
          },
        ],
      },
    ],
    tools: [
      {
        name: "Bash",
        description: "Run a shell command",
        input_schema: { type: "object", properties: { cmd: { type: "string" } } },
      },
    ],
  };
}

export function anthropicResponse(skillTool: string): Message {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [
      { type: "text", text: "Checking both cities.", citations: null },
      {
        type: "tool_use",
        id: "toolu_1",
        name: skillTool,
        input: { city: "Paris" },
        caller: { type: "direct" },
      },
      {
        type: "tool_use",
        id: "toolu_2",
        name: "Bash",
        input: { cmd: "ls" },
        caller: { type: "direct" },
      },
      {
        type: "tool_use",
        id: "toolu_3",
        name: skillTool,
        input: { city: "Rome" },
        caller: { type: "direct" },
      },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens: 50,
      output_tokens: 40,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      cache_creation: null,
      server_tool_use: null,
      service_tier: null,
      inference_geo: null,
      output_tokens_details: null,
      speed: null,
    },
  };
}

export function geminiRequest(): GenerateContentParameters {
  return {
    model: "gemini-2.5-flash",
    contents: [
      { role: "user", parts: [{ text: "What is the weather in Paris and Rome?" }] },
      {
        role: "model",
        parts: [
          { text: "thinking about it", thought: true },
          { text: "Let me check the forecast." },
        ],
      },
      {
        role: "user",
        parts: [
          {
            functionResponse: {
              name: "Bash",
              response: { output: "SECRET tool output must not count" },
            },
          },
        ],
      },
    ],
    config: {
      systemInstruction: "You are a travel assistant.",
      tools: [{ functionDeclarations: [{ name: "Bash", description: "Run a shell command" }] }],
    },
  };
}

/** A REST-shaped Gemini request body (fields at the top level). */
export function geminiRestRequest(): JsonObject {
  const sdk = geminiRequest();
  return json({
    contents: sdk.contents,
    systemInstruction: { parts: [{ text: "You are a travel assistant." }] },
    tools: sdk.config?.tools,
  });
}

export function geminiCandidates(skillTool: string, withIds: boolean): Candidate[] {
  const id = (s: string) => (withIds ? { id: s } : {});
  return [
    {
      index: 0,
      content: {
        role: "model",
        parts: [
          {
            functionCall: { name: skillTool, args: { city: "Paris" }, ...id("g1") },
            thoughtSignature: "c2lnLTE=",
          },
          { functionCall: { name: "Bash", args: { cmd: "ls" }, ...id("g2") } },
          { functionCall: { name: skillTool, args: { city: "Rome" }, ...id("g3") } },
        ],
      },
    },
  ];
}
