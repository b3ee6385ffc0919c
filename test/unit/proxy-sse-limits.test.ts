/**
 * The upstream event-stream reader under hostile input: its work grows linearly with a line's
 * length (checked by size ratios, not by a speed bound), and a line or an event past its limit
 * ends the read with a 502 `upstream_too_large` after reading no more than the limit.
 */
import { describe, expect, it } from "vitest";
import { readSse, type SseLimits } from "../../workers/src/services/gateway/sse-read.js";
import { UpstreamFailure } from "../../workers/src/services/gateway/upstream.js";

const encoder = new TextEncoder();

/**
 * A stream of `total` bytes: `data: ` then `x` repeated, in reads of `chunk` bytes, then `tail`.
 * `pulled()` tells how many bytes the reader asked for so far.
 */
function longLine(total: number, chunk: number, tail = "\n\n") {
  let sent = 0;
  let tailSent = false;
  const head = encoder.encode("data: ");
  const filler = encoder.encode("x".repeat(chunk));
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(c) {
        if (sent === 0) {
          sent += head.length;
          c.enqueue(head);
        } else if (sent < total) {
          const n = Math.min(chunk, total - sent);
          sent += n;
          c.enqueue(n === chunk ? filler : filler.subarray(0, n));
        } else if (!tailSent) {
          tailSent = true;
          c.enqueue(encoder.encode(tail));
        } else c.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => sent };
}

async function drain(stream: ReadableStream<Uint8Array>, limits?: SseLimits): Promise<number> {
  let chars = 0;
  for await (const ev of readSse(stream, limits)) chars += ev.data.length;
  return chars;
}

const roomy: SseLimits = { maxLineChars: 64 * 1024 * 1024, maxEventChars: 64 * 1024 * 1024 };

/** Fastest of `runs` reads of a `size`-byte line in 512-byte reads, in ms. */
async function fastest(size: number, runs: number): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const { stream } = longLine(size, 512);
    const t0 = performance.now();
    expect(await drain(stream, roomy)).toBe(size - "data: ".length);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

describe("readSse on long lines", () => {
  it("does work linear in a line's length (4x the line costs far less than 16x the time)", async () => {
    await fastest(64 * 1024, 3); // warm-up
    const small = await fastest(256 * 1024, 7);
    const large = await fastest(1024 * 1024, 5);
    // Linear: about 4x. Re-scanning the buffered tail on every read: 16x and more.
    expect(large / small).toBeLessThan(10);
  }, 120_000);

  it("stops a 20 MB line without a newline once it passes the line limit", async () => {
    const limits: SseLimits = { maxLineChars: 1024 * 1024, maxEventChars: 4 * 1024 * 1024 };
    const { stream, pulled } = longLine(20 * 1024 * 1024, 64 * 1024, "");
    const err = await drain(stream, limits).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamFailure);
    expect((err as UpstreamFailure).status).toBe(502);
    expect((err as UpstreamFailure).code).toBe("upstream_too_large");
    expect((err as UpstreamFailure).message).toContain("a line longer than 1048576 characters");
    // Read no further than the limit and one network read.
    expect(pulled()).toBeLessThanOrEqual(1024 * 1024 + 64 * 1024 + 6);
  });

  it("refuses a line past the limit even when one read holds it whole", async () => {
    const limits: SseLimits = { maxLineChars: 2048, maxEventChars: 1024 * 1024 };
    const text = `data: ${"y".repeat(5000)}\n\ndata: after\n\n`;
    const one = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encoder.encode(text));
        c.close();
      },
    });
    const err = await drain(one, limits).catch((e: unknown) => e);
    expect((err as UpstreamFailure).code).toBe("upstream_too_large");
  });

  it("refuses an event whose data lines together pass the event limit", async () => {
    const limits: SseLimits = { maxLineChars: 1024, maxEventChars: 8 * 1024 };
    const lines = Array.from({ length: 40 }, () => `data: ${"z".repeat(500)}\n`).join("");
    const events: string[] = [];
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encoder.encode(`data: small\n\n${lines}\n`));
        c.close();
      },
    });
    const err = await (async () => {
      for await (const ev of readSse(stream, limits)) events.push(ev.data);
    })().catch((e: unknown) => e);
    expect(events).toEqual(["small"]);
    expect((err as UpstreamFailure).code).toBe("upstream_too_large");
    expect((err as UpstreamFailure).message).toContain("an event longer than 8192 characters");
  });

  it("reads events just under the limits", async () => {
    const limits: SseLimits = { maxLineChars: 4096, maxEventChars: 8192 };
    const data = "w".repeat(4000);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encoder.encode(`data: ${data}\ndata: ${data}\n\n`));
        c.close();
      },
    });
    const out: string[] = [];
    for await (const ev of readSse(stream, limits)) out.push(ev.data);
    expect(out).toEqual([`${data}\n${data}`]);
  });
});
