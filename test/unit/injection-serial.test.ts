/**
 * Serialised scoring cores (workers/src/skills/injection-serial.ts): a core written after a build
 * and after incremental changes reads back into an index that answers exactly as the reference
 * scorer, keeps taking incremental changes after loading, and bad bytes are refused.
 */
import { describe, expect, it } from "vitest";
import { InjectionIndex } from "../../workers/src/skills/injection/injection-index.js";
import { decodeCore, encodeCore } from "../../workers/src/skills/injection/injection-serial.js";
import {
  buildScoringContext,
  type ScoringContext,
  scoreAutoSkill,
} from "../../workers/src/skills/injection/scoring.js";
import type { SkillSource } from "../../workers/src/skills/registry/tool-resolver.js";
import type { Skill } from "../../workers/src/skills/types.js";
import { forRandom } from "../support/random.js";
import { skill } from "./injection-fixtures.js";

const WORDS = ["web", "search", "weather", "report", "code", "the", "and", "claude", "gpt", "map"];

/** Top-k auto skills of `skills` (all global, all competing) by the reference scorer. */
function reference(skills: readonly Skill[], ctx: ScoringContext, k: number) {
  return skills
    .filter((s) => s.mode === "auto")
    .map((s) => ({ s, score: scoreAutoSkill(s, ctx) }))
    .filter((x) => x.score >= 3)
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.s.installCount - a.s.installCount ||
        (a.s.name < b.s.name ? -1 : a.s.name > b.s.name ? 1 : 0),
    )
    .slice(0, k)
    .map((x) => [x.s.id, x.score]);
}

describe("serialised injection cores", () => {
  it("read back into an index that scores like the reference, before and after changes", () => {
    forRandom(2, (rand) => {
      const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)]!;
      const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
      const make = (i: number) =>
        skill({
          id: `ser-${i}`,
          name: `${pick(WORDS)}Tool${i}`,
          mode: "auto",
          description: words(4 + rand(8)),
          tags: Array.from({ length: rand(3) }, () => pick(WORDS)),
          installCount: rand(5),
        });
      let skills = Array.from({ length: 300 }, (_, i) => make(i));
      const first: SkillSource = { generation: 7_000_000, skills };
      const built = InjectionIndex.build(first);
      // Change it incrementally first, so that free slots and added patterns are serialised too.
      const removed = skills.slice(0, 20);
      const added = Array.from({ length: 15 }, (_, i) => make(1000 + i));
      skills = [...skills.slice(20), ...added];
      const changed = built.derive({
        generation: 7_000_001,
        skills,
        change: { from: first, upserted: added, replaced: removed },
      })!;
      expect(changed.core.state.free.length).toBe(5);

      const bytes = encodeCore(changed.core);
      const decoded = decodeCore(bytes.slice());
      expect(decoded.key).toBe(changed.core.key);
      const source: SkillSource = { generation: 7_000_002, skills };
      const loaded = InjectionIndex.build(source, undefined, decoded);
      expect(loaded.core).toBe(decoded);
      const check = (index: InjectionIndex, all: readonly Skill[]) => {
        for (let probe = 0; probe < 30; probe++) {
          const ctx = buildScoringContext({
            text: `${words(5 + rand(25))} ${rand(2) ? pick(all).name : ""}`,
            provider: pick(["openai", "anthropic", "google"] as const),
            backgroundReason: rand(3) === 0 ? words(2) : null,
          });
          const k = pick([5, 50]);
          expect(index.topAuto(ctx, null, () => true, k).map((r) => [r.skill.id, r.score])).toEqual(
            reference(all, ctx, k),
          );
        }
      };
      check(loaded, skills);

      const more = Array.from({ length: 10 }, (_, i) => make(2000 + i));
      const after = [...skills.slice(7), ...more];
      const next = loaded.derive({
        generation: 7_000_003,
        skills: after,
        change: { from: source, upserted: more, replaced: skills.slice(0, 7) },
      });
      expect(next).toBeDefined();
      check(next!, after);
    });
  });

  it("refuses bytes that are not a serialised core", () => {
    expect(() => decodeCore(new Uint8Array(32))).toThrow(/not a serialised/);
    const good = encodeCore(
      InjectionIndex.build({ generation: 7_100_000, skills: [skill({ name: "x", mode: "auto" })] })
        .core,
    );
    expect(() => decodeCore(good.subarray(0, good.length - 16))).toThrow(/truncated/);
  });
});
