/**
 * `injectSkills` (docs/injection.md): chooses the skills for one provider request and
 * returns the request with them added as tools in the request's own format.
 *
 * Selection, for a caller key over a registry snapshot:
 * - visibility: global skills and the key's own; the key's own shadows a global `name@version`;
 * - per name only the competing version counts: the highest active (enabled, mode not `off`)
 *   version visible to the key;
 * - mode `on` → always (not counted in the 5); `off` → never; policy `manual`, or a handler whose
 *   floor is `manual` (policy-floor.ts) → never (the model cannot call it); mode `auto` → `scoreAutoSkill` >= 3, at most 5, highest first, ties by
 *   installCount desc then name asc;
 * - `include` entries (`name`, `name@version` or an emitted tool name) are added as well, whatever
 *   their score (this is how two versions go side by side); `exclude` entries are never injected;
 * - the client's own tools win name clashes, with the emitted name or the skill's bare name (so
 *   a call to the bare name stays the client's at interception); the master switch off or the
 *   request's own "no tools" choice → nothing is injected and the request is returned as is.
 */
import { getProvider } from "../providers/index.js";
import type { JsonObject, ProviderFormat, SchemaDialect, ToolSpec } from "../providers/types.js";
import { getInjectionIndex } from "./injection-index.js";
import { modelPolicy, type PolicyFloors } from "./policy-floor.js";
import { adaptSchema } from "./schema-adapt.js";
import { AUTO_MAX_SKILLS, buildScoringContext, scoreAutoSkill } from "./scoring.js";
import { isActive, type SkillLookup, type SkillSource } from "./skill-lookup.js";
import { parseToolName } from "./tool-names.js";
import type { JsonSchema, Skill, SkillMode } from "./types.js";

/** Input of {@link injectSkills}. */
export interface InjectOptions {
  format: ProviderFormat;
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
  /** Policy floors by handler name; default the product's (policy-floor.ts). */
  policyFloors?: PolicyFloors;
}

/** One injected tool (`injected[]`); `score` is null for `on` skills. */
export interface InjectedTool {
  name: string;
  version: string;
  toolName: string;
  mode: SkillMode;
  score: number | null;
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

/** The tool description a skill is emitted with (its description, or `name version`). */
export function toolDescription(skill: Skill): string {
  return skill.description || `${skill.name} ${skill.version}`;
}

/** Resolves an include entry to the skill it names for the caller, or undefined. */
function resolveEntry(
  entry: string,
  lookup: SkillLookup,
  apiKeyId: string | null,
): Skill | undefined {
  const parsed = parseToolName(entry);
  if (parsed.kind === "ref") return lookup.resolveRef(parsed.name, parsed.version, apiKeyId);
  if (parsed.kind === "hash") return lookup.resolveHash(parsed.hash, apiKeyId);
  return lookup.winner(entry, apiKeyId);
}

/**
 * Injects skills into `opts.request` (see the module docs for the rules).
 * @returns the new request (the input is not mutated) and the injected tools, in tool order.
 */
export function injectSkills(opts: InjectOptions): InjectResult {
  const adapter = getProvider(opts.format);
  if (opts.skillsEnabled === false || adapter.toolsDisabled(opts.request)) {
    return { request: opts.request, injected: [] };
  }
  const index = getInjectionIndex(opts.snapshot);
  const { lookup } = index;
  const clientNames = adapter.clientToolNames(opts.request);
  const exclude = new Set(opts.exclude ?? []);
  const chosen = new Map<string, { skill: Skill; score: number | null }>();
  const usable = (s: Skill) => {
    if (chosen.has(s.id)) return false;
    if (modelPolicy(s, opts.policyFloors) === "manual") return false;
    if (clientNames.size === 0 && exclude.size === 0) return true;
    const toolName = lookup.toolName(s);
    return (
      !clientNames.has(toolName) &&
      !clientNames.has(s.name) &&
      !exclude.has(s.name) &&
      !exclude.has(`${s.name}@${s.version}`) &&
      !exclude.has(toolName)
    );
  };
  const ctx = buildScoringContext({
    text: adapter.contextText(opts.request),
    provider: adapter.provider,
    backgroundReason: opts.backgroundReason ?? null,
  });

  const onSkills = index
    .onSkills(opts.apiKeyId)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const s of onSkills) if (usable(s)) chosen.set(s.id, { skill: s, score: null });
  for (const entry of opts.include ?? []) {
    const s = resolveEntry(entry, lookup, opts.apiKeyId);
    if (!s || !isActive(s) || !usable(s)) continue;
    chosen.set(s.id, { skill: s, score: s.mode === "on" ? null : scoreAutoSkill(s, ctx) });
  }
  for (const { skill, score } of index.topAuto(ctx, opts.apiKeyId, usable, AUTO_MAX_SKILLS)) {
    chosen.set(skill.id, { skill, score });
  }

  const specs: ToolSpec[] = [];
  const injected: InjectedTool[] = [];
  for (const { skill, score } of chosen.values()) {
    const toolName = lookup.toolName(skill);
    specs.push({
      name: toolName,
      description: toolDescription(skill),
      parameters: parametersFor(skill, adapter.schemaDialect),
    });
    injected.push({ name: skill.name, version: skill.version, toolName, mode: skill.mode, score });
  }
  return { request: adapter.addTools(opts.request, specs), injected };
}
