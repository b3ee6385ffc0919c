/**
 * What the proxy needs to know about each wire format beyond injection and interception
 * (docs/proxy.md): where the client puts its key, where the history sits, the usage field, the
 * upstream path and credential header, and the error body each official SDK parses.
 * Error shapes follow each provider's documentation: OpenAI `{ error: { message, type, code } }`,
 * Anthropic `{ type: "error", error: { type, message } }`, Gemini (Google API errors)
 * `{ error: { code, message, status } }`.
 */
import type { ErrorCode } from "@skillgate/errors";
import type { UpstreamFamily } from "../services/proxy.js";
import type { JsonObject, WireFormat } from "./domain.js";

/** The upstream family a format is sent to. */
export type { UpstreamFamily } from "../services/proxy.js";

/** Per-format facts used by the proxy. */
export interface ProxyFormat {
  format: WireFormat;
  family: UpstreamFamily;
  /** Request field holding the conversation. */
  historyField: "messages" | "input" | "contents";
  /** Response field holding token usage. */
  usageField: "usage" | "usageMetadata";
  /** Header the client SDK sends its key in (lower case). */
  clientKeyHeader: "authorization" | "x-api-key" | "x-goog-api-key";
  /** Header the upstream expects its credential in. */
  upstreamKeyHeader: "authorization" | "x-api-key" | "x-goog-api-key";
  /**
   * Builds the error body of `status` with `message` in the format's own shape; `code` (a code of
   * the error registry, packages/errors) is carried where the shape has a code field (OpenAI).
   */
  errorBody(status: number, message: string, code: ErrorCode): JsonObject;
}

const OPENAI_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "invalid_request_error",
  429: "rate_limit_error",
};
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

function openaiError(status: number, message: string, code: ErrorCode): JsonObject {
  const type = OPENAI_TYPES[status] ?? (status >= 500 ? "server_error" : "invalid_request_error");
  return { error: { message, type, param: null, code } };
}

const openaiBase = {
  family: "openai",
  usageField: "usage",
  clientKeyHeader: "authorization",
  upstreamKeyHeader: "authorization",
  errorBody: openaiError,
} as const;

const FORMATS: Record<WireFormat, ProxyFormat> = {
  "openai-chat": { ...openaiBase, format: "openai-chat", historyField: "messages" },
  "openai-responses": { ...openaiBase, format: "openai-responses", historyField: "input" },
  anthropic: {
    format: "anthropic",
    family: "anthropic",
    historyField: "messages",
    usageField: "usage",
    clientKeyHeader: "x-api-key",
    upstreamKeyHeader: "x-api-key",
    errorBody(status, message) {
      const type =
        ANTHROPIC_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
      return { type: "error", error: { type, message } };
    },
  },
  gemini: {
    format: "gemini",
    family: "gemini",
    historyField: "contents",
    usageField: "usageMetadata",
    clientKeyHeader: "x-goog-api-key",
    upstreamKeyHeader: "x-goog-api-key",
    errorBody(status, message) {
      const s = GOOGLE_STATUS[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");
      return { error: { code: status, message, status: s } };
    },
  },
};

/** The proxy facts of `format`. */
export function proxyFormat(format: WireFormat): ProxyFormat {
  return FORMATS[format];
}

/**
 * Adds every number of `b` into `a` (nested objects too), as usage objects are summed over
 * rounds; `a` may be undefined. Non-numeric fields keep the latest value.
 */
export function sumUsage(a: unknown, b: unknown): unknown {
  if (typeof b === "number") return (typeof a === "number" ? a : 0) + b;
  if (typeof b !== "object" || b === null || Array.isArray(b)) return b ?? a;
  const base = typeof a === "object" && a !== null && !Array.isArray(a) ? (a as JsonObject) : {};
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(b as JsonObject)) out[k] = sumUsage(base[k], v);
  return out;
}
