/**
 * Checks the `handler` of an install request (docs/custom-skills.md) and turns it into what the
 * registry stores: the executor handler name, the stored spec, the time limit and, for an HTTP
 * handler, a fresh signing secret (shown once in the install answer).
 */
import { MAX_SANDBOX_TIMEOUT_MS } from "@skillgate/sandbox-protocol";
import { InvalidInputError } from "../../errors.js";
import type { HandlerSpec } from "../types.js";
import { CODE_HANDLER_NAME, codeSha256, MAX_CODE_CHARS } from "./code.js";
import { HTTP_HANDLER_NAME, originAllowed } from "./http.js";
import { MCP_HANDLER_NAME } from "./mcp-import.js";
import { newWebhookSecret } from "./webhook-signing.js";

/** Handler names that only skills with a `handler` spec may carry. */
export const SPEC_HANDLER_NAMES: ReadonlySet<string> = new Set([
  HTTP_HANDLER_NAME,
  CODE_HANDLER_NAME,
  MCP_HANDLER_NAME,
]);

/** Smallest and largest memory limit a code skill may ask for, in MB (the host caps further). */
export const MIN_CODE_MEMORY_MB = 16;
export const MAX_CODE_MEMORY_MB = 65_536;

/** `handler` of an install request. */
export type HandlerInstall =
  | { type: "http"; url: string; method?: "POST" | "PUT" | "PATCH"; timeoutMs?: number }
  | {
      type: "code";
      language: "python" | "node";
      code: string;
      timeoutMs?: number;
      memoryMb?: number;
    };

/** What the registry stores for a handler spec. */
export interface PreparedHandler {
  handlerCode: string;
  handler: HandlerSpec;
  /** The handler's own time limit in ms, when it set one. */
  timeoutMs: number | undefined;
  /** Signing secret of an HTTP handler; null for code. */
  secret: string | null;
}

function invalid(field: string, message: string): never {
  throw new InvalidInputError(message, [{ field, message }]);
}

/**
 * Validates `spec` and prepares it for storage.
 * @param allowlist origins of `SKILLS_HTTP_HANDLER_ALLOWLIST`.
 * @throws InvalidInputError `url_not_allowed` for an HTTP URL whose origin is not on the
 *   allowlist (or an empty allowlist); `invalid_input` naming `handler.*` for a bad code skill.
 */
export async function prepareHandler(
  spec: HandlerInstall,
  allowlist: readonly string[],
): Promise<PreparedHandler> {
  if (spec.type === "http") {
    if (!originAllowed(spec.url, allowlist)) {
      throw new InvalidInputError(
        allowlist.length === 0
          ? "HTTP handlers are disabled: SKILLS_HTTP_HANDLER_ALLOWLIST is empty"
          : `The origin of ${spec.url} is not on SKILLS_HTTP_HANDLER_ALLOWLIST`,
        [{ field: "handler.url", message: "origin not allowed" }],
        "url_not_allowed",
      );
    }
    return {
      handlerCode: HTTP_HANDLER_NAME,
      handler: { type: "http", url: new URL(spec.url).href, method: spec.method ?? "POST" },
      timeoutMs: spec.timeoutMs,
      secret: newWebhookSecret(),
    };
  }
  if (spec.code.trim() === "") invalid("handler.code", "code must not be empty");
  if (spec.code.length > MAX_CODE_CHARS)
    invalid("handler.code", `code is longer than ${MAX_CODE_CHARS} characters`);
  if (spec.timeoutMs !== undefined && spec.timeoutMs > MAX_SANDBOX_TIMEOUT_MS)
    invalid("handler.timeoutMs", `timeoutMs must be at most ${MAX_SANDBOX_TIMEOUT_MS}`);
  if (
    spec.memoryMb !== undefined &&
    (spec.memoryMb < MIN_CODE_MEMORY_MB || spec.memoryMb > MAX_CODE_MEMORY_MB)
  )
    invalid(
      "handler.memoryMb",
      `memoryMb must be between ${MIN_CODE_MEMORY_MB} and ${MAX_CODE_MEMORY_MB}`,
    );
  return {
    handlerCode: CODE_HANDLER_NAME,
    handler: {
      type: "code",
      language: spec.language,
      code: spec.code,
      sha256: await codeSha256(spec.code),
      memoryMb: spec.memoryMb ?? null,
    },
    timeoutMs: spec.timeoutMs,
    secret: null,
  };
}
