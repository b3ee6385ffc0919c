/**
 * Error codes of the sandbox host: one registry, read by the host (which answers with them) and
 * by the API (which passes them on without renaming them). Each code has its HTTP status, whether
 * the same request may succeed when sent again later, and a public message that describes the
 * code to a caller (the host's answer may carry a more specific message).
 */

/** What a code means on the wire. */
export interface SandboxErrorSpec {
  /** HTTP status the host answers with. */
  readonly status: number;
  /** True when sending the same request again later may succeed (capacity, engine, restart). */
  readonly retryable: boolean;
  /** Public, human-readable description; never names a secret or an internal host. */
  readonly message: string;
}

/** Every error code of the sandbox host. */
export const SANDBOX_ERROR_CODES = {
  invalid_json: { status: 400, retryable: false, message: "Request body is not valid JSON" },
  invalid_input: {
    status: 400,
    retryable: false,
    message: "The run request breaks the protocol or the host's limits",
  },
  unauthorized: {
    status: 401,
    retryable: false,
    message: "Request is not signed, or its signature, timestamp or nonce is refused",
  },
  not_found: { status: 404, retryable: false, message: "No such route" },
  run_exists: { status: 409, retryable: false, message: "A run with this id is already active" },
  killed: { status: 409, retryable: false, message: "Run was killed before it started" },
  body_too_large: { status: 413, retryable: false, message: "Request body is too large" },
  image_not_allowed: {
    status: 422,
    retryable: false,
    message: "Image is invalid or not on the sandbox allowlist",
  },
  busy: { status: 429, retryable: true, message: "Sandbox host is at capacity; retry later" },
  internal_error: { status: 500, retryable: false, message: "Internal sandbox host error" },
  image_unavailable: {
    status: 503,
    retryable: false,
    message: "Image is not available on the sandbox host and could not be pulled",
  },
  docker_unavailable: {
    status: 503,
    retryable: true,
    message: "Docker engine is not available on the sandbox host",
  },
  shutting_down: { status: 503, retryable: true, message: "Sandbox host is shutting down" },
} as const satisfies Record<string, SandboxErrorSpec>;

/** A code of {@link SANDBOX_ERROR_CODES}. */
export type SandboxErrorCode = keyof typeof SANDBOX_ERROR_CODES;

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
