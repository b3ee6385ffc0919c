/**
 * Selection counters of this process, per skill (docs/scoring.md#selection-counters): how often
 * each skill was injected as an AUTO pick, how often a model called it when it was injected
 * (precision = called / injected), and how often `skill_search` found it when the ranker had not
 * injected it (what the ranker missed). The dashboard reads them; the metrics backend gets the
 * same events as Prometheus counters.
 */

/** One skill's counters. */
export interface SelectionCounts {
  skillId: string;
  /** `name@version`. */
  skill: string;
  injected: number;
  calledWhenInjected: number;
  foundBySearch: number;
}

/** Which counter an event adds to. */
export type SelectionEvent = "injected" | "called" | "searched";

/** Most skills counted; past it the skill counted least is dropped (bounded memory). */
export const MAX_COUNTED_SKILLS = 10_000;

/** The counters of this process. */
export class SelectionStats {
  private readonly bySkill = new Map<string, SelectionCounts>();

  /** Adds one `event` for the skill `skillId` (`label` = `name@version`). */
  count(skillId: string, label: string, event: SelectionEvent): void {
    let c = this.bySkill.get(skillId);
    if (!c) {
      if (this.bySkill.size >= MAX_COUNTED_SKILLS) this.dropLeast();
      c = { skillId, skill: label, injected: 0, calledWhenInjected: 0, foundBySearch: 0 };
      this.bySkill.set(skillId, c);
    }
    if (event === "injected") c.injected++;
    else if (event === "called") c.calledWhenInjected++;
    else c.foundBySearch++;
  }

  private dropLeast(): void {
    let least: SelectionCounts | undefined;
    for (const c of this.bySkill.values()) {
      if (!least || total(c) < total(least)) least = c;
    }
    if (least) this.bySkill.delete(least.skillId);
  }

  /** Every skill's counters, most injected first (then most found by search, then by name). */
  list(): SelectionCounts[] {
    return [...this.bySkill.values()]
      .map((c) => ({ ...c }))
      .sort(
        (a, b) =>
          b.injected - a.injected ||
          b.foundBySearch - a.foundBySearch ||
          (a.skill < b.skill ? -1 : a.skill > b.skill ? 1 : 0),
      );
  }
}

function total(c: SelectionCounts): number {
  return c.injected + c.calledWhenInjected + c.foundBySearch;
}
