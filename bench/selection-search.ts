/**
 * The `skill_search` path of the selection benchmark (docs/scoring.md#skill-search): a scripted
 * model, driven through the tools service's inject and intercept (what `POST /api/skills/inject`
 * and `POST /api/skills/intercept` call), for every case of a set:
 *
 * 1. round 1: inject the question with a session id; when every tool the case needs is offered,
 *    the model calls them (found in one round);
 * 2. otherwise, when `skill_search` is offered, the model calls it with the user's text; intercept
 *    (given inject's `injected`, as a client passes it) answers it with skills not yet offered and
 *    remembers them for the session;
 * 3. round 2: inject again in the same session; found when every needed tool is offered now.
 *
 * Reported per inject ranker: the share of one-tool cases found in round 1 and within two rounds,
 * and the same for multi-tool cases (all tools of the case).
 */

import { MemoryCache } from "../workers/src/cache/memory-cache.js";
import type { JsonObject } from "../workers/src/formats/types.js";
import { FoundSkillsStore } from "../workers/src/services/found-skills.js";
import { DEFAULT_SETTINGS, type SettingsService } from "../workers/src/services/settings.js";
import { ToolsService } from "../workers/src/services/tools.js";
import type { Executor } from "../workers/src/skills/execution/executor.js";
import type { RankerName } from "../workers/src/skills/injection/rankers/index.js";
import { policyFloorsFor } from "../workers/src/skills/interception/policy-floor.js";
import { NO_LEARNING_STORE, SelectionLearning } from "../workers/src/skills/learning/learning.js";
import { SelectionStats } from "../workers/src/skills/learning/selection-stats.js";
import type { SkillRegistry } from "../workers/src/skills/registry/registry.js";
import type { SkillSource } from "../workers/src/skills/registry/tool-resolver.js";

/** One case: the question and the names of the tools it needs. */
export interface SearchCase {
  query: string;
  tools: string[];
}

/** Shares of cases whose tools were all offered in round 1, and by round 2. */
export interface SearchFigures {
  ranker: RankerName;
  oneRound1: number;
  oneRound2: number;
  multiRound1: number;
  multiRound2: number;
  /** Share of cases where the model called `skill_search`. */
  searched: number;
}

const chat = (text: string): JsonObject => ({
  model: "gpt-4.1",
  messages: [{ role: "user", content: text }],
});

/** A Chat Completions response calling `skill_search` with `query`. */
export function searchCall(query: string): JsonObject {
  return {
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 0,
    model: "gpt-4.1",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_search",
              type: "function",
              function: { name: "skill_search", arguments: JSON.stringify({ query }) },
            },
          ],
        },
      },
    ],
  };
}

/** Names of the tools a Chat request offers. */
function offered(request: JsonObject): Set<string> {
  const tools = (request.tools ?? []) as { function?: { name?: string } }[];
  return new Set(tools.map((t) => t.function?.name ?? ""));
}

/** A tools service over a fixed snapshot, with the product's default settings. */
export function benchToolsService(snapshot: SkillSource): ToolsService {
  const registry = { snapshot: async () => snapshot } as unknown as SkillRegistry;
  const settings = { get: async () => DEFAULT_SETTINGS } as unknown as SettingsService;
  const executor = {
    execute: () => Promise.reject(new Error("the scripted model calls only skill_search")),
    requestApproval: () => Promise.reject(new Error("not used")),
  } as unknown as Executor;
  return new ToolsService({
    registry,
    settings,
    executor,
    unavailableBuiltins: [],
    builtinAliases: new Map(),
    policyFloors: policyFloorsFor(false),
    searchMode: "auto",
    foundSkills: new FoundSkillsStore(new MemoryCache()),
    learning: new SelectionLearning({
      store: NO_LEARNING_STORE,
      cache: new MemoryCache(),
      params: { halfLifeMs: 30 * 86_400_000, maxFeaturesPerSkill: 256 },
      enabled: false,
      shareGlobal: false,
      clock: Date.now,
    }),
    stats: new SelectionStats(),
  });
}

/**
 * Runs the scripted model over `cases` with `ranker` for round-1 injection. `toolName` maps a
 * set's function name to the tool name the injection emits for it.
 */
export async function measureSearch(
  tools: ToolsService,
  cases: readonly SearchCase[],
  ranker: RankerName,
  toolName: (name: string) => string,
  sessionPrefix: string,
): Promise<SearchFigures> {
  let ones = 0;
  let one1 = 0;
  let one2 = 0;
  let multis = 0;
  let multi1 = 0;
  let multi2 = 0;
  let searched = 0;
  let n = 0;
  for (const c of cases) {
    if (c.tools.length === 0) continue;
    const sessionId = `${sessionPrefix}-${ranker}-${n++}`;
    const needed = c.tools.map(toolName);
    const round = async () =>
      tools.inject(
        { format: "openai-chat", request: chat(c.query), ranker, sessionId, offerSearch: true },
        null,
      );
    const firstResult = await round();
    const first = offered(firstResult.request);
    const hit1 = needed.every((t) => first.has(t));
    let hit2 = hit1;
    if (!hit1 && first.has("skill_search")) {
      searched++;
      await tools.intercept(
        {
          format: "openai-chat",
          response: searchCall(c.query),
          sessionId,
          answerSearch: true,
          injected: firstResult.injected.map((t) => t.toolName),
        },
        null,
      );
      const second = offered((await round()).request);
      hit2 = needed.every((t) => second.has(t));
    }
    if (c.tools.length === 1) {
      ones++;
      if (hit1) one1++;
      if (hit2) one2++;
    } else {
      multis++;
      if (hit1) multi1++;
      if (hit2) multi2++;
    }
  }
  const pct = (a: number, b: number) => (b ? a / b : Number.NaN);
  return {
    ranker,
    oneRound1: pct(one1, ones),
    oneRound2: pct(one2, ones),
    multiRound1: pct(multi1, multis),
    multiRound2: pct(multi2, multis),
    searched: pct(searched, ones + multis),
  };
}
