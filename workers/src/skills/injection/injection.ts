/**
 * `injectSkills` (docs/injection.md): chooses the skills for one provider request and
 * returns the request with them added as tools in the request's own format.
 *
 * Selection, for a caller key over a registry snapshot:
 * - visibility: global skills and the key's own; the key's own shadows a global `name@version`;
 * - per name only the competing version counts: the highest active (enabled, mode not `off`)
 *   version visible to the key;
 * - mode `on` → always (not counted in the 5); `off` → never; policy `manual`, or a handler whose
 *   floor is `manual` (policy-floor.ts) → never (the model cannot call it); mode `auto` → ranked
 *   by the request's ranker (`bm25` by default, or `keyword`: `scoreAutoSkill` >= 3), at most 5
 *   that reach the ranker's gate, highest first, ties by installCount desc then name asc;
 * - `include` entries (`name`, `name@version`, `name@<constraint>` or an emitted tool name,
 *   resolved by the registry's tool resolver) are added as well, whatever
 *   their score (this is how two versions go side by side); `exclude` entries are never injected;
 * - the client's own tools win name clashes, with the emitted name or the skill's bare name (so
 *   a call to the bare name stays the client's at interception); the master switch off or the
 *   request's own "no tools" choice → nothing is injected and the request is returned as is.
 */
import { getFormatAdapter } from "../../formats/index.js";
import type { JsonObject, SchemaDialect, ToolSpec, WireFormat } from "../../formats/types.js";
import { modelPolicy, type PolicyFloors } from "../interception/policy-floor.js";
import { isActive, isBuiltin, type SkillSource } from "../registry/tool-resolver.js";
import type { InjectionMode, JsonSchema, Skill } from "../types.js";
import { getInjectionIndex } from "./index-cache.js";
import type { InjectionIndex } from "./injection-index.js";
import { bm25Query } from "./rankers/bm25-query.js";
import type { Bm25Query } from "./rankers/bm25-state.js";
import { DEFAULT_RANKER, type RankerName } from "./rankers/index.js";
import { adaptSchema } from "./schema-adapt.js";
import { AUTO_MAX_SKILLS, buildScoringContext, scoreAutoSkill } from "./scoring.js";

/** Input of {@link injectSkills}. */
export interface InjectOptions {
  format: WireFormat;
  /** The provider request as the client would send it (parsed JSON). */
  request: JsonObject;
  /** Registry snapshot: every skill of every owner, and its generation. */
  snapshot: SkillSource;
  /** The calling key; null = management acting globally (global skills only). */
  apiKeyId: string | null;
  backgroundReason?: string | null;
  include?: readonly string[];
  exclude?: readonly string[];
  /** Master switch (`skillsEnabled`); false → nothing injected. Default true. */
  skillsEnabled?: boolean;
  /**
   * The `customSkillExecution` setting; false → only builtins are injected (a custom skill could
   * not run). Default true.
   */
  customSkillsEnabled?: boolean;
  /** Policy floors by handler name; default the product's (policy-floor.ts). */
  policyFloors?: PolicyFloors;
  /** The ranker of AUTO candidates (docs/scoring.md); default {@link DEFAULT_RANKER}. */
  ranker?: RankerName;
  /**
   * What learning from traffic scored for this request (skill id → learned score, see
   * skills/learning/learned-model.ts); the `bm25` ranker adds {@link LEARNED_WEIGHT} times it
   * to a skill's score (docs/scoring.md#learning-from-traffic). `keyword` ignores it.
   */
  learned?: ReadonlyMap<string, number>;
  /** The request's context text when the caller already took it (`adapter.contextText`). */
  contextText?: string;
}

/** Weight of the learned score in a `bm25` score. */
export const LEARNED_WEIGHT = 1;
/** Skills with a learned score considered per request, the highest first. */
export const MAX_LEARNED_CANDIDATES = 20;

/**
 * One injected tool (`injected[]`); `score` and `ranker` are null for `on` skills. `score` is on
 * the scale of the ranker that produced it: integer points for `keyword`, a BM25F score for
 * `bm25` (docs/scoring.md).
 */
export interface InjectedTool {
  name: string;
  version: string;
  toolName: string;
  mode: InjectionMode;
  score: number | null;
  ranker: RankerName | null;
  /**
   * True for a skill `skill_search` found and the proxy declared for the following rounds
   * (docs/proxy.md#skill-search); absent otherwise.
   */
  found?: true;
  /**
   * True for a skill declared with `defer_loading: true` for Anthropic's own tool search
   * (docs/proxy.md#anthropic-tool-search); absent otherwise.
   */
  deferred?: true;
}

/** Output of {@link injectSkills}. */
export interface InjectResult {
  request: JsonObject;
  injected: InjectedTool[];
}

const adapted = new WeakMap<Skill, Partial<Record<SchemaDialect, JsonSchema | null>>>();

/** A skill's parameters in a dialect, memoised per skill object. */
function parametersFor(skill: Skill, dialect: SchemaDialect): JsonSchema | null {
  let entry = adapted.get(skill);
  if (!entry) {
    entry = {};
    adapted.set(skill, entry);
  }
  if (!(dialect in entry)) entry[dialect] = adaptSchema(skill.schema.input, dialect);
  return entry[dialect] ?? null;
}

/**
 * The tool declaration `skill` is emitted with under `toolName` in `dialect` (docs/injection.md):
 * its description and its input schema adapted to the dialect.
 */
export function skillToolSpec(skill: Skill, toolName: string, dialect: SchemaDialect): ToolSpec {
  return {
    name: toolName,
    description: toolDescription(skill),
    parameters: parametersFor(skill, dialect),
  };
}

/** The tool description a skill is emitted with (its description, or `name version`). */
export function toolDescription(skill: Skill): string {
  return skill.description || `${skill.name} ${skill.version}`;
}

/**
 * The best `k` AUTO skills for the `bm25` ranker with learned scores added: the BM25F top plus the
 * {@link MAX_LEARNED_CANDIDATES} skills with the highest learned scores, each scored
 * bm25 + {@link LEARNED_WEIGHT} × learned, gated (at `gateShare` of the gate) and ordered as
 * `bm25` alone is (docs/scoring.md#learning-from-traffic). Injection takes the first five at the
 * full gate; `skill_search` takes its limit at its share of the gate.
 */
export function topWithLearned(
  index: InjectionIndex,
  query: Bm25Query,
  apiKeyId: string | null,
  usable: (s: Skill) => boolean,
  learned: ReadonlyMap<string, number>,
  k: number = AUTO_MAX_SKILLS,
  gateShare = 1,
): { skill: Skill; score: number }[] {
  const boosted = [...learned]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, MAX_LEARNED_CANDIDATES);
  const scored = new Map<string, { skill: Skill; score: number }>();
  for (const hit of index.topBm25(query, apiKeyId, usable, k + boosted.length, gateShare)) {
    scored.set(hit.skill.id, hit);
  }
  for (const [id, value] of boosted) {
    const skill = index.bm25Candidate(id);
    if (!skill) continue;
    const base = scored.get(id)?.score;
    if (base === undefined && !(index.resolver.isWinner(skill, apiKeyId) && usable(skill)))
      continue;
    scored.set(id, {
      skill,
      score: (base ?? index.bm25Score(query, skill)) + LEARNED_WEIGHT * value,
    });
  }
  const gate = index.bm25Shape().gate * gateShare;
  return [...scored.values()]
    .filter((h) => h.score >= gate)
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.skill.installCount - a.skill.installCount ||
        (a.skill.name < b.skill.name ? -1 : a.skill.name > b.skill.name ? 1 : 0) ||
        (a.skill.id < b.skill.id ? -1 : a.skill.id > b.skill.id ? 1 : 0),
    )
    .slice(0, k);
}

/**
 * Injects skills into `opts.request` (see the module docs for the rules).
 * @returns the new request (the input is not mutated) and the injected tools, in tool order.
 */
export function injectSkills(opts: InjectOptions): InjectResult {
  const adapter = getFormatAdapter(opts.format);
  if (opts.skillsEnabled === false || adapter.toolsDisabled(opts.request)) {
    return { request: opts.request, injected: [] };
  }
  const index = getInjectionIndex(opts.snapshot);
  const { resolver } = index;
  const clientNames = adapter.clientToolNames(opts.request);
  const exclude = new Set(opts.exclude ?? []);
  const chosen = new Map<string, { skill: Skill; score: number | null }>();
  const usable = (s: Skill) => {
    if (chosen.has(s.id)) return false;
    if (opts.customSkillsEnabled === false && !isBuiltin(s)) return false;
    if (modelPolicy(s, opts.policyFloors) === "manual") return false;
    if (clientNames.size === 0 && exclude.size === 0) return true;
    const toolName = resolver.toolName(s);
    return (
      !clientNames.has(toolName) &&
      !clientNames.has(s.name) &&
      !exclude.has(s.name) &&
      !exclude.has(`${s.name}@${s.version}`) &&
      !exclude.has(toolName)
    );
  };
  const ranker = opts.ranker ?? DEFAULT_RANKER;
  const text = opts.contextText ?? adapter.contextText(opts.request);
  const ctx =
    ranker === "keyword"
      ? buildScoringContext({
          text,
          provider: adapter.provider,
          backgroundReason: opts.backgroundReason ?? null,
        })
      : null;
  const query = ranker === "bm25" ? bm25Query(text, opts.backgroundReason) : null;
  const scoreOf = (s: Skill) => (ctx ? scoreAutoSkill(s, ctx) : index.bm25Score(query!, s));

  const onSkills = index
    .onSkills(opts.apiKeyId)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const s of onSkills) if (usable(s)) chosen.set(s.id, { skill: s, score: null });
  for (const entry of opts.include ?? []) {
    const s = resolver.resolveName(entry, opts.apiKeyId);
    if (!s || !isActive(s) || !usable(s)) continue;
    chosen.set(s.id, { skill: s, score: s.mode === "on" ? null : scoreOf(s) });
  }
  const top = ctx
    ? index.topAuto(ctx, opts.apiKeyId, usable, AUTO_MAX_SKILLS)
    : opts.learned && opts.learned.size > 0
      ? topWithLearned(index, query!, opts.apiKeyId, usable, opts.learned)
      : index.topBm25(query!, opts.apiKeyId, usable, AUTO_MAX_SKILLS);
  for (const { skill, score } of top) chosen.set(skill.id, { skill, score });

  const specs: ToolSpec[] = [];
  const injected: InjectedTool[] = [];
  for (const { skill, score } of chosen.values()) {
    const toolName = resolver.toolName(skill);
    specs.push(skillToolSpec(skill, toolName, adapter.schemaDialect));
    injected.push({
      name: skill.name,
      version: skill.version,
      toolName,
      mode: skill.mode,
      score,
      ranker: score === null ? null : ranker,
    });
  }
  return { request: adapter.addTools(opts.request, specs), injected };
}
