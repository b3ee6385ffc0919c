/**
 * Provider answers for the proxy tests, in each provider's documented JSON shape: a turn of tool
 * calls or a final text, with usage, for Chat Completions, Responses, Anthropic Messages and
 * Gemini `generateContent`.
 */
export type Obj = Record<string, unknown>;

/** A tool call to script. */
export interface Call {
  id: string;
  name: string;
  args: Obj;
}

/** Provider formats as the proxy names them. */
export type Format = "openai-chat" | "openai-responses" | "anthropic" | "gemini";

export const FORMATS: readonly Format[] = [
  "openai-chat",
  "openai-responses",
  "anthropic",
  "gemini",
];

/** A turn of `calls` (after optional `text`) in `format`, with one unit-ish usage. */
export function toolTurn(format: Format, calls: readonly Call[], n: number, text = ""): Obj {
  if (format === "openai-chat")
    return {
      id: `chatcmpl-${n}`,
      object: "chat.completion",
      created: 1,
      model: "gpt-test",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          logprobs: null,
          message: {
            role: "assistant",
            content: text || null,
            refusal: null,
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: "function",
              function: { name: c.name, arguments: JSON.stringify(c.args) },
            })),
          },
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
  if (format === "openai-responses")
    return {
      id: `resp_${n}`,
      object: "response",
      created_at: 1,
      status: "completed",
      model: "gpt-test",
      output: calls.map((c) => ({
        type: "function_call",
        id: `fc_${c.id}`,
        call_id: c.id,
        name: c.name,
        arguments: JSON.stringify(c.args),
        status: "completed",
      })),
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    };
  if (format === "anthropic")
    return {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [
        ...(text ? [{ type: "text", text }] : []),
        ...calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    };
  return {
    candidates: [
      {
        index: 0,
        finishReason: "STOP",
        content: {
          role: "model",
          parts: calls.map((c) => ({ functionCall: { id: c.id, name: c.name, args: c.args } })),
        },
      },
    ],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    responseId: `gem-${n}`,
  };
}

/** A final text answer in `format`. */
export function textTurn(format: Format, text: string, n: number): Obj {
  if (format === "openai-chat")
    return {
      id: `chatcmpl-${n}`,
      object: "chat.completion",
      created: 1,
      model: "gpt-test",
      choices: [
        {
          index: 0,
          finish_reason: "stop",
          logprobs: null,
          message: { role: "assistant", content: text, refusal: null },
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
  if (format === "openai-responses")
    return {
      id: `resp_${n}`,
      object: "response",
      created_at: 1,
      status: "completed",
      model: "gpt-test",
      output: [
        {
          type: "message",
          id: `msg_${n}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text, annotations: [] }],
        },
      ],
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    };
  if (format === "anthropic")
    return {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    };
  return {
    candidates: [{ index: 0, finishReason: "STOP", content: { role: "model", parts: [{ text }] } }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    responseId: `gem-${n}`,
  };
}

/** The format a request path targets. */
export function formatOf(path: string): Format {
  if (path.endsWith("/chat/completions")) return "openai-chat";
  if (path.endsWith("/responses")) return "openai-responses";
  if (path.endsWith("/messages")) return "anthropic";
  return "gemini";
}

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** Tool results in a request body, in order: `{ id, text }` (Gemini: id of the response). */
export function toolResults(format: Format, body: Obj): { id: string; text: string }[] {
  if (format === "openai-chat")
    return objs(body.messages)
      .filter((m) => m.role === "tool")
      .map((m) => ({ id: String(m.tool_call_id), text: String(m.content) }));
  if (format === "openai-responses")
    return objs(body.input)
      .filter((i) => i.type === "function_call_output")
      .map((i) => ({ id: String(i.call_id), text: String(i.output) }));
  if (format === "anthropic")
    return objs(body.messages)
      .flatMap((m) => objs(m.content))
      .filter((b) => b.type === "tool_result")
      .map((b) => ({
        id: String(b.tool_use_id),
        text: typeof b.content === "string" ? b.content : JSON.stringify(b.content),
      }));
  return objs(body.contents)
    .flatMap((c) => objs(c.parts))
    .filter((p) => isObj(p.functionResponse))
    .map((p) => {
      const fr = p.functionResponse as Obj;
      return { id: String(fr.id ?? fr.name), text: JSON.stringify(fr.response) };
    });
}

/** Names of the tools declared in a request body. */
export function declaredTools(format: Format, body: Obj): string[] {
  if (format === "gemini")
    return objs(body.tools).flatMap((t) => objs(t.functionDeclarations).map((d) => String(d.name)));
  return objs(body.tools).map((t) => String(isObj(t.function) ? t.function.name : t.name));
}

/**
 * The 429 error body each provider sends when a caller is rate-limited, in the shape its official
 * SDK parses into its rate-limit error: Anthropic `rate_limit_error`, Gemini
 * `RESOURCE_EXHAUSTED`, OpenAI `rate_limit_exceeded` (each provider's error documentation).
 */
export function rateLimitBody(format: Format, message: string): Obj {
  return format === "anthropic"
    ? { type: "error", error: { type: "rate_limit_error", message } }
    : format === "gemini"
      ? { error: { code: 429, message, status: "RESOURCE_EXHAUSTED" } }
      : { error: { message, type: "requests", param: null, code: "rate_limit_exceeded" } };
}
