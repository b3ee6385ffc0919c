/**
 * Request authentication of the sandbox host: body size checked before hashing, signature
 * verified (`verifyRequest` of @skillgate/sandbox-protocol, the same canonical form the API signs
 * with) before anything is parsed, timestamp within ±300 s, nonce
 * never accepted twice within the window, two key ids accepted for rotation. Failures answer 401
 * and nothing runs.
 */
import { SIGNATURE_HEADERS, SIGNATURE_WINDOW_MS, verifyRequest } from "@skillgate/sandbox-protocol";
import type { MiddlewareHandler } from "hono";
import { HostError } from "./errors.js";

/** Nonces seen within the signature window; bounded in size. */
export class NonceStore {
  private readonly seen = new Map<string, number>();

  /** @param maxEntries upper bound of remembered nonces (past it, requests are refused: 429). */
  constructor(private readonly maxEntries = 1_000_000) {}

  /**
   * Records a nonce of a verified request signed at `timestamp` (ms). Output: false when the
   * nonce was already used (a replay).
   * @throws HostError 429 `busy` when the store is full of unexpired nonces (fail closed).
   */
  remember(nonce: string, timestamp: number, now: number): boolean {
    if (this.seen.has(nonce)) return false;
    if (this.seen.size >= this.maxEntries) this.prune(now);
    if (this.seen.size >= this.maxEntries)
      throw new HostError(429, "busy", "Too many requests in the signature window");
    this.seen.set(nonce, Math.max(timestamp, now) + SIGNATURE_WINDOW_MS);
    if (this.seen.size % 1024 === 0) this.prune(now);
    return true;
  }

  private prune(now: number): void {
    for (const [nonce, expires] of this.seen) if (expires < now) this.seen.delete(nonce);
  }
}

/**
 * Reads a request body of at most `maxBytes` bytes (Content-Length checked first, then the
 * stream counted while reading).
 * @throws HostError 413 `body_too_large`.
 */
export async function readBody(req: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > maxBytes)
    throw new HostError(413, "body_too_large", `Request body exceeds ${maxBytes} bytes`);
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new HostError(413, "body_too_large", `Request body exceeds ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    body.set(c, offset);
    offset += c.byteLength;
  }
  return body;
}

/** Variables the auth middleware sets on the context. */
export type AuthVariables = { body: Uint8Array; keyId: string };

/**
 * Hono middleware that authenticates every request and stores the verified body bytes in
 * `c.var.body`. `keys` maps key id → secret; an empty map refuses everything.
 * @throws HostError 401 `unauthorized` (unsigned, malformed, unknown key, stale, tampered,
 *   replayed), 413 `body_too_large`.
 */
export function signatureAuth(opts: {
  keys: ReadonlyMap<string, string>;
  maxBodyBytes: number;
  nonces: NonceStore;
  now?: () => number;
}): MiddlewareHandler<{ Variables: AuthVariables }> {
  const now = opts.now ?? Date.now;
  return async (c, next) => {
    if (Object.values(SIGNATURE_HEADERS).some((h) => !c.req.header(h))) {
      throw new HostError(401, "unauthorized", "Request is not signed");
    }
    const body = await readBody(c.req.raw, opts.maxBodyBytes);
    const url = new URL(c.req.url);
    const outcome = await verifyRequest({
      keys: opts.keys,
      method: c.req.method,
      path: url.pathname,
      query: url.search,
      header: (name) => c.req.header(name),
      body,
      now: now(),
    });
    if (!outcome.ok) throw new HostError(401, "unauthorized", outcome.reason);
    if (!opts.nonces.remember(outcome.nonce, outcome.timestamp, now())) {
      throw new HostError(401, "unauthorized", "Nonce was already used");
    }
    c.set("body", body);
    c.set("keyId", outcome.keyId);
    await next();
  };
}
