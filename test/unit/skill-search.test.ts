/**
 * The bounds of `skill_search` (docs/limits.md, docs/scoring.md#skill-search): argument checks,
 * the per-session store of found skills (size, order, TTL, key and session isolation, hashed
 * session ids), and the search's visibility rules over a registry snapshot.
 */
import { describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import {
  FOUND_SKILLS_MAX,
  FOUND_SKILLS_TTL_S,
  FoundSkillsStore,
} from "../../workers/src/services/found-skills.js";
import { getInjectionIndex } from "../../workers/src/skills/injection/index-cache.js";
import { injectSkills } from "../../workers/src/skills/injection/injection.js";
import { bm25Query } from "../../workers/src/skills/injection/rankers/bm25-query.js";
import {
  parseSkillSearchArgs,
  SKILL_SEARCH_GATE_SHARE,
  SKILL_SEARCH_MAX_QUERY_CHARS,
  searchSkills,
  seesMoreAutoSkills,
} from "../../workers/src/skills/search/skill-search.js";
import type { Skill } from "../../workers/src/skills/types.js";

function skill(over: Partial<Skill> & { name: string }): Skill {
  return {
    id: `id-${over.name}-${over.apiKeyId ?? "g"}`,
    version: "1.0.0",
    description: "",
    schema: { input: { type: "object", properties: {} } },
    handlerCode: "echo-handler",
    handler: null,
    instructions: null,
    enabled: true,
    mode: "auto",
    policy: "auto",
    sourceProvider: "local",
    sourceRef: null,
    tags: [],
    installCount: 0,
    timeoutMs: null,
    autoUpgrade: null,
    apiKeyId: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...over,
  };
}

describe("skill_search arguments", () => {
  it("takes a trimmed query and a limit of 1 to 10, default 5", () => {
    expect(parseSkillSearchArgs({ query: "  return order " })).toEqual({
      query: "return order",
      limit: 5,
    });
    expect(parseSkillSearchArgs({ query: "x", limit: 10 })).toEqual({ query: "x", limit: 10 });
  });

  it("refuses a missing, empty, non-string or too long query and a limit out of bounds", () => {
    for (const bad of [
      undefined,
      null,
      "text",
      {},
      { query: "" },
      { query: "   " },
      { query: 7 },
      { query: "a".repeat(SKILL_SEARCH_MAX_QUERY_CHARS + 1) },
      { query: "ok", limit: 0 },
      { query: "ok", limit: 11 },
      { query: "ok", limit: 2.5 },
      { query: "ok", limit: "3" },
    ]) {
      expect(parseSkillSearchArgs(bad)).toHaveProperty("error");
    }
  });
});

describe("found skills per session", () => {
  it("keeps at most 20, the latest first, a skill found again moved to the front", async () => {
    const store = new FoundSkillsStore(new MemoryCache());
    for (let i = 0; i < 25; i++)
      await store.add("k", "s", [{ skill: `t${i}@1.0.0`, terms: ["t"] }]);
    await store.add("k", "s", [{ skill: "t10@1.0.0", terms: ["again"] }]);
    const got = await store.get("k", "s");
    expect(got).toHaveLength(FOUND_SKILLS_MAX);
    expect(got[0]).toEqual({ skill: "t10@1.0.0", terms: ["again"] });
    expect(got[1]!.skill).toBe("t24@1.0.0");
    expect(got.filter((f) => f.skill === "t10@1.0.0")).toHaveLength(1);
  });

  it("is per key and session, expires after its TTL, and stores the session id hashed", async () => {
    let now = 1_000_000;
    const cache = new MemoryCache(() => now);
    const store = new FoundSkillsStore(cache);
    await store.add("k1", "session-secret-id", [{ skill: "a@1.0.0", terms: ["a"] }]);
    expect(await store.get("k2", "session-secret-id")).toEqual([]);
    expect(await store.get(null, "session-secret-id")).toEqual([]);
    expect(await store.get("k1", "other")).toEqual([]);
    expect((await store.get("k1", "session-secret-id")).map((f) => f.skill)).toEqual(["a@1.0.0"]);
    const keys = [...(cache as unknown as { entries: Map<string, unknown> }).entries.keys()];
    expect(keys.some((k) => k.includes("session-secret-id"))).toBe(false);
    now += (FOUND_SKILLS_TTL_S + 1) * 1000;
    expect(await store.get("k1", "session-secret-id")).toEqual([]);
  });
});

describe("searchSkills", () => {
  const snapshot = {
    generation: 9_100_001,
    skills: [
      skill({ name: "orderReturn", description: "Start a return of an order" }),
      skill({ name: "orderPurge", description: "Purge an order", policy: "manual" }),
      skill({ name: "orderSecret", description: "Return secret order", apiKeyId: "other" }),
      skill({ name: "orderOff", description: "Return an order", mode: "off" }),
      skill({ name: "weather", description: "Weather of a city" }),
    ],
  };
  const scope = {
    snapshot,
    apiKeyId: "me",
    customSkillsEnabled: true,
    unavailableBuiltins: [],
  };

  it("finds only what injection could offer the caller, best first", () => {
    const found = searchSkills(scope, { query: "return order purge secret", limit: 10 });
    expect(found.map((f) => f.name)).toEqual(["orderReturn"]);
    expect(found[0]).toMatchObject({ toolName: "orderReturn_v1_0_0", version: "1.0.0" });
  });

  it("leaves out offered tools and custom skills when custom execution is off", () => {
    const q = { query: "return order", limit: 5 };
    expect(searchSkills(scope, q, new Set(["orderReturn_v1_0_0"]))).toEqual([]);
    expect(searchSkills({ ...scope, customSkillsEnabled: false }, q)).toEqual([]);
  });

  it("finds a weaker match than injection offers: half the gate, never a skill without a match", () => {
    const wide = {
      generation: 9_100_002,
      skills: [
        skill({
          name: "shipmentTracker",
          description: "Tells where a parcel is right now, by tracking number",
        }),
        ...Array.from({ length: 40 }, (_, i) =>
          skill({ name: `tool${i}`, description: `Unrelated utility number ${i}` }),
        ),
      ],
    };
    // One weighted-down spoken word in common: a weak match.
    const text = "Can you tell me now?";
    const index = getInjectionIndex(wide);
    const { gate } = index.bm25Shape();
    const score = index.bm25Score(bm25Query(text), wide.skills[0]!);
    // The question matches the tracker weakly: below the gate, above the search's share of it.
    expect(score).toBeLessThan(gate);
    expect(score).toBeGreaterThanOrEqual(SKILL_SEARCH_GATE_SHARE * gate);
    const injected = injectSkills({
      format: "openai-chat",
      request: { model: "m", messages: [{ role: "user", content: text }] },
      snapshot: wide,
      apiKeyId: "me",
    }).injected;
    expect(injected.map((t) => t.name)).not.toContain("shipmentTracker");
    const found = searchSkills({ ...scope, snapshot: wide }, { query: text, limit: 5 });
    expect(found.map((f) => f.name)).toEqual(["shipmentTracker"]);
  });

  it("counts the caller's active AUTO skills, stopping past n", () => {
    expect(seesMoreAutoSkills(snapshot, "me", 1)).toBe(true);
    expect(seesMoreAutoSkills(snapshot, "me", 3)).toBe(false);
  });
});
