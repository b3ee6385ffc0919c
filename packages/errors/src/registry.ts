/**
 * Lookups over {@link ERROR_CODES} (codes.ts) and the types that tie a code to its HTTP status,
 * so that an error whose status disagrees with the registry does not compile.
 */
import { ERROR_CODES } from "./codes.js";

/** What a code means on the wire. */
export interface ErrorSpec {
  /** HTTP status of an answer carrying this code. */
  readonly status: number;
  /** True when sending the same request again later may succeed (capacity, an upstream, a restart). */
  readonly retryable: boolean;
  /** Public, human-readable description; never names a secret or an internal host. */
  readonly message: string;
}

/** A code of the registry. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The HTTP status of code `C`, as a literal type. */
export type StatusOf<C extends ErrorCode> = (typeof ERROR_CODES)[C]["status"];

/** The codes whose HTTP status is one of `S` (e.g. `CodeWithStatus<404>`: every not-found code). */
export type CodeWithStatus<S extends number> = {
  [C in ErrorCode]: StatusOf<C> extends S ? C : never;
}[ErrorCode];

/** True when `code` is a registered code. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** The registry entry of `code`, or undefined for an unregistered code. */
export function errorSpec(code: string): ErrorSpec | undefined {
  return isErrorCode(code) ? ERROR_CODES[code] : undefined;
}
