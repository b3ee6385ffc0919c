/**
 * JSON kept in an execution's history row, capped in bytes (`SKILLS_MAX_STORED_INPUT_BYTES`,
 * `SKILLS_MAX_STORED_OUTPUT_BYTES`). A value whose JSON text fits is stored as is. A longer one is
 * stored as a JSON string holding the longest prefix of its JSON text that keeps the stored text
 * within the cap (never splitting a character), and the row's `input_truncated` /
 * `output_truncated` flag says so.
 */

const encoder = new TextEncoder();

/** What a history row keeps of a value that `JSON.stringify` cannot serialise. */
export const UNREPRESENTABLE = "[not representable as JSON: nested too deep or cyclic]";

/** The stored JSON text of a value and whether it was cut. */
export interface StoredJson {
  /** JSON text, at most `maxBytes` UTF-8 bytes. */
  text: string;
  truncated: boolean;
}

/** UTF-8 length of `text` when it is at most `limit` bytes, else `limit + 1`; reads at most that much. */
function utf8LengthUpTo(text: string, limit: number): number {
  if (text.length * 3 <= limit) return encoder.encode(text).length;
  const { read, written } = encoder.encodeInto(text, new Uint8Array(limit + 1));
  return read < text.length ? limit + 1 : written;
}

/** The longest prefix of `text` whose UTF-8 form has at most `bytes` bytes (whole characters). */
function prefixOfBytes(text: string, bytes: number): string {
  const { read } = encoder.encodeInto(text, new Uint8Array(Math.max(0, bytes)));
  return text.slice(0, read);
}

/**
 * Serialises `value` for a history row.
 * @param value any JSON-serialisable value (undefined is stored as null).
 * @param maxBytes cap of the stored text in UTF-8 bytes (>= 16).
 * @returns the text and whether it was cut; a value `JSON.stringify` refuses (nested too deep,
 *   cyclic) is stored as the string {@link UNREPRESENTABLE}, marked truncated.
 */
export function storedJson(value: unknown, maxBytes: number): StoredJson {
  let text: string;
  try {
    text = JSON.stringify(value ?? null);
  } catch (err) {
    // Nested too deep for the recursive serialiser (or cyclic): keep a marker, never fail the
    // write that ends the execution (docs/execution.md#output-depth).
    if (!(err instanceof RangeError || err instanceof TypeError)) throw err;
    return { text: JSON.stringify(UNREPRESENTABLE), truncated: true };
  }
  if (utf8LengthUpTo(text, maxBytes) <= maxBytes) return { text, truncated: false };
  // Escaping inside a JSON string lengthens the text by a roughly even ratio: scale the prefix
  // budget by how far over the cap it came, until it fits (usually one or two rounds).
  let budget = maxBytes - 2;
  for (;;) {
    const stored = JSON.stringify(prefixOfBytes(text, budget));
    const length = encoder.encode(stored).length;
    if (length <= maxBytes) return { text: stored, truncated: true };
    budget = Math.min(budget - 1, Math.floor((budget * maxBytes) / length));
  }
}
