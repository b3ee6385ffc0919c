/**
 * One line saying why a database call failed (docs/deployment.md#when-the-database-cannot-be-reached),
 * for health answers and command-line tools: the cause at the bottom of a driver error's `cause`
 * chain (connection refused, unknown host, authentication refused, timeout, full disk, ...), never
 * the SQL text of drizzle's "Failed query: ..." wrapper nor its parameters. Pure: no driver import.
 */

/** Longest line {@link describeDatabaseError} returns, in characters. */
export const MAX_DB_ERROR_CHARS = 240;

interface ErrorLink {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
  cause?: unknown;
  status?: unknown;
}

/** The errors of a `cause` chain, outermost first (at most 8). */
function chainOf(err: unknown): ErrorLink[] {
  const out: ErrorLink[] = [];
  let e: unknown = err;
  while (out.length < 8 && e !== null && typeof e === "object") {
    out.push(e as ErrorLink);
    e = (e as ErrorLink).cause;
  }
  return out;
}

/** True for drizzle's wrapper text, which carries the SQL and its parameters. */
function isQueryText(message: string): boolean {
  return /^Failed query:/i.test(message) || /\bparams:/.test(message);
}

/**
 * Describes a database failure in one line.
 * @param err what the driver (through drizzle) threw.
 * @param target where the database is, for the message (a host, or a file path); never pass a URL
 *   with credentials.
 * @returns e.g. `connection refused by db.example:8080`, `unknown host db.example (DNS lookup
 *   failed)`, `authentication refused (HTTP 401): check LIBSQL_AUTH_TOKEN`; at most
 *   {@link MAX_DB_ERROR_CHARS} characters, no line breaks, no SQL.
 */
export function describeDatabaseError(err: unknown, target?: string): string {
  const chain = chainOf(err);
  const at = target ? ` ${target}` : "";
  const codes = chain.map((e) => (typeof e.code === "string" ? e.code : ""));
  const messages = chain.map((e) => (typeof e.message === "string" ? e.message : ""));
  const all = messages.join(" | ");
  const has = (code: string) => codes.includes(code) || all.includes(code);
  let line: string;
  if (has("ECONNREFUSED")) line = `connection refused by${at || " the database server"}`;
  else if (has("ENOTFOUND")) line = `unknown host${at} (DNS lookup failed)`;
  else if (has("EAI_AGAIN")) line = `cannot resolve${at || " the database host"} (DNS unavailable)`;
  else if (has("ETIMEDOUT") || has("UND_ERR_CONNECT_TIMEOUT"))
    line = `connection to${at || " the database server"} timed out`;
  else if (has("ECONNRESET") || has("UND_ERR_SOCKET"))
    line = `connection to${at || " the database server"} was closed`;
  else if (has("EHOSTUNREACH") || has("ENETUNREACH"))
    line = `no route to${at || " the database server"}`;
  else if (/HTTP status 40[13]\b|\b(401|403)\b.*(unauthori[sz]ed|forbidden)/i.test(all)) {
    const status = /HTTP status (40[13])/.exec(all)?.[1] ?? "401";
    line = `authentication refused (HTTP ${status}): check LIBSQL_AUTH_TOKEN`;
  } else if (/database or disk is full|ENOSPC|no space left/i.test(all))
    line = "the database's disk is full";
  else if (has("SQLITE_CANTOPEN")) line = `cannot open the database file${at}`;
  else {
    // The innermost message that is not drizzle's query text.
    const own = [...messages].reverse().find((m) => m && !isQueryText(m));
    line = own ?? "the database call failed";
  }
  const flat = line.replace(/\s+/g, " ").trim();
  return flat.length > MAX_DB_ERROR_CHARS ? `${flat.slice(0, MAX_DB_ERROR_CHARS - 1)}…` : flat;
}
