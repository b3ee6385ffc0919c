/**
 * Byte helpers shared by the builtins: base64 and UTF-8. The runtime's native `Buffer` is used when
 * there is one (Node; workerd with `nodejs_compat`), a portable implementation otherwise, so the
 * same code runs in both.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const PAD = 61; // "="

/** The parts of a native `Buffer` used here. */
interface NativeBufferClass {
  from(
    data: ArrayBufferLike,
    byteOffset: number,
    length: number,
  ): { toString(enc: "base64"): string };
  from(data: string, enc: "base64"): Uint8Array;
}
const NativeBuffer = (globalThis as { Buffer?: NativeBufferClass }).Buffer;

/** Portable base64 encoder (RFC 4648 §4, with padding), for runtimes without `Buffer`. */
export function bytesToBase64Portable(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  const whole = bytes.length - (bytes.length % 3);
  let o = 0;
  for (let i = 0; i < whole; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = CODES[n >> 18]!;
    out[o++] = CODES[(n >> 12) & 63]!;
    out[o++] = CODES[(n >> 6) & 63]!;
    out[o++] = CODES[n & 63]!;
  }
  const rest = bytes.length - whole;
  if (rest > 0) {
    const n = (bytes[whole]! << 16) | (rest === 2 ? bytes[whole + 1]! << 8 : 0);
    out[o++] = CODES[n >> 18]!;
    out[o++] = CODES[(n >> 12) & 63]!;
    out[o++] = rest === 2 ? CODES[(n >> 6) & 63]! : PAD;
    out[o++] = PAD;
  }
  // The output is ASCII, for which UTF-8 decoding is the identity.
  return new TextDecoder().decode(out);
}

/** Portable base64 decoder over `atob`, for runtimes without `Buffer`; input already validated. */
export function base64ToBytesPortable(clean: string): Uint8Array<ArrayBuffer> {
  const binary = atob(clean);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Encodes bytes as standard base64 (RFC 4648 §4, with padding). */
export function bytesToBase64(bytes: Uint8Array): string {
  if (NativeBuffer)
    return NativeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64");
  return bytesToBase64Portable(bytes);
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
  if (!NativeBuffer) return base64ToBytesPortable(clean);
  const decoded = NativeBuffer.from(clean, "base64");
  const out = new Uint8Array(decoded.length);
  out.set(decoded);
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
