/**
 * What the gateway needs from Chat Completions (docs/proxy.md): `POST {base}/chat/completions`
 * with `Authorization: Bearer`, the history in `messages`, a mixed turn split on the assistant
 * message's `tool_calls` (kept under the first client call's id), and streams that always ask
 * for usage (`stream_options.include_usage`) so that it can be summed over the rounds.
 */
import { bearer, openaiErrorBody } from "../openai-error.js";
import type { GatewayFacet, JsonObject } from "../types.js";
import { asArray, isObject, tokenCount } from "../wire.js";
import { chatTranslator } from "./stream.js";

/** Chat `choices[0]` (the replayed alternative). */
function firstChoice(response: JsonObject): JsonObject | undefined {
  const item = asArray(response.choices)[0];
  return isObject(item) ? item : undefined;
}

/** The gateway facet of Chat Completions. */
export const openaiChatGateway: GatewayFacet = {
  family: "openai",
  historyField: "messages",
  textHistory: false,
  usageField: "usage",
  // OpenAI API reference, Chat Completions object `usage`.
  tokenCounts(usage) {
    if (!isObject(usage)) return { input: 0, output: 0 };
    return {
      input: tokenCount(usage.prompt_tokens),
      output: tokenCount(usage.completion_tokens),
    };
  },
  clientKeyHeader: "authorization",
  upstreamKeyHeader: "authorization",
  upstreamCredential: bearer,
  providerHeaderPrefix: "openai-",
  defaultHeaders: {},
  upstreamPath: () => "/chat/completions",
  streamingBody(request) {
    const opts =
      typeof request.stream_options === "object" && request.stream_options !== null
        ? request.stream_options
        : {};
    return { ...request, stream: true, stream_options: { ...opts, include_usage: true } };
  },
  streamTranslator(emit, clientBody) {
    const opts = clientBody.stream_options;
    return chatTranslator(emit, isObject(opts) && opts.include_usage === true);
  },
  errorBody: openaiErrorBody,
  roundContent(response) {
    const msg = firstChoice(response)?.message;
    return isObject(msg) && typeof msg.content === "string" && msg.content !== ""
      ? [msg.content]
      : [];
  },
  withEarlierContent(body, pieces) {
    const choices = [...asArray(body.choices)];
    const choice = firstChoice(body);
    if (!choice || !isObject(choice.message)) return body;
    const own = typeof choice.message.content === "string" ? choice.message.content : "";
    // Joined without separator, as the stream's deltas join.
    const content = `${pieces.join("")}${own}`;
    choices[0] = { ...choice, message: { ...choice.message, content } };
    return { ...body, choices };
  },
  mixedTurn: {
    split({ response, ownedAt, client, followUp }) {
      const choice = asArray(response.choices)[0] as JsonObject;
      const msg = choice.message as JsonObject;
      const all = asArray(msg.tool_calls);
      const kept = all.filter((_, i) => !ownedAt.has(i));
      const choices = [...asArray(response.choices)];
      choices[0] = { ...choice, message: { ...msg, tool_calls: kept } };
      return {
        response: { ...response, choices },
        entry: { full: all, results: [...followUp] },
        keys: [client[0]!.callId],
      };
    },
    turnKeys(item) {
      if (item.role !== "assistant") return undefined;
      const first = asArray(item.tool_calls)[0];
      return isObject(first) && typeof first.id === "string" ? [first.id] : undefined;
    },
    matches: () => true,
    restore(history, at, e) {
      history[at] = { ...(history[at] as JsonObject), tool_calls: e.full };
      history.splice(at + 1, 0, ...e.results);
    },
  },
};
