/**
 * What the gateway needs from Anthropic Messages (docs/proxy.md): `POST {base}/v1/messages` with
 * `x-api-key` and `anthropic-version` (2023-06-01 unless the client sends its own), the history
 * in `messages`, a mixed turn split on the assistant's `tool_use` blocks (the owned
 * `tool_result` blocks put back at the start of the next user message), and the error shape
 * `{ type: "error", error: { type, message } }` (Anthropic docs "Errors").
 */
import type { GatewayFacet } from "../types.js";
import { asArray, isObject, tokenCount } from "../wire.js";
import { anthropicTranslator } from "./stream.js";

const ANTHROPIC_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  503: "overloaded_error",
  504: "timeout_error",
  529: "overloaded_error",
};

/** The gateway facet of Anthropic Messages. */
export const anthropicGateway: GatewayFacet = {
  family: "anthropic",
  historyField: "messages",
  textHistory: false,
  usageField: "usage",
  // Anthropic's Messages API reference, "usage": the input is split into uncached, cache-write and
  // cache-read tokens; all three are input the request consumed.
  tokenCounts(usage) {
    if (!isObject(usage)) return { input: 0, output: 0 };
    return {
      input:
        tokenCount(usage.input_tokens) +
        tokenCount(usage.cache_creation_input_tokens) +
        tokenCount(usage.cache_read_input_tokens),
      output: tokenCount(usage.output_tokens),
    };
  },
  clientKeyHeader: "x-api-key",
  upstreamKeyHeader: "x-api-key",
  upstreamCredential: (key) => key,
  providerHeaderPrefix: "anthropic-",
  defaultHeaders: { "anthropic-version": "2023-06-01" },
  upstreamPath: () => "/v1/messages",
  streamingBody: (request) => ({ ...request, stream: true }),
  streamTranslator: (emit) => anthropicTranslator(emit),
  errorBody(status, message) {
    const type = ANTHROPIC_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
    return { type: "error", error: { type, message } };
  },
  roundContent: (response) =>
    asArray(response.content).filter((b) => !(isObject(b) && b.type === "tool_use")),
  withEarlierContent: (body, pieces) => ({
    ...body,
    content: [...pieces, ...asArray(body.content)],
  }),
  mixedTurn: {
    split({ response, ownedAt, client, followUp }) {
      const content = asArray(response.content);
      let n = 0;
      const kept = content.filter(
        (b) => !(isObject(b) && b.type === "tool_use" && ownedAt.has(n++)),
      );
      const results = followUp.flatMap((m) => asArray((m as { content?: unknown }).content));
      return {
        response: { ...response, content: kept },
        entry: { full: content, results },
        keys: [client[0]!.callId],
      };
    },
    turnKeys(item) {
      if (item.role !== "assistant") return undefined;
      const first = asArray(item.content).find((b) => isObject(b) && b.type === "tool_use");
      return isObject(first) && typeof first.id === "string" ? [first.id] : undefined;
    },
    matches: () => true,
    restore(history, at, e) {
      const turn = history[at] as Record<string, unknown>;
      const next = history[at + 1];
      history[at] = { ...turn, content: e.full };
      if (isObject(next) && next.role === "user") {
        const content =
          typeof next.content === "string"
            ? [{ type: "text", text: next.content }]
            : asArray(next.content);
        history[at + 1] = { ...next, content: [...e.results, ...content] };
      } else history.splice(at + 1, 0, { role: "user", content: e.results });
    },
  },
};
