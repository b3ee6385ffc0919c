/**
 * Output capture (sandbox-host/src/output.ts): incremental UTF-8 decoding, invalid bytes replaced,
 * the per-stream cap in characters, and bounded memory however much is written.
 */
import { describe, expect, it } from "vitest";
import { OutputSink } from "../../sandbox-host/src/output.js";

function write(sink: OutputSink, chunks: Buffer[]): void {
  for (const c of chunks) sink.write(c);
}

describe("OutputSink", () => {
  it("keeps a multi-byte character split across chunks whole", () => {
    const sink = new OutputSink(100);
    const bytes = Buffer.from("héllo €😀", "utf8");
    write(
      sink,
      [...bytes].map((b) => Buffer.from([b])),
    );
    expect(sink.text()).toBe("héllo €😀");
    expect(sink.truncated).toBe(false);
  });

  it("replaces invalid bytes and a trailing incomplete character with U+FFFD", () => {
    const sink = new OutputSink(100);
    write(sink, [Buffer.from([0x61, 0xff, 0x62]), Buffer.from([0xe2, 0x82])]);
    expect(sink.text()).toBe("a\uFFFDb\uFFFD");
  });

  it("cuts at the cap without splitting a surrogate pair and reports the overflow once", () => {
    const sink = new OutputSink(5);
    let overflows = 0;
    sink.onOverflow = () => overflows++;
    write(sink, [Buffer.from("abcd😀xyz"), Buffer.from("more")]);
    expect(sink.text()).toBe("abcd");
    expect(sink.truncated).toBe(true);
    expect(overflows).toBe(1);
  });

  it("holds at most the cap while 10 MB pass through", () => {
    const sink = new OutputSink(100_000);
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    let written = 0;
    while (written < 10_000_000) {
      sink.write(chunk);
      written += chunk.length;
    }
    expect(sink.bytes).toBe(written);
    expect(sink.text().length).toBe(100_000);
    expect(sink.truncated).toBe(true);
  });

  it("keeps output of exactly the cap whole, and a leading byte order mark", () => {
    const sink = new OutputSink(4);
    let overflows = 0;
    sink.onOverflow = () => overflows++;
    write(sink, [Buffer.from("\uFEFFabc", "utf8")]);
    expect(sink.text()).toBe("\uFEFFabc");
    expect(sink.truncated).toBe(false);
    expect(overflows).toBe(0);
  });
});
