/**
 * The registry view a tool resolver is built from (docs/registry.md#visibility-and-shadowing):
 * every skill row of a snapshot and how it differs from the one it was derived from, plus the
 * activity rules and the call targets resolution answers with.
 */
import type { InjectionIndexCache } from "../injection/index-cache.js";
import type { Skill } from "../types.js";

/** How a source differs from the source it was derived from (incremental index updates). */
export interface SourceChange {
  /** The source this one was derived from (its generation and its skills array). */
  readonly from: { readonly generation: number; readonly skills: readonly Skill[] };
  /** Skills added or replaced (their new objects). */
  readonly upserted: readonly Skill[];
  /** Skills replaced or removed, as the earlier source held them. */
  readonly replaced: readonly Skill[];
}

/** The registry view a resolver is built from: every skill row, and the snapshot generation. */
export interface SkillSource {
  readonly generation: number;
  readonly skills: readonly Skill[];
  /** Set when this source was derived from an earlier one by a few changes. */
  readonly change?: SourceChange;
  /**
   * Where the injection indexes of this source and of the sources derived from it are kept (the
   * registry's, owned by its index store; docs/scoring.md#keeping-the-index-current). Without
   * one, a source's index is built once and kept with the source object.
   */
  readonly indexCache?: InjectionIndexCache;
}

/** Active = may be injected or executed at all: `enabled` and mode not `off` (docs/policies.md). */
export function isActive(skill: Skill): boolean {
  return skill.enabled && skill.mode !== "off";
}

/** True for a builtin skill (global, `sourceProvider: "builtin"`). */
export function isBuiltin(skill: Skill): boolean {
  return skill.sourceProvider === "builtin" && skill.apiKeyId === null;
}

/** A call naming a registered skill at a version or constraint that does not resolve. */
export interface MissingVersion {
  /** The skill name the call names. */
  name: string;
  /** The version or constraint it asked for (`3.0.0`, `^3.0.0`). */
  requested: string;
  /** The versions of `name` the caller sees, highest first (any mode). */
  versions: readonly Skill[];
}

/** What a model's call names: a skill, or a version of a skill the caller sees that is missing. */
export type CallTarget =
  | { skill: Skill; missing?: undefined }
  | { skill?: undefined; missing: MissingVersion };

/** Rules of {@link ToolResolver.resolveCall} that depend on the request. */
export interface CallResolution {
  /** Skills the client said it injected, by skill name (see docs/interception.md). */
  injected?: ReadonlyMap<string, Skill>;
  /** Builtin aliases: alias → builtin name (from the builtin declarations). */
  builtinAliases?: ReadonlyMap<string, string>;
  /**
   * Names of the tools the client declared itself, when known (the proxy knows them). With
   * `injected` given, a builtin's bare name that was not injected is the client's only when the
   * client declared a tool of that name; otherwise the call is Skillgate's, so that the policies
   * (and their floors) answer it instead of leaving the client with a tool it never declared.
   */
  clientTools?: ReadonlySet<string>;
}
