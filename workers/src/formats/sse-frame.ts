/**
 * Writing server-sent events (the WHATWG HTML "server-sent events" format), as the stream
 * translators of the wire formats emit them to the client (docs/proxy.md#streaming).
 */

/** One event: its `event` name (default "message") and its joined `data` lines. */
export interface SseEvent {
  event: string;
  data: string;
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
