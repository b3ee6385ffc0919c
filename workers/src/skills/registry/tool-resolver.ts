/**
 * The one place that turns a tool name into a skill (docs/tool-names.md,
 * docs/registry.md#visibility-and-shadowing), over one registry snapshot: what a model's call,
 * an `include` / `injected` entry or an MCP tool name means for a caller, which builtin a name or
 * alias means, and which version of a name competes for injection. A name is parsed once
 * (tool-names.ts); versions are ordered and constraints matched with `semver` by the snapshot.
 * Interception, injection and every other front door resolve names here; a resolver is built once
 * per snapshot generation ({@link toolResolverFor}).
 */
import {
  emittedToolName,
  type ParsedToolName,
  parseToolName,
  refHash,
} from "../injection/tool-names.js";
import type { Skill } from "../types.js";
import { RegistrySnapshot } from "./snapshot.js";

/** The registry view a resolver is built from: every skill row, and the snapshot generation. */
export interface SkillSource {
  readonly generation: number;
  readonly skills: readonly Skill[];
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
}

/** The first of `list` the caller sees: its own copy, else the global one. */
function pickForCaller(
  list: readonly Skill[] | undefined,
  apiKeyId: string | null,
): Skill | undefined {
  if (!list) return undefined;
  let global: Skill | undefined;
  for (const s of list) {
    if (s.apiKeyId === null) global ??= s;
    else if (apiKeyId !== null && s.apiKeyId === apiKeyId) return s;
  }
  return global;
}

/** Name resolution over one snapshot. */
export class ToolResolver {
  readonly generation: number;
  readonly skills: readonly Skill[];
  private readonly snapshot: RegistrySnapshot;
  /** Built on the first hash-form lookup (most requests never need it). */
  private byHash: Map<string, Skill[]> | null = null;
  /** Emitted tool name of every skill, by skill id. */
  private readonly toolNames = new Map<string, string>();
  /** name → highest active global version. */
  private readonly globalWinner = new Map<string, Skill>();
  /** apiKeyId → name → highest active version the key owns. */
  private readonly ownBest = new Map<string, Map<string, Skill>>();
  /** Position of a winner in its name's version order (lower = higher version). */
  private readonly rank = new Map<Skill, number>();

  /** @param source a {@link RegistrySnapshot}, or any view of every skill row. */
  constructor(source: SkillSource) {
    this.generation = source.generation;
    this.skills = source.skills;
    this.snapshot =
      source instanceof RegistrySnapshot ? source : new RegistrySnapshot(source.skills);
    for (const name of this.snapshot.names()) {
      const list = this.snapshot.versionsOf(name);
      list.forEach((s, i) => {
        if (!isActive(s)) return;
        if (s.apiKeyId === null) {
          if (this.globalWinner.has(name)) return;
          this.globalWinner.set(name, s);
        } else {
          let own = this.ownBest.get(s.apiKeyId);
          if (!own) {
            own = new Map();
            this.ownBest.set(s.apiKeyId, own);
          }
          if (own.has(name)) return;
          own.set(name, s);
        }
        this.rank.set(s, i);
      });
    }
  }

  /** The emitted tool name of `skill` (memoised per snapshot). */
  toolName(skill: Skill): string {
    let name = this.toolNames.get(skill.id);
    if (name === undefined) {
      name = emittedToolName(skill);
      this.toolNames.set(skill.id, name);
    }
    return name;
  }

  /** Every skill that may compete for injection for some caller (a name's winners), any order. */
  potentialWinners(): Skill[] {
    const out = [...this.globalWinner.values()];
    for (const own of this.ownBest.values()) out.push(...own.values());
    return out;
  }

  /**
   * The version of `name` that competes for injection for a caller: the highest active version
   * visible to it, the key's own winning ties (docs/registry.md#visibility-and-shadowing).
   */
  winner(name: string, apiKeyId: string | null): Skill | undefined {
    const own = apiKeyId === null ? undefined : this.ownBest.get(apiKeyId)?.get(name);
    const global = this.globalWinner.get(name);
    if (own && (!global || this.rank.get(own)! < this.rank.get(global)!)) return own;
    return global;
  }

  /** Every name with a competing version for the caller (global winners and the key's own). */
  competingNames(apiKeyId: string | null): Set<string> {
    const names = new Set(this.globalWinner.keys());
    if (apiKeyId !== null) for (const n of this.ownBest.get(apiKeyId)?.keys() ?? []) names.add(n);
    return names;
  }

  /** True when `skill` is the competing version of its name for the caller. */
  isWinner(skill: Skill, apiKeyId: string | null): boolean {
    if (skill.apiKeyId !== null && skill.apiKeyId !== apiKeyId) return false;
    return this.winner(skill.name, apiKeyId) === skill;
  }

  /** The builtin named `name` (highest version), any mode. */
  builtin(name: string): Skill | undefined {
    return this.snapshot.versionsOf(name).find(isBuiltin);
  }

  /**
   * What an `include` or `injected` entry names for the caller, any mode: `name@version`, the
   * direct or hash tool-name form, `name@<constraint>` (highest match), or a bare name (the
   * builtin of that name, else the name's competing version).
   */
  resolveName(text: string, apiKeyId: string | null): Skill | undefined {
    const parsed = parseToolName(text);
    if (parsed.kind !== "bare") return this.resolveParsed(parsed, apiKeyId);
    return this.builtin(parsed.name) ?? this.winner(parsed.name, apiKeyId);
  }

  /**
   * What a model's call named `toolName` targets for the caller (docs/interception.md), or
   * undefined when the call is not Skillgate's. In order: a builtin alias; an emitted tool name,
   * `name@version` or `name@<constraint>` that resolves; a builtin's bare name, unless
   * `injected` is given without it; a bare custom skill name that `injected` lists; a version
   * or constraint of a skill name the caller sees that resolves to no version (`missing`).
   */
  resolveCall(
    toolName: string,
    apiKeyId: string | null,
    opts: CallResolution = {},
  ): CallTarget | undefined {
    const alias = opts.builtinAliases?.get(toolName);
    if (alias !== undefined) {
      const builtin = this.builtin(alias);
      return builtin && { skill: builtin };
    }
    const parsed = parseToolName(toolName);
    const named = parsed.kind === "bare" ? undefined : this.resolveParsed(parsed, apiKeyId);
    if (named) return { skill: named };
    const builtin = this.builtin(toolName);
    if (builtin) {
      return !opts.injected || opts.injected.get(toolName) === builtin
        ? { skill: builtin }
        : undefined;
    }
    const injected = opts.injected?.get(toolName);
    if (injected) return { skill: injected };
    if (parsed.kind !== "ref" && parsed.kind !== "constraint") return undefined;
    // A registered name that merely looks versioned (`tool_v1_0_0`) is not a version request.
    if (this.snapshot.visibleVersions(toolName, apiKeyId).length > 0) return undefined;
    const versions = this.snapshot.visibleVersions(parsed.name, apiKeyId);
    if (versions.length === 0) return undefined;
    const requested = parsed.kind === "ref" ? parsed.version : parsed.constraint;
    return { missing: { name: parsed.name, requested, versions } };
  }

  /** A parsed `ref`, `constraint` or `hash` name → the skill the caller sees, any mode. */
  private resolveParsed(
    parsed: Exclude<ParsedToolName, { kind: "bare" }>,
    apiKeyId: string | null,
  ): Skill | undefined {
    if (parsed.kind === "ref") {
      const version = parsed.version;
      return pickForCaller(
        this.snapshot.versionsOf(parsed.name).filter((s) => s.version === version),
        apiKeyId,
      );
    }
    if (parsed.kind === "constraint")
      return this.snapshot.resolve(parsed.name, parsed.constraint, apiKeyId);
    if (!this.byHash) {
      this.byHash = new Map();
      for (const s of this.skills) {
        const hash = refHash(s.name, s.version);
        const list = this.byHash.get(hash);
        if (list) list.push(s);
        else this.byHash.set(hash, [s]);
      }
    }
    return pickForCaller(this.byHash.get(parsed.hash), apiKeyId);
  }
}

const CACHE_SIZE = 4;
const cache: ToolResolver[] = [];

/**
 * The resolver of a snapshot, built on first use and cached by generation (and skills array, so
 * two views that reuse a generation number never share one). Keeps the last few.
 */
export function toolResolverFor(source: SkillSource): ToolResolver {
  const hit = cache.find((r) => r.generation === source.generation && r.skills === source.skills);
  if (hit) return hit;
  const resolver = new ToolResolver(source);
  cache.unshift(resolver);
  if (cache.length > CACHE_SIZE) cache.pop();
  return resolver;
}
