/**
 * The official SDKs pointed at the Skillgate proxy, unmodified except base URL and key, behind
 * one small interface so a test can run the same conversation in every format.
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import type { Format } from "./proxy-fixtures.js";

/** What a test reads from one answer. */
export interface Answer {
  text: string;
  id: string | undefined;
  /** Total tokens as each format reports them (Anthropic: input + output). */
  totalTokens: number | undefined;
  headers: Headers;
  /** Names of the tool calls left in the answer. */
  calls: { id: string; name: string }[];
  /** The answer as the SDK returned it. */
  raw: unknown;
}

/** Options of one question. */
export interface AskOptions {
  /** Extra request headers (session, upstream key). */
  headers?: Record<string, string>;
  /** Tools the client declares itself (name only, no parameters). */
  clientTools?: string[];
  /**
   * Gemini only: the API version segment of the path (the SDK's default `v1beta`), e.g. `v1` for
   * a gateway that routes `/v1/...` only.
   */
  geminiApiVersion?: string;
  signal?: AbortSignal;
}

/** SDK clients for the proxy at `base` with the Skillgate key `key`. */
export function sdkClients(base: string, key: string) {
  return {
    openai: new OpenAI({ baseURL: `${base}/v1`, apiKey: key, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: base, apiKey: key, maxRetries: 0 }),
    gemini: new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base } }),
  };
}

const params = { type: "object", properties: {} } as const;

/** Asks `question` in `format` without streaming. */
export async function ask(
  format: Format,
  base: string,
  key: string,
  question: string,
  opts: AskOptions = {},
): Promise<Answer> {
  const c = sdkClients(base, key);
  const reqOpts = { headers: opts.headers, signal: opts.signal };
  const tools = opts.clientTools ?? [];
  if (format === "openai-chat") {
    const { data, response } = await c.openai.chat.completions
      .create(
        {
          model: "gpt-test",
          messages: [{ role: "user", content: question }],
          ...(tools.length
            ? {
                tools: tools.map((name) => ({
                  type: "function" as const,
                  function: { name, parameters: params },
                })),
              }
            : {}),
        },
        reqOpts,
      )
      .withResponse();
    const msg = data.choices[0]!.message;
    return {
      text: msg.content ?? "",
      id: data.id,
      totalTokens: data.usage?.total_tokens,
      headers: response.headers,
      calls: (msg.tool_calls ?? []).map((tc) => ({
        id: tc.id,
        name: tc.type === "function" ? tc.function.name : tc.custom.name,
      })),
      raw: data,
    };
  }
  if (format === "openai-responses") {
    const { data, response } = await c.openai.responses
      .create(
        {
          model: "gpt-test",
          input: question,
          ...(tools.length
            ? {
                tools: tools.map((name) => ({
                  type: "function" as const,
                  name,
                  parameters: params,
                  strict: false,
                })),
              }
            : {}),
        },
        reqOpts,
      )
      .withResponse();
    return {
      text: data.output_text,
      id: data.id,
      totalTokens: data.usage?.total_tokens,
      headers: response.headers,
      calls: data.output.flatMap((o) =>
        o.type === "function_call" ? [{ id: o.call_id, name: o.name }] : [],
      ),
      raw: data,
    };
  }
  if (format === "anthropic") {
    const { data, response } = await c.anthropic.messages
      .create(
        {
          model: "claude-test",
          max_tokens: 256,
          messages: [{ role: "user", content: question }],
          ...(tools.length ? { tools: tools.map((name) => ({ name, input_schema: params })) } : {}),
        },
        reqOpts,
      )
      .withResponse();
    return {
      text: data.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(""),
      id: data.id,
      totalTokens: data.usage.input_tokens + data.usage.output_tokens,
      headers: response.headers,
      calls: data.content.flatMap((b) =>
        b.type === "tool_use" ? [{ id: b.id, name: b.name }] : [],
      ),
      raw: data,
    };
  }
  const res = await c.gemini.models.generateContent({
    model: "gemini-test",
    contents: question,
    config: {
      httpOptions: {
        headers: opts.headers,
        ...(opts.geminiApiVersion ? { apiVersion: opts.geminiApiVersion } : {}),
      },
      abortSignal: opts.signal,
      ...(tools.length
        ? { tools: [{ functionDeclarations: tools.map((name) => ({ name })) }] }
        : {}),
    },
  });
  return {
    text: res.text ?? "",
    id: res.responseId,
    totalTokens: res.usageMetadata?.totalTokenCount,
    headers: new Headers(res.sdkHttpResponse?.headers ?? {}),
    calls: (res.functionCalls ?? []).map((fc) => ({ id: fc.id ?? "", name: fc.name ?? "" })),
    raw: res,
  };
}

/** What a test reads from a streamed answer (through each SDK's stream helper). */
export interface StreamedAnswer {
  text: string;
  id: string | undefined;
  totalTokens: number | undefined;
  calls: { id: string; name: string }[];
  /** Raw SSE comment-free event count seen by the SDK (chunks / events). */
  events: number;
}

/** Asks `question` in `format` with streaming, through the SDK's own stream helper. */
export async function askStream(
  format: Format,
  base: string,
  key: string,
  question: string,
  opts: AskOptions = {},
): Promise<StreamedAnswer> {
  const c = sdkClients(base, key);
  const reqOpts = { headers: opts.headers, signal: opts.signal };
  const tools = opts.clientTools ?? [];
  let events = 0;
  if (format === "openai-chat") {
    const stream = c.openai.chat.completions.stream(
      {
        model: "gpt-test",
        messages: [{ role: "user", content: question }],
        stream_options: { include_usage: true },
        ...(tools.length
          ? {
              tools: tools.map((name) => ({
                type: "function" as const,
                function: { name, parameters: params },
              })),
            }
          : {}),
      },
      reqOpts,
    );
    stream.on("chunk", () => events++);
    const data = await stream.finalChatCompletion();
    const msg = data.choices[0]!.message;
    return {
      text: msg.content ?? "",
      id: data.id,
      totalTokens: data.usage?.total_tokens,
      calls: (msg.tool_calls ?? []).map((tc) => ({
        id: tc.id,
        name: tc.function.name,
      })),
      events,
    };
  }
  if (format === "openai-responses") {
    const stream = c.openai.responses.stream(
      {
        model: "gpt-test",
        input: question,
        ...(tools.length
          ? {
              tools: tools.map((name) => ({
                type: "function" as const,
                name,
                parameters: params,
                strict: false,
              })),
            }
          : {}),
      },
      reqOpts,
    );
    stream.on("event", () => events++);
    const data = await stream.finalResponse();
    return {
      text: data.output_text,
      id: data.id,
      totalTokens: data.usage?.total_tokens,
      calls: data.output.flatMap((o) =>
        o.type === "function_call" ? [{ id: o.call_id, name: o.name }] : [],
      ),
      events,
    };
  }
  if (format === "anthropic") {
    const stream = c.anthropic.messages.stream(
      {
        model: "claude-test",
        max_tokens: 256,
        messages: [{ role: "user", content: question }],
        ...(tools.length ? { tools: tools.map((name) => ({ name, input_schema: params })) } : {}),
      },
      reqOpts,
    );
    stream.on("streamEvent", () => events++);
    const data = await stream.finalMessage();
    return {
      text: data.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(""),
      id: data.id,
      totalTokens: data.usage.input_tokens + data.usage.output_tokens,
      calls: data.content.flatMap((b) =>
        b.type === "tool_use" ? [{ id: b.id, name: b.name }] : [],
      ),
      events,
    };
  }
  const stream = await c.gemini.models.generateContentStream({
    model: "gemini-test",
    contents: question,
    config: {
      httpOptions: {
        headers: opts.headers,
        ...(opts.geminiApiVersion ? { apiVersion: opts.geminiApiVersion } : {}),
      },
      abortSignal: opts.signal,
      ...(tools.length
        ? { tools: [{ functionDeclarations: tools.map((name) => ({ name })) }] }
        : {}),
    },
  });
  let text = "";
  let id: string | undefined;
  let totalTokens: number | undefined;
  const calls: { id: string; name: string }[] = [];
  for await (const chunk of stream) {
    events++;
    text += chunk.text ?? "";
    id ??= chunk.responseId;
    totalTokens = chunk.usageMetadata?.totalTokenCount ?? totalTokens;
    for (const fc of chunk.functionCalls ?? [])
      calls.push({ id: fc.id ?? "", name: fc.name ?? "" });
  }
  return { text, id, totalTokens, calls, events };
}
