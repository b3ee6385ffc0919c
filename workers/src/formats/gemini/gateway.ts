/**
 * What the gateway needs from the Gemini API (docs/proxy.md): `POST
 * {base}/v1beta/models/{model}:generateContent` (`:streamGenerateContent?alt=sse` for a stream)
 * with `x-goog-api-key` (a client may also use `?key=`), the history in `contents`, usage in
 * `usageMetadata`, and Google API errors `{ error: { code, message, status } }` (Google Cloud
 * "API design guide: Errors").
 */
import type { GatewayFacet } from "../types.js";
import { asArray, isObject, tokenCount } from "../wire.js";
import { geminiMixedTurn } from "./mixed-turn.js";
import { geminiTranslator } from "./stream.js";

const GOOGLE_STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  413: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** The gateway facet of the Gemini API. */
export const geminiGateway: GatewayFacet = {
  family: "gemini",
  historyField: "contents",
  textHistory: false,
  usageField: "usageMetadata",
  // Gemini API reference, `UsageMetadata`: thinking tokens are counted apart from the candidates'
  // and are output the request produced.
  tokenCounts(usage) {
    if (!isObject(usage)) return { input: 0, output: 0 };
    return {
      input: tokenCount(usage.promptTokenCount),
      output: tokenCount(usage.candidatesTokenCount) + tokenCount(usage.thoughtsTokenCount),
    };
  },
  clientKeyHeader: "x-goog-api-key",
  clientKeyQuery: "key",
  upstreamKeyHeader: "x-goog-api-key",
  upstreamCredential: (key) => key,
  defaultHeaders: {},
  upstreamPath(model, stream) {
    const m = encodeURIComponent(model ?? "");
    return stream
      ? `/v1beta/models/${m}:streamGenerateContent?alt=sse`
      : `/v1beta/models/${m}:generateContent`;
  },
  // The stream is chosen by the path, not by the body.
  streamingBody: (request) => request,
  streamTranslator: (emit) => geminiTranslator(emit),
  errorBody(status, message) {
    const s = GOOGLE_STATUS[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");
    return { error: { code: status, message, status: s } };
  },
  roundContent(response) {
    const cand = asArray(response.candidates)[0];
    const content = isObject(cand) ? cand.content : undefined;
    return isObject(content)
      ? asArray(content.parts).filter((p) => !(isObject(p) && isObject(p.functionCall)))
      : [];
  },
  withEarlierContent(body, pieces) {
    const candidates = [...asArray(body.candidates)];
    const cand = candidates[0];
    if (!isObject(cand)) return body;
    const content = isObject(cand.content) ? cand.content : { role: "model" };
    candidates[0] = {
      ...cand,
      content: { ...content, parts: [...pieces, ...asArray(content.parts)] },
    };
    return { ...body, candidates };
  },
  mixedTurn: geminiMixedTurn,
};
