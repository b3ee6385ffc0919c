/**
 * Small crypto helpers on WebCrypto (available in workerd and Node ≥ 20).
 */

const encoder = new TextEncoder();

/** Lowercase hex SHA-256 of `data` (a string is hashed as UTF-8). */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return toHex(
    new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)),
  );
}

/** Bytes → lowercase hex. */
function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/** `n` random bytes as base64url (no padding). */
export function randomToken(n = 32): string {
  const bytes = crypto.getRandomValues(new Uint8Array(n));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Constant-time comparison of two equal-length hex digests (e.g. SHA-256 of a presented token
 * and of the expected one): the time depends only on the length, never on the content. Digests
 * of different lengths compare unequal.
 */
export function timingSafeEqualHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
