/**
 * AUTO scoring (docs/scoring.md): additive integer points of a skill against a request context. The
 * tokenizer and every rule here are fixed so that scores are reproducible:
 *
 * | signal | points |
 * |---|---|
 * | skill name appears verbatim in the context text | +6 |
 * | each name token that matches a context token | +2 |
 * | each tag that appears as a substring of the context text | +3 |
 * | each description token that matches a context token | +1 |
 * | background reason matches a name token | +2 per token |
 * | background reason matches a tag | +2 per (tag) token |
 * | a provider hint in the tags matches / contradicts the request's provider | +2 / −2 |
 *
 * The context text is the request's messages text (system prompt, user and assistant text); the
 * background reason is scored by its own two rows. The injection index reproduces exactly this
 * function for speed (see injection-index.ts); this module is the reference.
 */
import type { RequestProvider } from "../../formats/types.js";

/** Minimum score for an `auto` skill to be injected. */
export const AUTO_MIN_SCORE = 3;
/** At most this many `auto` skills are injected per request. */
export const AUTO_MAX_SKILLS = 5;

/** Tags that are provider hints, and the provider each one names. */
export const PROVIDER_HINTS: Readonly<Record<string, RequestProvider>> = {
  openai: "openai",
  gpt: "openai",
  anthropic: "anthropic",
  claude: "anthropic",
  google: "google",
  gemini: "google",
};

/** Adds the scoring tokens of an already lowercased text to `out`. */
function addTokens(lower: string, out: Set<string>): Set<string> {
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 0;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start >= 3) out.add(lower.slice(start, i));
      start = -1;
    }
  }
  return out;
}

/**
 * Scoring tokens (docs/scoring.md#tokens): lowercase the text, take the runs of `[a-z0-9]`, keep
 * runs of 3 or more characters, de-duplicate (first occurrence order).
 */
export function tokenize(text: string): string[] {
  return [...addTokens(text.toLowerCase(), new Set())];
}

/**
 * Name tokens (docs/scoring.md#tokens): split at camelCase boundaries (`issueSearch` →
 * `issue Search`, `HTTPServer` → `HTTP Server`, `v2Api` → `v2 Api`) and at `. _ @ - /`, then
 * {@link tokenize}.
 */
export function nameTokens(name: string): string[] {
  const split = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1 $2")
    .replace(/[._@\-/]/g, " ");
  return tokenize(split);
}

/** Tags as scored: lowercased, empty ones dropped, de-duplicated. */
export function normaliseTags(tags: readonly string[]): string[] {
  const out = new Set<string>();
  for (const t of tags) {
    const lower = t.toLowerCase();
    if (lower.length > 0) out.add(lower);
  }
  return [...out];
}

/**
 * +2 when a provider hint among `tags` (already normalised) names `provider`, −2 when the tags
 * carry hints but none names it, 0 without hints.
 */
export function providerHintPoints(tags: readonly string[], provider: RequestProvider): number {
  let hinted = false;
  for (const tag of tags) {
    const hint = Object.hasOwn(PROVIDER_HINTS, tag) ? PROVIDER_HINTS[tag] : undefined;
    if (hint === undefined) continue;
    if (hint === provider) return 2;
    hinted = true;
  }
  return hinted ? -2 : 0;
}

/** A request context prepared for scoring. */
export interface ScoringContext {
  /** Lowercased messages text (for the verbatim-name and tag-substring rules). */
  text: string;
  /** {@link tokenize} of the messages text. */
  tokens: ReadonlySet<string>;
  provider: RequestProvider;
  /** {@link tokenize} of the background reason (empty without one). */
  reasonTokens: ReadonlySet<string>;
}

/** Builds a {@link ScoringContext} from the messages text, the provider and an optional reason. */
export function buildScoringContext(input: {
  text: string;
  provider: RequestProvider;
  backgroundReason?: string | null;
}): ScoringContext {
  const text = input.text.toLowerCase();
  let tokens: Set<string> | undefined;
  return {
    text,
    // Built on first use: the injection index reads the text directly (token-table.ts).
    get tokens() {
      tokens ??= addTokens(text, new Set());
      return tokens;
    },
    provider: input.provider,
    reasonTokens: addTokens((input.backgroundReason ?? "").toLowerCase(), new Set()),
  };
}

/** The fields of a skill that scoring reads. */
export interface ScorableSkill {
  name: string;
  description: string;
  tags: readonly string[];
}

/** Points per row of the scoring table, for tests and diagnostics. */
export interface ScoreBreakdown {
  verbatimName: number;
  nameTokens: number;
  tags: number;
  descriptionTokens: number;
  reasonNameTokens: number;
  reasonTagTokens: number;
  providerHint: number;
  total: number;
}

/** Scores one skill against a context row by row. */
export function scoreBreakdown(skill: ScorableSkill, ctx: ScoringContext): ScoreBreakdown {
  const nTokens = nameTokens(skill.name);
  const tags = normaliseTags(skill.tags);
  const count = (tokens: readonly string[], set: ReadonlySet<string>) =>
    tokens.filter((t) => set.has(t)).length;
  const b = {
    verbatimName: ctx.text.includes(skill.name.toLowerCase()) ? 6 : 0,
    nameTokens: 2 * count(nTokens, ctx.tokens),
    tags: 3 * tags.filter((t) => ctx.text.includes(t)).length,
    descriptionTokens: count(tokenize(skill.description), ctx.tokens),
    reasonNameTokens: 2 * count(nTokens, ctx.reasonTokens),
    reasonTagTokens: 2 * count(tokenize(tags.join(" ")), ctx.reasonTokens),
    providerHint: providerHintPoints(tags, ctx.provider),
  };
  const total =
    b.verbatimName +
    b.nameTokens +
    b.tags +
    b.descriptionTokens +
    b.reasonNameTokens +
    b.reasonTagTokens +
    b.providerHint;
  return { ...b, total };
}

/** `scoreAutoSkill`: the total integer score of `skill` against `ctx`. */
export function scoreAutoSkill(skill: ScorableSkill, ctx: ScoringContext): number {
  return scoreBreakdown(skill, ctx).total;
}
