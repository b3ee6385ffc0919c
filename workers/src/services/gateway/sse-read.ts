/**
 * Server-sent events in both directions (the WHATWG HTML "server-sent events" parsing rules):
 * reading an upstream stream into events (writing them is formats/sse-frame.ts). Reading uses
 * `eventsource-parser`, whose buffering is linear in the input (a line's pieces are kept and
 * joined once, when the line ends), with one streaming UTF-8 decoder per stream; it handles
 * comment lines, `id:`/`retry:` fields, CRLF / CR / LF line endings, long lines and multi-byte
 * characters split across network reads. A line longer than `maxLineChars` or an event larger
 * than `maxEventChars` ends the read with a 502 `upstream_too_large` (docs/proxy.md#limits), so
 * each network read costs work in proportion to its own size and memory stays bounded.
 */
import { createParser, type ParseError } from "eventsource-parser";
import type { SseEvent } from "../../formats/sse-frame.js";
import { UpstreamFailure } from "./upstream.js";

/** Size limits of one upstream event stream, in characters (UTF-16 code units). */
export interface SseLimits {
  /** Longest line (`PROXY_SSE_MAX_LINE_CHARS`). */
  maxLineChars: number;
  /** Largest event: its data so far plus the line being read (`PROXY_SSE_MAX_EVENT_CHARS`). */
  maxEventChars: number;
}

/** The defaults of docs/configuration.md (4 Mi characters each). */
export const DEFAULT_SSE_LIMITS: SseLimits = { maxLineChars: 4_194_304, maxEventChars: 4_194_304 };

/** Length of the longest line of `text`, its unterminated end included (a single pass). */
function longestLine(text: string): number {
  let longest = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch !== 10 && ch !== 13) continue;
    longest = Math.max(longest, i - start);
    start = i + 1;
  }
  return Math.max(longest, text.length - start);
}

function tooLarge(what: string, limit: number): UpstreamFailure {
  return new UpstreamFailure(
    502,
    `The upstream stream sent ${what} longer than ${limit} characters`,
    "upstream_too_large",
  );
}

/**
 * The events of `body`, in order, as they complete. An event cut short by the end of the stream
 * is discarded.
 * @throws UpstreamFailure 502 `upstream_too_large` past a limit of `limits` (the body is then
 *   cancelled); the reader's error when the connection fails mid-stream.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  limits: SseLimits = DEFAULT_SSE_LIMITS,
): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  let ready: SseEvent[] = [];
  let failure: UpstreamFailure | undefined;
  const parser = createParser({
    maxBufferSize: limits.maxEventChars,
    onEvent(ev) {
      if (failure) return;
      if (ev.data.length > limits.maxEventChars)
        failure = tooLarge("an event", limits.maxEventChars);
      else ready.push({ event: ev.event || "message", data: ev.data });
    },
    onError(err: ParseError) {
      // Unknown fields and bad `retry:` values are ignored, as the HTML rules say.
      if (err.type === "max-buffer-size-exceeded")
        failure ??= tooLarge("an event", limits.maxEventChars);
    },
  });
  /** Characters of the line being read (since the last line ending). */
  let lineChars = 0;
  let threw = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lastEnd = Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r"));
      // A whole line inside one (large) read: measured only when the read could hold one.
      const longest = text.length > limits.maxLineChars ? longestLine(text) : 0;
      lineChars = lastEnd < 0 ? lineChars + text.length : text.length - lastEnd - 1;
      if (Math.max(lineChars, longest) > limits.maxLineChars)
        throw tooLarge("a line", limits.maxLineChars);
      if (text !== "") parser.feed(text);
      // The events completed before a failure in the same read still count.
      const out = ready;
      ready = [];
      for (const ev of out) yield ev;
      if (failure) throw failure;
      if (done) return;
    }
  } catch (err) {
    threw = true;
    throw err;
  } finally {
    // A failure closes the connection; an early stop by the consumer leaves it as it is.
    if (threw) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
