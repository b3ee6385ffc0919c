/**
 * Random inputs for the randomized tests, drawn from fast-check: each run gets its values from
 * fast-check's generator, so a failing run is shrunk to a small case and reported with the seed
 * that replays it (`fc.assert` options `seed` and `path`).
 */
import fc from "fast-check";

/** An integer in `[0, n)` (0 when `n` ≤ 1). */
export type Rand = (n: number) => number;

/** The integer source of one fast-check generator value. */
export const randOf =
  (g: fc.GeneratorValue): Rand =>
  (n) =>
    n <= 1 ? 0 : g(fc.nat, { max: n - 1 });

/** Runs `body` `runs` times, each with its own random source; fast-check shrinks a failure. */
export function forRandom(runs: number, body: (rand: Rand) => void): void {
  fc.assert(
    fc.property(fc.gen(), (g) => {
      body(randOf(g));
    }),
    { numRuns: runs },
  );
}

/** {@link forRandom} for an async body. */
export async function forRandomAsync(
  runs: number,
  body: (rand: Rand) => Promise<void>,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.gen(), async (g) => {
      await body(randOf(g));
    }),
    { numRuns: runs },
  );
}

/** A random source for setup data outside a property: the values of one fast-check sample. */
export function sampleRand(): Rand {
  const stream = fc.sample(fc.infiniteStream(fc.nat()), 1)[0]!;
  return (n) => (n <= 1 ? 0 : stream.next().value % n);
}
