/**
 * Output capture of one container stream, capped at `SKILLS_MAX_SANDBOX_OUTPUT_CHARS` characters:
 * read in chunks, cut in the sink, binary output is normal.
 */
import { Writable } from "node:stream";

/**
 * A Writable that decodes UTF-8 incrementally (a multi-byte character split across chunks is kept
 * whole; invalid bytes become U+FFFD), keeps at most `maxChars` UTF-16 code units (never half a
 * surrogate pair), and drops everything after the cap. The first time the cap is passed it calls
 * `onOverflow` once (the runner then kills the container); later chunks are counted and discarded,
 * so memory stays bounded however much the program prints.
 */
export class OutputSink extends Writable {
  private readonly decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  private readonly parts: string[] = [];
  private kept = 0;
  private flushed = false;
  /** True once output past the cap was dropped. */
  truncated = false;
  /** Total bytes received, including dropped ones. */
  bytes = 0;
  /** `performance.now()` (ms) when the first byte arrived; undefined until then. */
  firstByteAt: number | undefined;
  /** Called once when the cap is first passed. */
  onOverflow: (() => void) | undefined;

  /** @param maxChars cap in UTF-16 code units (JavaScript string length). */
  constructor(private readonly maxChars: number) {
    super({ decodeStrings: true });
  }

  override _write(
    chunk: Buffer,
    _encoding: BufferEncoding,
    callback: (error?: Error | null) => void,
  ): void {
    if (this.firstByteAt === undefined && chunk.length > 0) this.firstByteAt = performance.now();
    this.bytes += chunk.length;
    if (!this.truncated) this.append(this.decoder.decode(chunk, { stream: true }));
    callback();
  }

  private append(text: string): void {
    if (text.length === 0) return;
    const room = this.maxChars - this.kept;
    if (text.length <= room) {
      this.parts.push(text);
      this.kept += text.length;
      return;
    }
    let cut = text.slice(0, room);
    const last = cut.charCodeAt(cut.length - 1);
    if (cut.length > 0 && last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
    this.parts.push(cut);
    this.kept += cut.length;
    this.truncated = true;
    const notify = this.onOverflow;
    this.onOverflow = undefined;
    notify?.();
  }

  /** The captured text (flushes a trailing incomplete character as U+FFFD once). */
  text(): string {
    if (!this.flushed) {
      this.flushed = true;
      if (!this.truncated) this.append(this.decoder.decode());
    }
    return this.parts.join("");
  }
}
