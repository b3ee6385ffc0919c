/**
 * Typed errors of the product. Each carries an HTTP status, a machine-readable `code` and a
 * human-readable message; `app.ts` maps them to the envelope `{ error: { code, message, details? } }`
 * in one place (docs/api.md#errors).
 */
export class AppError extends Error {
  /** Seconds a client should wait before trying again, sent as `Retry-After`; undefined = none. */
  retryAfterS?: number;
  /**
   * @param status HTTP status the error maps to.
   * @param code machine-readable code, snake_case.
   * @param message human-readable message.
   * @param details optional structured details (e.g. failing fields).
   */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: the request is malformed or fails validation. `details` lists the failing fields. */
export class InvalidInputError extends AppError {
  constructor(message: string, details?: unknown, code = "invalid_input") {
    super(400, code, message, details);
  }
}

/** 413: the request body is larger than the route accepts; nothing was read past the limit. */
export class PayloadTooLargeError extends AppError {
  constructor(message: string, details?: unknown, code = "payload_too_large") {
    super(413, code, message, details);
  }
}

/** 401: missing or wrong credentials. */
export class UnauthorizedError extends AppError {
  constructor(message = "Missing or invalid credentials", code = "unauthorized") {
    super(401, code, message);
  }
}

/** 403: authenticated, but not allowed to act on this resource or key. */
export class ForbiddenError extends AppError {
  constructor(message: string, code = "forbidden", details?: unknown) {
    super(403, code, message, details);
  }
}

/** 404: the resource does not exist or is not visible to the caller. */
export class NotFoundError extends AppError {
  constructor(message: string, code = "not_found") {
    super(404, code, message);
  }
}

/** 409: the request conflicts with current state (duplicate, reserved name, wrong provider). */
export class ConflictError extends AppError {
  constructor(message: string, code = "conflict", details?: unknown) {
    super(409, code, message, details);
  }
}

/**
 * A feature or skill is switched off. `skill_disabled` (mode off) answers 409; the master switch
 * (`skills_disabled`) answers 503 with a message beginning "Skills execution is disabled"
 * (docs/policies.md#the-master-switch).
 */
export class DisabledError extends AppError {
  constructor(
    message: string,
    code: "skill_disabled" | "skills_disabled" | string = "skill_disabled",
  ) {
    super(code === "skills_disabled" ? 503 : 409, code, message);
  }
}

/** 502/503: an upstream (sandbox host, catalog, provider) failed or is unreachable. */
export class UpstreamError extends AppError {
  constructor(message: string, code = "upstream_failed", status = 502, details?: unknown) {
    super(status, code, message, details);
  }
}

/**
 * 429: a shared service (e.g. the sandbox host) had no capacity and nothing ran; the client
 * should try again after `retryAfterS` seconds (sent as `Retry-After`, RFC 9110 §10.2.3).
 */
export class BusyError extends AppError {
  constructor(message: string, code: string, retryAfterS: number, details?: unknown) {
    super(429, code, message, details);
    this.retryAfterS = Math.max(1, Math.ceil(retryAfterS));
  }
}

/**
 * Thrown by a skill handler to end an execution with a specific outcome (README "Errors"):
 * `status` `error` or `timeout`, an optional `output` kept on the row (e.g. the sandbox result with
 * stdout/stderr), a machine-readable `code`, `retryable` for errors worth another attempt
 * (an unreachable or saturated sandbox host, a handler that says so), and `retryAfterS`, a
 * service's hint of when to try again (seconds).
 */
export class ExecutionFailure extends Error {
  readonly status: "error" | "timeout";
  readonly code: string;
  readonly output: unknown;
  readonly retryable: boolean;
  readonly retryAfterS: number | undefined;
  /**
   * True only when the work certainly did not start (the sandbox host refused the connection or
   * answered 429): the same run may then be sent to another host without running it twice.
   */
  readonly notStarted: boolean;
  constructor(
    message: string,
    opts: {
      status?: "error" | "timeout";
      code?: string;
      output?: unknown;
      retryable?: boolean;
      retryAfterS?: number;
      notStarted?: boolean;
    } = {},
  ) {
    super(message);
    this.name = "ExecutionFailure";
    this.status = opts.status ?? "error";
    this.code = opts.code ?? (this.status === "timeout" ? "timeout" : "handler_error");
    this.output = opts.output;
    this.retryable = opts.retryable ?? false;
    this.retryAfterS = opts.retryAfterS;
    this.notStarted = opts.notStarted ?? false;
  }
}

/** A handler error that asks the executor for another attempt (docs/execution.md#retries). */
export class RetryableError extends ExecutionFailure {
  constructor(message: string, code = "retryable_error") {
    super(message, { code, retryable: true });
    this.name = "RetryableError";
  }
}
