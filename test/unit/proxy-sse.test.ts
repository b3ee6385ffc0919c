/**
 * Reading upstream server-sent events: comment lines, `id:` / `event:` fields, CRLF and bare-CR
 * line endings, long lines and multi-byte characters split across network reads all come out as
 * clean events.
 */
import { describe, expect, it } from "vitest";
import { sseComment, sseFrame } from "../../workers/src/formats/sse-frame.js";
import { readSse } from "../../workers/src/services/gateway/sse-read.js";

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
}

async function collect(chunks: Uint8Array[]) {
  const out: { event: string; data: string }[] = [];
  for await (const ev of readSse(streamOf(chunks))) out.push(ev);
  return out;
}

/** `text` as UTF-8 bytes cut into pieces of `size` bytes (so characters are split). */
function bytesIn(text: string, size: number): Uint8Array[] {
  const all = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < all.length; i += size) out.push(all.subarray(i, i + size));
  return out;
}

describe("readSse", () => {
  it("ignores comments and id lines, keeps event names, joins data lines", async () => {
    const text =
      ': hello\nid: 7\nevent: ping\ndata: {"type":"ping"}\n\n: keep-alive\n\ndata: a\ndata: b\n\n';
    expect(await collect(bytesIn(text, 1000))).toEqual([
      { event: "ping", data: '{"type":"ping"}' },
      { event: "message", data: "a\nb" },
    ]);
  });

  it("accepts CRLF and bare CR line endings, even split between reads", async () => {
    const text = "data: one\r\n\r\ndata: two\r\rdata: three\n\n";
    for (const size of [1, 2, 3, 5, 100]) {
      expect(await collect(bytesIn(text, size))).toEqual([
        { event: "message", data: "one" },
        { event: "message", data: "two" },
        { event: "message", data: "three" },
      ]);
    }
  });

  it("decodes multi-byte characters split across reads without U+FFFD", async () => {
    const payload = JSON.stringify({ text: "Grüße 👋 日本語 ".repeat(500) });
    const events = await collect(bytesIn(`data: ${payload}\n\n`, 3));
    expect(events).toEqual([{ event: "message", data: payload }]);
    expect(events[0]!.data).not.toContain("\uFFFD");
  });

  it("discards a last event the stream cut before its blank line", async () => {
    expect(await collect(bytesIn("data: whole\n\ndata: cut", 4))).toEqual([
      { event: "message", data: "whole" },
    ]);
  });
});

describe("writing", () => {
  it("frames data lines and comments", () => {
    expect(sseFrame("a\nb", "x")).toBe("event: x\ndata: a\ndata: b\n\n");
    expect(sseComment("keep\nalive")).toBe(": keep alive\n\n");
  });
});
