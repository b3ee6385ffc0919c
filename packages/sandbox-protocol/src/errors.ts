/**
 * Error codes of the sandbox host: the part of Skillgate's one error registry
 * (`@skillgate/errors`) that the host answers with. The host reads them to build its answers; the
 * API passes them on to its callers without renaming them. Each code has its HTTP status, whether
 * the same request may succeed when sent again later, and a public message that describes the
 * code to a caller (the host's answer may carry a more specific message).
 */
import { ERROR_CODES, type ErrorSpec } from "@skillgate/errors";

/** What a code means on the wire (the registry's entry). */
export type SandboxErrorSpec = ErrorSpec;

/** The codes the sandbox host answers with. */
const HOST_CODES = [
  "invalid_json",
  "invalid_input",
  "unauthorized",
  "not_found",
  "run_exists",
  "killed",
  "body_too_large",
  "image_not_allowed",
  "busy",
  "queue_timeout",
  "internal_error",
  "image_unavailable",
  "docker_unavailable",
  "shutting_down",
] as const;

/** A code the sandbox host answers with. */
export type SandboxErrorCode = (typeof HOST_CODES)[number];

/** Every error code of the sandbox host, with its registry entry. */
export const SANDBOX_ERROR_CODES = Object.fromEntries(
  HOST_CODES.map((code) => [code, ERROR_CODES[code]]),
) as { readonly [C in SandboxErrorCode]: (typeof ERROR_CODES)[C] };

/** The HTTP status of code `C`, as a literal type (so a status that disagrees does not compile). */
export type SandboxErrorStatus<C extends SandboxErrorCode> =
  (typeof SANDBOX_ERROR_CODES)[C]["status"];

/** True when `code` is one of the host's error codes. */
export function isSandboxErrorCode(code: string): code is SandboxErrorCode {
  return Object.hasOwn(SANDBOX_ERROR_CODES, code);
}

/** The registry entry of `code`, or undefined for a code the host does not define. */
export function sandboxErrorSpec(code: string): SandboxErrorSpec | undefined {
  return isSandboxErrorCode(code) ? SANDBOX_ERROR_CODES[code] : undefined;
}
