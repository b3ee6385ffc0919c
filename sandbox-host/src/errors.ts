/**
 * The host's one error type: an HTTP status, a machine-readable code and a message that is safe
 * to return (`{ error: { code, message } }`; docs/sandbox.md#errors). Mapped in server.ts.
 */
export class HostError extends Error {
  /**
   * @param status HTTP status (400 invalid input, 401 unauthorized, 404 unknown run, 409 conflict,
   *   413 body too large, 422 image not allowed, 429 busy, 503 image or Docker unavailable).
   * @param code snake_case code, e.g. `image_unavailable`.
   * @param message human-readable, never containing secrets.
   * @param retryAfterS for 429: seconds the caller should wait.
   */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = "HostError";
  }
}
