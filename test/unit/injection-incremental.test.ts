/**
 * The injection index kept current change by change (docs/scoring.md#keeping-the-index-current):
 * random sequences of adds, updates and deletes (several names, versions, owners, modes and
 * policies) are applied to the index of the previous snapshot, and after every step the derived
 * index must answer exactly what scoring every skill with the reference scorer answers, and what
 * an index rebuilt from scratch answers, for several callers and random contexts.
 */

import semver from "semver";
import { describe, expect, it } from "vitest";
import {
  getInjectionIndex,
  InjectionIndexCache,
} from "../../workers/src/skills/injection/index-cache.js";
import { ScoringCore } from "../../workers/src/skills/injection/injection-core.js";
import { InjectionIndex } from "../../workers/src/skills/injection/injection-index.js";
import { buildScoringContext, scoreAutoSkill } from "../../workers/src/skills/injection/scoring.js";
import { isActive, type SkillSource } from "../../workers/src/skills/registry/tool-resolver.js";
import type { Skill } from "../../workers/src/skills/types.js";
import { forRandom } from "../support/random.js";
import { skill } from "./injection-fixtures.js";

/** Deterministic pseudo-random integers in [0, n). */
const WORDS = [
  "web",
  "search",
  "weather",
  "report",
  "code",
  "format",
  "issue",
  "claude",
  "gpt",
  "gemini",
  "data",
  "the",
  "map",
  "git",
  "file",
  "and",
  "for",
  "with",
  "rome",
  "paris",
];
const KEYS = [null, "key-a", "key-b"] as const;

/** The competing version of `name` for `caller`, by the rule of docs/registry.md. */
function winnerOf(all: readonly Skill[], name: string, caller: string | null): Skill | undefined {
  const best = (owner: string | null) => {
    let out: Skill | undefined;
    for (const s of all)
      if (s.name === name && s.apiKeyId === owner && isActive(s))
        if (!out || semver.gt(s.version, out.version)) out = s;
    return out;
  };
  const global = best(null);
  const own = caller === null ? undefined : best(caller);
  if (own && (!global || semver.gte(own.version, global.version))) return own;
  return global;
}

/** What injection must choose for `caller`: the reference scorer over every competing skill. */
function expected(
  all: readonly Skill[],
  caller: string | null,
  ctx: ReturnType<typeof buildScoringContext>,
  k: number,
) {
  const names = [...new Set(all.map((s) => s.name))];
  const winners = names
    .map((n) => winnerOf(all, n, caller))
    .filter((s): s is Skill => s !== undefined && s.policy !== "manual");
  const auto = winners
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
  const on = winners
    .filter((s) => s.mode === "on")
    .map((s) => s.id)
    .sort();
  return { auto, on };
}

/** One registry's index cache, shared by the sources of this file. */
const indexCache = new InjectionIndexCache();

describe("incremental injection index", () => {
  it("answers like the reference scorer after every random add, update and delete", () => {
    forRandom(1, (rand) => {
      const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)]!;
      const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
      let nextId = 1;
      const fresh = (): Skill =>
        skill({
          id: `inc-${nextId++}`,
          name: `${pick(WORDS)}${pick(["Tool", "Helper", "Web"])}${rand(12)}`,
          version: pick(["1.0.0", "1.2.0", "2.0.0"]),
          apiKeyId: pick(KEYS),
          mode: pick(["auto", "auto", "auto", "on", "off"] as const),
          policy: pick(["auto", "auto", "hybrid", "manual"] as const),
          enabled: rand(10) > 0,
          description: words(3 + rand(8)),
          tags: Array.from({ length: rand(3) }, () => pick(WORDS)),
          installCount: rand(4),
        });
      let generation = 5_000_000;
      let skills: Skill[] = [];
      for (const s of Array.from({ length: 140 }, fresh)) {
        const ref = (x: Skill) => `${x.apiKeyId}:${x.name}@${x.version}`;
        if (!skills.some((x) => ref(x) === ref(s))) skills.push(s);
      }
      let source: SkillSource = { generation: generation++, skills, indexCache };
      const first = getInjectionIndex(source);
      let derivedSteps = 0;
      for (let step = 0; step < 160; step++) {
        const upserted: Skill[] = [];
        const replaced: Skill[] = [];
        const ops = step % 23 === 0 ? 70 : 1 + rand(3);
        let next = skills.slice();
        for (let o = 0; o < ops; o++) {
          const kind = rand(3);
          if (kind === 0 || next.length < 10) {
            const s = fresh();
            // The registry keeps name@version unique per owner.
            const ref = (x: Skill) => `${x.apiKeyId}:${x.name}@${x.version}`;
            if (next.some((x) => ref(x) === ref(s))) continue;
            next.push(s);
            upserted.push(s);
          } else {
            const at = rand(next.length);
            const old = next[at]!;
            if (upserted.includes(old)) continue;
            replaced.push(old);
            if (kind === 1) {
              const changed: Skill = {
                ...old,
                description: rand(2) ? words(2 + rand(6)) : old.description,
                tags: rand(3) ? old.tags : [pick(WORDS)],
                installCount: rand(3) ? old.installCount : rand(5),
                mode: rand(4) ? old.mode : pick(["auto", "on", "off"] as const),
                policy: rand(5) ? old.policy : pick(["auto", "manual"] as const),
                enabled: rand(6) ? old.enabled : !old.enabled,
              };
              next[at] = changed;
              upserted.push(changed);
            } else next = next.filter((_, i) => i !== at);
          }
        }
        skills = next;
        source = {
          generation: generation++,
          skills,
          indexCache,
          change: { from: source, upserted, replaced },
        };
        const index = getInjectionIndex(source);
        if (index.core.state.shared === first.core.state.shared) derivedSteps++;
        // Every tenth step, an index rebuilt from scratch (a fresh scoring core) as well.
        const rebuilt =
          step % 10 === 9
            ? (() => {
                const plan = InjectionIndex.plan({ generation: -step, skills });
                return InjectionIndex.fromPlan(plan, undefined, ScoringCore.build(plan.candidates));
              })()
            : undefined;
        for (let probe = 0; probe < 4; probe++) {
          const caller = pick(KEYS);
          const text = `${words(4 + rand(20))} ${rand(2) ? pick(skills).name : ""}`;
          const ctx = buildScoringContext({
            text,
            provider: pick(["openai", "anthropic", "google"] as const),
            backgroundReason: rand(3) === 0 ? words(2) : null,
          });
          const k = pick([5, 40]);
          const want = expected(skills, caller, ctx, k);
          const got = index.topAuto(ctx, caller, () => true, k).map((r) => [r.skill.id, r.score]);
          expect(got).toEqual(want.auto);
          if (rebuilt) {
            expect(rebuilt.core).not.toBe(index.core);
            const fresh = rebuilt.topAuto(ctx, caller, () => true, k);
            expect(fresh.map((r) => [r.skill.id, r.score])).toEqual(got);
          }
          expect(
            index
              .onSkills(caller)
              .map((s) => s.id)
              .sort(),
          ).toEqual(want.on);
          const name = pick(skills).name;
          expect(index.resolver.winner(name, caller)).toBe(winnerOf(skills, name, caller));
        }
      }
      // Every step was derived from the one before, never rebuilt.
      expect(derivedSteps).toBe(160);
    });
  });

  it("derives resolvers that resolve names, versions and owners like a fresh build", () => {
    const a1 = skill({ id: "la-1", name: "alphaTool", version: "1.0.0", mode: "auto" });
    const a2 = skill({ id: "la-2", name: "alphaTool", version: "2.0.0", mode: "auto" });
    const own = skill({
      id: "la-3",
      name: "alphaTool",
      version: "2.0.0",
      apiKeyId: "k",
      mode: "auto",
    });
    const base: SkillSource = { generation: 6_000_000, skills: [a1], indexCache };
    getInjectionIndex(base);
    const s2: SkillSource = {
      generation: 6_000_001,
      indexCache,
      skills: [a1, a2, own],
      change: { from: base, upserted: [a2, own], replaced: [] },
    };
    const derived = getInjectionIndex(s2);
    const built = InjectionIndex.build({ generation: 6_000_002, skills: s2.skills });
    for (const caller of [null, "k", "other"]) {
      expect(derived.resolver.winner("alphaTool", caller)).toBe(
        built.resolver.winner("alphaTool", caller),
      );
      expect(derived.resolver.resolveName("alphaTool@2.0.0", caller)).toBe(
        built.resolver.resolveName("alphaTool@2.0.0", caller),
      );
    }
    expect(derived.resolver.winner("alphaTool", "k")).toBe(own);
    expect(derived.resolver.winner("alphaTool", null)).toBe(a2);
    const s3: SkillSource = {
      generation: 6_000_003,
      indexCache,
      skills: [a1],
      change: { from: s2, upserted: [], replaced: [a2, own] },
    };
    const after = getInjectionIndex(s3);
    expect(after.resolver.winner("alphaTool", "k")).toBe(a1);
    expect(after.resolver.resolveName("alphaTool@2.0.0", "k")).toBeUndefined();
    expect(after.core.state.shared).toBe(derived.core.state.shared);
  });
});
