/**
 * The host's one error type: a code of the protocol's registry (@skillgate/sandbox-protocol
 * errors.ts), its HTTP status, and a message that is safe to return
 * (`{ error: { code, message } }`). Mapped to an answer in server.ts; `cause` goes to the log only.
 */
import {
  SANDBOX_ERROR_CODES,
  type SandboxErrorCode,
  type SandboxErrorStatus,
} from "@skillgate/sandbox-protocol";

export class HostError<C extends SandboxErrorCode = SandboxErrorCode> extends Error {
  /**
   * @param status HTTP status; must be the registry's status for `code` (checked by the compiler).
   * @param code a registry code, e.g. `image_unavailable`.
   * @param message human-readable, never containing secrets; default the registry's message.
   * @param retryAfterS for 429: seconds the caller should wait (`Retry-After`).
   * @param options `cause`: the underlying error, for the host's log, never for the caller.
   */
  constructor(
    readonly status: SandboxErrorStatus<C>,
    readonly code: C,
    message: string = SANDBOX_ERROR_CODES[code].message,
    readonly retryAfterS?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "HostError";
  }

  /** Whether the caller may send the same request again later (from the registry). */
  get retryable(): boolean {
    return SANDBOX_ERROR_CODES[this.code].retryable;
  }
}
