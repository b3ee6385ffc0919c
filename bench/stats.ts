/**
 * Small statistics helpers for the benchmark scripts: medians and percentiles of samples in ms,
 * and timing loops with `performance.now()`.
 */

/** The `p`-th percentile (0..100) of `samples` (nearest rank). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Median of `samples`. */
export const median = (samples: readonly number[]) => percentile(samples, 50);

/** Runs `fn` `n` times and returns each duration in ms. */
export async function timeEach(n: number, fn: (i: number) => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

/**
 * Times several functions side by side: `rounds` rounds, each running every function `perRound`
 * times in turn, so machine noise hits all of them alike. @returns samples per name (ms).
 */
export async function interleave(
  fns: Record<string, (i: number) => unknown>,
  rounds: number,
  perRound: number,
): Promise<Record<string, number[]>> {
  const timed = Object.fromEntries(
    Object.entries(fns).map(([name, fn]) => [
      name,
      async (i: number) => {
        const t0 = performance.now();
        await fn(i);
        return performance.now() - t0;
      },
    ]),
  );
  return interleaveReported(timed, rounds, perRound);
}

/** Formats ms with a unit that keeps three significant figures (µs below 1 ms). */
export function fmt(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(1)} µs`;
  return `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
}

/** Prints a table row: label, then columns. */
export function row(label: string, ...cols: string[]): void {
  console.log(`  ${label.padEnd(44)} ${cols.map((c) => c.padStart(14)).join(" ")}`);
}

/** A buffer larger than the last-level cache of the machines the benches run on (64 MiB). */
const sweepBuffer = new Uint8Array(64 * 1024 * 1024);
let sweepSink = 0;

/** Touches every cache line of the sweep buffer, evicting what the CPU caches held. */
export function sweepCaches(): void {
  let acc = sweepSink;
  for (let i = 0; i < sweepBuffer.length; i += 64) {
    sweepBuffer[i] = (sweepBuffer[i]! + 1) & 0xff;
    acc ^= sweepBuffer[i]!;
  }
  sweepSink = acc;
}

/**
 * As {@link interleave}, for functions that time themselves (e.g. in another process, so that
 * the timing client shares nothing with what it measures): each resolves with its own duration
 * in ms. @returns samples per name (ms).
 */
export async function interleaveReported(
  fns: Record<string, (i: number) => Promise<number>>,
  rounds: number,
  perRound: number,
): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of Object.entries(fns))
      for (let i = 0; i < perRound; i++) out[name]!.push(await fn(r * perRound + i));
  }
  return out;
}
