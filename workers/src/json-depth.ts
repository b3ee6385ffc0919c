/**
 * Nesting depth of JSON text, measured without parsing and without recursion, so that a hostile
 * body (thousands of nested `[` or `{`) is refused before any recursive code (validation, schema
 * normalisation, `JSON.stringify`) can exhaust the call stack. The body itself is level 1:
 * `{}` has depth 1, `{"a":[1]}` depth 2; brackets inside strings do not count.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON text nests objects and arrays deeper than `maxDepth`. Runs in one pass over the
 * characters (O(n), constant memory); stops at the first level past the limit. Text that is not
 * valid JSON gets an answer too (its parse fails later anyway).
 * @param text JSON text.
 * @param maxDepth deepest level allowed (>= 1).
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

/**
 * The same measure over bytes arriving in chunks (UTF-8 JSON text), for a body checked while it is
 * read: the structural characters are ASCII, so a byte of a multi-byte character never counts, and
 * an escape or a string split between two chunks carries over. O(n) over all chunks, constant
 * memory.
 */
export class JsonDepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;

  /** @param maxDepth deepest level allowed (>= 1). */
  constructor(private readonly maxDepth: number) {}

  /**
   * Scans the next chunk of the text.
   * @returns true once the text has nested deeper than the limit (stop reading then).
   */
  push(chunk: Uint8Array): boolean {
    let { depth, inString, escaped } = this;
    const max = this.maxDepth;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++depth > max) {
          this.depth = depth;
          return true;
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return false;
  }
}

/**
 * Deepest nesting Skillgate keeps of JSON it did not receive as a client's request body: skill
 * outputs (docs/execution.md#output-depth) and upstream provider answers (docs/proxy.md). Well
 * below the depth at which V8's recursive `JSON.stringify` exhausts the call stack (a few
 * thousand levels), and as deep as `MAX_JSON_DEPTH`'s largest setting, so an input the API
 * accepted (nested inside its request body) can always come back as an output.
 */
export const MAX_VALUE_DEPTH = 256;

/**
 * Whether a JavaScript value nests objects and arrays deeper than `maxDepth` (a scalar has depth
 * 0, `[]` and `{}` depth 1). Iterative (no recursion), O(size); an object met again (a shared or
 * cyclic reference) is not walked twice, and a cycle counts as too deep.
 * @param value any value (typically parsed JSON or a handler's output).
 * @param maxDepth deepest level allowed (>= 0).
 */
export function valueDepthExceeds(value: unknown, maxDepth: number): boolean {
  const seen = new WeakSet<object>();
  const onPath = new WeakSet<object>();
  const stack: Array<[unknown, number, boolean]> = [[value, 0, false]];
  while (stack.length > 0) {
    const [v, depth, leaving] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (leaving) {
      onPath.delete(v);
      continue;
    }
    if (onPath.has(v)) return true;
    if (seen.has(v)) continue;
    if (depth + 1 > maxDepth) return true;
    seen.add(v);
    onPath.add(v);
    stack.push([v, depth, true]);
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1, false]);
    }
  }
  return false;
}
