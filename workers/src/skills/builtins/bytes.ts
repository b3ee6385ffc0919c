/**
 * Byte helpers shared by the builtins: base64 and UTF-8 without `Buffer`, so they run in workerd
 * as well as in Node.
 */

const CHUNK = 0x8000;

/** Encodes bytes as standard base64 (RFC 4648 §4, with padding). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

/**
 * Decodes standard base64 (RFC 4648 §4). Line breaks are ignored; padding is optional.
 * @throws TypeError when the text is not base64 (other characters, impossible length).
 */
export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const clean = text.replace(/[\r\n]/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    throw new TypeError("content is not valid base64");
  }
  const binary = atob(clean);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Encodes a string as UTF-8 bytes. */
export function utf8Encode(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(text);
}

/**
 * Decodes UTF-8 strictly.
 * @throws TypeError when the bytes are not valid UTF-8.
 */
export function utf8DecodeStrict(bytes: Uint8Array): string {
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
}

/** Joins byte chunks into one array of `total` bytes (the sum of the chunk lengths when omitted). */
export function concatBytes(
  chunks: readonly Uint8Array[],
  total?: number,
): Uint8Array<ArrayBuffer> {
  const size = total ?? chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    if (offset >= size) break;
    const part = chunk.length > size - offset ? chunk.subarray(0, size - offset) : chunk;
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Hex SHA-256 of a UTF-8 string, via WebCrypto (available in Node 22 and workerd). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", utf8Encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
