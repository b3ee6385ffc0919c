/**
 * Server-sent events in both directions (the WHATWG HTML "server-sent events" parsing rules):
 * reading an upstream stream into events, and writing events to the client. Reading handles
 * comment lines, `id:`/`retry:` fields, CRLF / CR / LF line endings, long lines and multi-byte
 * characters split across network reads (one streaming UTF-8 decoder per stream).
 */

/** One event: its `event` name (default "message") and its joined `data` lines. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * The events of `body`, in order, as they complete.
 * @throws the reader's error when the connection fails mid-stream.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let pendingCr = false;
  const line = (text: string): SseEvent | undefined => {
    if (text === "") {
      const out =
        data.length > 0 ? { event: event || "message", data: data.join("\n") } : undefined;
      event = "";
      data = [];
      return out;
    }
    if (text.startsWith(":")) return undefined;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    return undefined;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const ch = buffer.charCodeAt(i);
        if (ch !== 10 && ch !== 13) continue;
        if (ch === 10 && pendingCr && i === start) {
          pendingCr = false;
          start = i + 1;
          continue;
        }
        pendingCr = ch === 13;
        const ev = line(buffer.slice(start, i));
        start = i + 1;
        if (ev) yield ev;
      }
      buffer = buffer.slice(start);
      // An event not closed by a blank line when the stream ends is discarded (it may be cut short).
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}

/** An SSE frame: `event:` line when named, one `data:` line per line of `data`. */
export function sseFrame(data: string, event?: string): string {
  const lines = data.split(/\r\n|\r|\n/).map((l) => `data: ${l}`);
  return `${event ? `event: ${event}\n` : ""}${lines.join("\n")}\n\n`;
}

/** A comment line (ignored by every SSE client): keep-alive and trailing metadata. */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}
