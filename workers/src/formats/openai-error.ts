/**
 * The error body of the two OpenAI formats (Chat Completions and Responses), as the official
 * `openai` SDK parses it: `{ error: { message, type, param, code } }` (OpenAI API reference,
 * "Error codes").
 */
import type { ErrorCode } from "@skillgate/errors";
import type { JsonObject } from "./types.js";

const OPENAI_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "invalid_request_error",
  429: "rate_limit_error",
};

/** The OpenAI error body of `status`; `code` is a code of the error registry (packages/errors). */
export function openaiErrorBody(status: number, message: string, code: ErrorCode): JsonObject {
  const type = OPENAI_TYPES[status] ?? (status >= 500 ? "server_error" : "invalid_request_error");
  return { error: { message, type, param: null, code } };
}

/** `Bearer <key>`, the credential header value of every OpenAI endpoint. */
export function bearer(key: string): string {
  return `Bearer ${key}`;
}
