/**
 * Names the network cause of a failed `fetch` (docs/outbound.md#failures): the code at the bottom
 * of the error's `cause` chain (undici puts the system error there, behind "fetch failed"), as a
 * short phrase, so that a refusal by policy, a failed name resolution and a refused or broken
 * connection read differently. Shared by the API (its fetches, `http_request`) and the sandbox
 * host's egress proxy (Node's `dns` and `net` errors carry the code on the error itself). Pure: no
 * runtime import.
 */

/** The kind of a network failure. */
export type NetworkFailureKind = "dns" | "refused" | "timeout" | "reset" | "unreachable" | "other";

/** A network failure, described. */
export interface NetworkFailure {
  kind: NetworkFailureKind;
  /** e.g. `connection refused`, `name not resolved (DNS lookup failed)`; one line. */
  phrase: string;
  /** The system code that decided (`ECONNREFUSED`, `ENOTFOUND`, ...), when there is one. */
  code?: string;
}

const PHRASES: [RegExp, NetworkFailureKind, string][] = [
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)$/, "dns", "name not resolved (DNS lookup failed)"],
  [/^ECONNREFUSED$/, "refused", "connection refused"],
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT)$/, "timeout", "connection timed out"],
  [/^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/, "reset", "connection closed by the peer"],
  [/^(EHOSTUNREACH|ENETUNREACH|ENETDOWN)$/, "unreachable", "no route to the host"],
];

/**
 * Describes `err` (what `fetch` threw).
 * @returns the failure's kind and phrase; `other` with the innermost message (at most 200
 *   characters, one line) when no known code is found.
 */
export function describeNetworkError(err: unknown): NetworkFailure {
  let e: unknown = err;
  let innermost = "";
  for (let depth = 0; depth < 8 && e !== null && typeof e === "object"; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === "string") {
      for (const [re, kind, phrase] of PHRASES) if (re.test(code)) return { kind, phrase, code };
    }
    if (typeof message === "string" && message) innermost = message;
    e = cause;
  }
  const flat = (innermost || String(err)).replace(/\s+/g, " ").trim().slice(0, 200);
  return { kind: "other", phrase: flat };
}
