/**
 * Typed errors of the API. Each carries a code of the one error registry (`@skillgate/errors`,
 * shared with the sandbox host), which gives its HTTP status and retryable flag; a human-readable
 * message (the registry's public message when none is given); optional `details` for the client;
 * and optional `cause` for the logs, never sent to the client. `app.ts` renders them as
 * `{ error: { code, message, details? } }` in one place (docs/api.md#errors).
 */
import { type CodeWithStatus, ERROR_CODES, type ErrorCode } from "@skillgate/errors";

export type { ErrorCode };

/** What an {@link AppError} may carry besides its code and message. */
export interface AppErrorOptions {
  /** Structured details for the client (e.g. failing fields, the recorded execution). */
  details?: unknown;
  /** The underlying error, for the logs only. */
  cause?: unknown;
  /** Seconds a client should wait before trying again, sent as `Retry-After` (at least 1). */
  retryAfterS?: number;
  /** Further response header fields (e.g. `RateLimit-Policy` and `RateLimit` of a 429). */
  headers?: Readonly<Record<string, string>>;
}

/** An error the API answers with: a registry code, its status, a message, details. */
export class AppError extends Error {
  /** HTTP status, from the registry. */
  readonly status: number;
  /** True when the same request may succeed later, from the registry. */
  readonly retryable: boolean;
  readonly details?: unknown;
  /** Seconds a client should wait before trying again, sent as `Retry-After`; undefined = none. */
  readonly retryAfterS?: number;
  /** Further response header fields sent with the error answer. */
  readonly headers?: Readonly<Record<string, string>>;

  /**
   * @param code a registry code (snake_case).
   * @param message human-readable; default the registry's public message.
   */
  constructor(
    readonly code: ErrorCode,
    message?: string,
    opts: AppErrorOptions = {},
  ) {
    super(message ?? ERROR_CODES[code].message, { cause: opts.cause });
    this.name = new.target.name;
    this.status = ERROR_CODES[code].status;
    this.retryable = ERROR_CODES[code].retryable;
    this.details = opts.details;
    this.headers = opts.headers;
    if (opts.retryAfterS !== undefined) this.retryAfterS = Math.max(1, Math.ceil(opts.retryAfterS));
  }
}

/** 400: the request is malformed or fails validation. `details` lists the failing fields. */
export class InvalidInputError extends AppError {
  constructor(message: string, details?: unknown, code: CodeWithStatus<400> = "invalid_input") {
    super(code, message, { details });
  }
}

/** 413: the request body is larger than the route accepts; nothing was read past the limit. */
export class PayloadTooLargeError extends AppError {
  constructor(message: string, details?: unknown, code: CodeWithStatus<413> = "payload_too_large") {
    super(code, message, { details });
  }
}

/** 401: missing or wrong credentials. */
export class UnauthorizedError extends AppError {
  constructor(message?: string, code: CodeWithStatus<401> = "unauthorized") {
    super(code, message);
  }
}

/** 403: authenticated, but not allowed to act on this resource or key. */
export class ForbiddenError extends AppError {
  constructor(message: string, code: CodeWithStatus<403> = "forbidden", details?: unknown) {
    super(code, message, { details });
  }
}

/** 404: the resource does not exist or is not visible to the caller. */
export class NotFoundError extends AppError {
  constructor(message: string, code: CodeWithStatus<404> = "not_found") {
    super(code, message);
  }
}

/** 409: the request conflicts with current state (duplicate, reserved name, wrong catalog). */
export class ConflictError extends AppError {
  constructor(message: string, code: CodeWithStatus<409> = "conflict", details?: unknown) {
    super(code, message, { details });
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
    code: "skill_disabled" | "skills_disabled" | "custom_execution_disabled" = "skill_disabled",
  ) {
    super(code, message);
  }
}

/**
 * An upstream (a catalog, GitHub raw, the sandbox host) failed or is unreachable: 502, 503, or 429
 * when its rate limit was reached.
 */
export class UpstreamError extends AppError {
  constructor(
    message: string,
    code: CodeWithStatus<502 | 503 | 429> = "upstream_failed",
    opts: AppErrorOptions = {},
  ) {
    super(code, message, opts);
  }
}

/**
 * Thrown by a skill handler to end an execution with a specific outcome (docs/execution.md#outcomes):
 * `status` `error` or `timeout`, an optional `output` kept on the row (e.g. the sandbox result with
 * stdout/stderr), a machine-readable `code`, `retryable` for errors worth another attempt
 * (an unreachable or saturated sandbox host, a handler that says so), `retryAfterS`, a
 * service's hint of when to try again (seconds), and `cause` for the logs.
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
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: opts.cause });
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

/** Driver and system codes that mean the database's disk is full (SQLite result codes, errno). */
const STORAGE_FULL_CODES = new Set(["SQLITE_FULL", "ENOSPC", "SQLITE_IOERR_WRITE"]);

/**
 * True when `err` (or an error in its `cause` chain) says the database could not write for lack
 * of space: SQLite's `SQLITE_FULL` ("database or disk is full", SQLite docs "Result and Error
 * Codes"), or `ENOSPC` from the system. Reads only codes and messages, so it knows no driver.
 */
/** The message of a `storage_full` answer (docs/execution.md#a-full-disk). */
export const STORAGE_FULL_MESSAGE =
  "The database has no space left; the request changed nothing (free space on the data disk)";

export function isStorageFull(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e !== null && typeof e === "object"; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === "string" && STORAGE_FULL_CODES.has(code)) {
      if (code !== "SQLITE_IOERR_WRITE" || /ENOSPC|no space/i.test(String(message))) return true;
    }
    if (
      typeof message === "string" &&
      /database or disk is full|ENOSPC|no space left/i.test(message)
    )
      return true;
    e = cause;
  }
  return false;
}
