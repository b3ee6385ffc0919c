/**
 * Request signing between the API and the sandbox host. One implementation of the canonical
 * string, used by the signing client (workerd and Node) and by the host's verifier. WebCrypto
 * only, no Node APIs, so it runs unchanged in workerd.
 *
 * Every request carries four headers:
 * - `X-Skillgate-Key-Id`: which shared secret signed it (two ids are accepted during rotation);
 * - `X-Skillgate-Timestamp`: ms since the Unix epoch, accepted within ±300 s of the host clock;
 * - `X-Skillgate-Nonce`: 16–128 chars of `[A-Za-z0-9_-]`, never accepted twice within the window;
 * - `X-Skillgate-Signature`: lowercase hex HMAC-SHA256(secret, canonical string).
 *
 * The canonical string is the lines
 * `SKILLGATE-HMAC-SHA256-V1`, METHOD (upper case), path (as sent, percent-encoded), canonical
 * query (pairs sorted by key then value, each part `encodeURIComponent`-encoded, joined by `&`),
 * timestamp, nonce, key id, lowercase hex SHA-256 of the exact body bytes — joined by `\n`.
 */

/** Header names of a signed request. */
export const SIGNATURE_HEADERS = {
  keyId: "x-skillgate-key-id",
  timestamp: "x-skillgate-timestamp",
  nonce: "x-skillgate-nonce",
  signature: "x-skillgate-signature",
} as const;

/** First line of the canonical string; bump it when the canonical form changes. */
export const SIGNATURE_SCHEME = "SKILLGATE-HMAC-SHA256-V1";

/** Accepted clock difference between signer and verifier, in ms (±300 s). */
export const SIGNATURE_WINDOW_MS = 300_000;

const NONCE_RE = /^[A-Za-z0-9_-]{16,128}$/;
const TIMESTAMP_RE = /^\d{1,16}$/;
const SIGNATURE_RE = /^[0-9a-f]{64}$/;
const KEY_ID_RE = /^[A-Za-z0-9_.-]{1,64}$/;

const encoder = new TextEncoder();

/** Bytes → lowercase hex. */
function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/** Lowercase hex SHA-256 of `data` (a string is hashed as UTF-8). */
async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return toHex(
    new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)),
  );
}

/** Bytes of a lowercase hex string (caller checked the format). */
function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * Canonical query: pairs of a raw query string (with or without `?`) sorted by key then value,
 * re-encoded with `encodeURIComponent`, joined by `&`; `""` when there is none.
 */
export function canonicalQuery(search: string): string {
  const pairs = [...new URLSearchParams(search.startsWith("?") ? search.slice(1) : search)];
  pairs.sort(([ka, va], [kb, vb]) => (ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0));
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
}

/** The parts a signature covers. */
export interface CanonicalParts {
  method: string;
  /** URL path as sent (e.g. `/v1/run`), percent-encoded. */
  path: string;
  /** Raw query string, with or without the leading `?`. */
  query: string;
  /** ms since the Unix epoch, as sent in the header. */
  timestamp: string;
  nonce: string;
  keyId: string;
  /** Lowercase hex SHA-256 of the body bytes. */
  bodySha256: string;
}

/** Builds the canonical string of a request (see the module docstring for the exact form). */
export function canonicalString(p: CanonicalParts): string {
  return [
    SIGNATURE_SCHEME,
    p.method.toUpperCase(),
    p.path,
    canonicalQuery(p.query),
    p.timestamp,
    p.nonce,
    p.keyId,
    p.bodySha256,
  ].join("\n");
}

const keyCache = new Map<string, Promise<CryptoKey>>();

/** Imports (once per secret) an HMAC-SHA256 key usable for signing and verifying. */
function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keyCache.get(secret);
  if (!key) {
    key = crypto.subtle.importKey(
      "raw",
      encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    if (keyCache.size > 16) keyCache.clear();
    keyCache.set(secret, key);
  }
  return key;
}

/** A random nonce: 24 bytes as base64url (32 chars). */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Input of {@link signRequest}. */
export interface SignInput {
  secret: string;
  keyId: string;
  method: string;
  /** Full URL or path with query (`/v1/kill/abc?x=1`). */
  url: string;
  /** Exact body bytes (a string is taken as UTF-8); empty for none. */
  body?: Uint8Array | string;
  /** ms since the epoch; default `Date.now()`. */
  timestamp?: number;
  /** Default: a fresh random nonce. */
  nonce?: string;
}

/**
 * Signs a request. Output: the four signature headers (lower-case names) to send with it.
 * @throws Error when the secret is empty or the key id is malformed (fail closed).
 */
export async function signRequest(input: SignInput): Promise<Record<string, string>> {
  if (!input.secret) throw new Error("Sandbox signing secret is empty");
  if (!KEY_ID_RE.test(input.keyId))
    throw new Error("Sandbox key id must match [A-Za-z0-9_.-]{1,64}");
  const url = new URL(input.url, "http://signing.invalid");
  const timestamp = String(Math.floor(input.timestamp ?? Date.now()));
  const nonce = input.nonce ?? newNonce();
  const body = input.body ?? "";
  const canonical = canonicalString({
    method: input.method,
    path: url.pathname,
    query: url.search,
    timestamp,
    nonce,
    keyId: input.keyId,
    bodySha256: await sha256Hex(body),
  });
  const mac = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(input.secret),
    encoder.encode(canonical),
  );
  return {
    [SIGNATURE_HEADERS.keyId]: input.keyId,
    [SIGNATURE_HEADERS.timestamp]: timestamp,
    [SIGNATURE_HEADERS.nonce]: nonce,
    [SIGNATURE_HEADERS.signature]: toHex(new Uint8Array(mac)),
  };
}

/** Input of {@link verifyRequest}. */
export interface VerifyInput {
  /** Accepted secrets by key id (current and, during rotation, previous). */
  keys: ReadonlyMap<string, string>;
  method: string;
  path: string;
  query: string;
  /** Header lookup (case-insensitive, as `Headers.get`). */
  header: (name: string) => string | null | undefined;
  body: Uint8Array;
  /** Verifier clock in ms since the epoch. */
  now: number;
}

/** Outcome of {@link verifyRequest}; `reason` is safe to show (it names no secret). */
export type VerifyOutcome =
  | { ok: true; keyId: string; nonce: string; timestamp: number }
  | { ok: false; reason: string };

/**
 * Checks a request's signature headers, timestamp window and HMAC (constant-time comparison via
 * `crypto.subtle.verify`). Nonce replay is checked by the caller, which keeps state, after this
 * succeeds. Never throws for bad input; an empty key set rejects everything (fail closed).
 */
export async function verifyRequest(input: VerifyInput): Promise<VerifyOutcome> {
  const keyId = input.header(SIGNATURE_HEADERS.keyId) ?? "";
  const timestamp = input.header(SIGNATURE_HEADERS.timestamp) ?? "";
  const nonce = input.header(SIGNATURE_HEADERS.nonce) ?? "";
  const signature = (input.header(SIGNATURE_HEADERS.signature) ?? "").toLowerCase();
  if (!keyId || !timestamp || !nonce || !signature)
    return { ok: false, reason: "Request is not signed" };
  if (!TIMESTAMP_RE.test(timestamp) || !NONCE_RE.test(nonce) || !SIGNATURE_RE.test(signature)) {
    return { ok: false, reason: "Malformed signature headers" };
  }
  const ts = Number(timestamp);
  if (Math.abs(input.now - ts) > SIGNATURE_WINDOW_MS) {
    return { ok: false, reason: "Request timestamp is outside the accepted window" };
  }
  const secret = input.keys.get(keyId);
  if (!secret) return { ok: false, reason: "Unknown key id" };
  const canonical = canonicalString({
    method: input.method,
    path: input.path,
    query: input.query,
    timestamp,
    nonce,
    keyId,
    bodySha256: await sha256Hex(input.body),
  });
  const valid = await crypto.subtle.verify(
    "HMAC",
    await hmacKey(secret),
    fromHex(signature),
    encoder.encode(canonical),
  );
  return valid ? { ok: true, keyId, nonce, timestamp: ts } : { ok: false, reason: "Bad signature" };
}
