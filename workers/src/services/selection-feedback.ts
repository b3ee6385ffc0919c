import { DEFAULT_RANKER, type RankerName } from "../skills/injection/rankers/index.js";
import type { LearningSource, SelectionLink } from "../skills/learning/learning.js";
import type { SelectionCounts } from "../skills/learning/selection-stats.js";
import type { Skill } from "../skills/types.js";
import type { ToolsServiceOptions } from "./tools-types.js";

/**
 * Where a request's learning link is: in the cache under the first of `ids` that has one (a
 * selection id, a session link, {@link MCP_LINK}), or `held` by a door that runs the calls within
 * the request (the proxy; docs/scoring.md#learning-from-traffic).
 */
export type LinkRef = { ids: readonly string[] } | { held: SelectionLink };

/** What selection feedback needs of the tools service's options. */
export type SelectionFeedbackOptions = Pick<
  ToolsServiceOptions,
  "learning" | "stats" | "metrics" | "settings"
>;

/** Counters and learning signals of the tools service (see the module docs). */
export class SelectionFeedback {
  constructor(private readonly opts: SelectionFeedbackOptions) {}

  /** Counts a selection event of `skill` (docs/scoring.md#selection-counters). */
  count(skill: Skill, event: "injected" | "called" | "searched"): void {
    this.opts.stats.count(skill.id, `${skill.name}@${skill.version}`, event);
    this.opts.metrics?.countSelection?.({ skill: skill.name, event });
  }

  /**
   * Learning's one entry point for every door (docs/scoring.md#learning-from-traffic): records
   * that a model called `skill` after a request with the hashed `features` (from
   * {@link InjectOutcome.features}), which reached it as `source`. Counts a call of an injected
   * AUTO skill. Only AUTO skills learn. Never throws: a lost learning write is not the call's error.
   */
  async learnFromCall(
    apiKeyId: string | null,
    skill: Skill,
    features: readonly number[],
    source: LearningSource,
  ): Promise<void> {
    // Only AUTO picks are counted as injected and learn (`on` skills are always offered).
    if (skill.mode !== "auto") return;
    if (source === "injected") this.count(skill, "called");
    try {
      await this.opts.learning.learn(apiKeyId, skill, features, source);
    } catch {
      // The write failed (the skill was deleted meanwhile, the database is away): the call
      // stands, and the next calls teach again.
    }
  }

  /**
   * A call of `skill` by a door that keeps no provider request (MCP): learns when the link
   * under one of `linkIds` (a selection id, {@link MCP_LINK}) injected or found the skill.
   * Never throws.
   */
  async learnFromLinkedCall(
    apiKeyId: string | null,
    skill: Skill,
    linkIds: readonly string[],
  ): Promise<void> {
    try {
      const link = await this.opts.learning.linked(apiKeyId, linkIds);
      const source = link && sourceIn(link, skill.id);
      if (link && source) await this.learnFromCall(apiKeyId, skill, link.features, source);
    } catch {
      // The cache is away: nothing is learned from this call.
    }
  }

  /**
   * For `skill_search`: notes that a search with hashed `features` found `found` for the caller,
   * so that a later call of one of them (linked through `where`) teaches with source `searched`;
   * a found skill the link had not injected counts as found by search (what the ranker missed).
   * A held link is updated in place, a cached one written back. Never throws.
   */
  async noteSearchFound(
    apiKeyId: string | null,
    where: LinkRef,
    features: readonly number[],
    found: readonly Skill[],
  ): Promise<void> {
    try {
      const { learning } = this.opts;
      const link = "held" in where ? where.held : await learning.linked(apiKeyId, where.ids);
      const injected = link?.injected ?? [];
      for (const s of found) if (!injected.includes(s.id)) this.count(s, "searched");
      const searched = [...new Set([...(link?.searched ?? []), ...found.map((s) => s.id)])];
      const next: SelectionLink = {
        features: link?.features.length ? link.features : [...features],
        injected,
        searched: searched.slice(-200),
      };
      if ("held" in where) Object.assign(where.held, next);
      else await learning.link(apiKeyId, where.ids, next);
    } catch {
      // The cache is away: the search still answers.
    }
  }

  /** This process's selection counters per skill, and the default ranker now. */
  async selectionStats(): Promise<{ ranker: RankerName; skills: SelectionCounts[] }> {
    const settings = await this.opts.settings.get();
    return { ranker: settings.ranker ?? DEFAULT_RANKER, skills: this.opts.stats.list() };
  }
}

/** How a link offered `skillId`: injected, found by search, or not at all. */
export function sourceIn(
  link: { injected: readonly string[]; searched: readonly string[] },
  skillId: string,
): LearningSource | undefined {
  if (link.injected.includes(skillId)) return "injected";
  if (link.searched.includes(skillId)) return "searched";
  return undefined;
}
