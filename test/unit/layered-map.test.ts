/**
 * LayeredMap (workers/src/skills/layered-map.ts) behaves as a copied Map after any sequence of
 * sets and removals, leaves the versions it was derived from unchanged, and flattens its layer.
 */
import { describe, expect, it } from "vitest";
import { LayeredMap } from "../../workers/src/skills/registry/layered-map.js";
import { forRandom } from "../support/random.js";

describe("LayeredMap", () => {
  it("matches a plain Map through random changes, and older versions stay as they were", () => {
    forRandom(3, (rand) => {
      let map = LayeredMap.of(new Map([...Array(200).keys()].map((i) => [`k${i}`, i])));
      let plain = new Map([...Array(200).keys()].map((i) => [`k${i}`, i]));
      const versions: [LayeredMap<string, number>, Map<string, number>][] = [];
      for (let step = 0; step < 300; step++) {
        const changes: [string, number | undefined][] = [];
        for (let i = 0, n = 1 + rand(step % 50 === 0 ? 150 : 4); i < n; i++) {
          const key = `k${rand(300)}`;
          changes.push([key, rand(3) === 0 ? undefined : step * 1000 + i]);
        }
        map = map.with(changes);
        plain = new Map(plain);
        for (const [k, v] of changes) {
          if (v === undefined) plain.delete(k);
          else plain.set(k, v);
        }
        if (step % 37 === 0) versions.push([map, plain]);
        expect(map.size).toBe(plain.size);
        for (let probe = 0; probe < 20; probe++) {
          const key = `k${rand(300)}`;
          expect(map.get(key)).toBe(plain.get(key));
          expect(map.has(key)).toBe(plain.has(key));
        }
      }
      for (const [m, p] of versions) {
        const seen = new Map<string, number>();
        m.forEach((v, k) => {
          seen.set(k, v);
        });
        expect([...seen].sort()).toEqual([...p].sort());
      }
    });
  });
});
