/**
 * The one place that turns a tool name into a skill (docs/tool-names.md,
 * docs/registry.md#visibility-and-shadowing), over one registry snapshot: what a model's call,
 * an `include` / `injected` entry or an MCP tool name means for a caller, which builtin a name or
 * alias means, and which version of a name competes for injection. A name is parsed once
 * (tool-names.ts); versions are ordered and constraints matched with `semver` by the snapshot.
 * Interception, injection and every other front door resolve names here; a resolver is built once
 * per snapshot generation ({@link toolResolverFor}); the resolver of a snapshot derived from
 * another by a few changes (a registry write) is derived from the other's resolver
 * ({@link ToolResolver.derive}), at a cost that depends on the changes, not on the registry's size.
 */
import {
  emittedToolName,
  type ParsedToolName,
  parseToolName,
  refHash,
} from "../injection/tool-names.js";
import type { Skill } from "../types.js";
import { LayeredMap } from "./layered-map.js";
import {
  ownKey,
  patchLists,
  pickForCaller,
  type ResolverMaps,
  winnersOf,
} from "./resolver-maps.js";
import {
  type CallResolution,
  type CallTarget,
  isBuiltin,
  type SkillSource,
  type SourceChange,
} from "./skill-source.js";
import { RegistrySnapshot } from "./snapshot.js";

export {
  type CallResolution,
  type CallTarget,
  isActive,
  isBuiltin,
  type MissingVersion,
  type SkillSource,
  type SourceChange,
} from "./skill-source.js";

/** Emitted tool names, memoised per skill object (shared by every resolver that holds it). */
const toolNames = new WeakMap<Skill, string>();

/** Name resolution over one snapshot. */
export class ToolResolver {
  readonly generation: number;
  readonly skills: readonly Skill[];
  private readonly snapshot: RegistrySnapshot;
  /** Built on the first hash-form lookup (most requests never need it). */
  private byHash: LayeredMap<string, readonly Skill[]> | null;
  /** name → highest active global version. */
  private readonly globalWinner: LayeredMap<string, Skill>;
  /** `apiKeyId \n name` → highest active version the key owns. */
  private readonly ownBest: LayeredMap<string, Skill>;
  /** apiKeyId → names the key has a winner of. */
  private readonly ownNames: LayeredMap<string, ReadonlySet<string>>;

  /**
   * @param source a {@link RegistrySnapshot}, or any view of every skill row.
   * @param derived maps computed by {@link derive} (internal).
   */
  constructor(source: SkillSource, derived?: ResolverMaps) {
    this.generation = source.generation;
    this.skills = source.skills;
    this.snapshot =
      derived?.snapshot ??
      (source instanceof RegistrySnapshot ? source : new RegistrySnapshot(source.skills));
    if (derived) {
      this.byHash = derived.byHash;
      this.globalWinner = derived.globalWinner;
      this.ownBest = derived.ownBest;
      this.ownNames = derived.ownNames;
      return;
    }
    const global = new Map<string, Skill>();
    const own = new Map<string, Skill>();
    const names = new Map<string, Set<string>>();
    for (const name of this.snapshot.names()) {
      const w = winnersOf(name, this.snapshot.versionsOf(name));
      if (w.global) global.set(name, w.global);
      for (const [k, s] of w.own) {
        if (!s) continue;
        own.set(k, s);
        const key = s.apiKeyId!;
        const set = names.get(key);
        if (set) set.add(name);
        else names.set(key, new Set([name]));
      }
    }
    this.byHash = null;
    this.globalWinner = LayeredMap.of(global);
    this.ownBest = LayeredMap.of(own);
    this.ownNames = LayeredMap.of<string, ReadonlySet<string>>(names);
  }

  /**
   * The resolver of `source`, derived from this one (the resolver of `source.change.from`) by
   * its changes. Cost: O(changes × versions per name), not O(registry).
   */
  derive(source: SkillSource & { change: SourceChange }): ToolResolver {
    const change = source.change;
    const snapshot =
      source instanceof RegistrySnapshot ? source : new RegistrySnapshot(source.skills);
    const global = new Map<string, Skill | undefined>();
    const own = new Map<string, Skill | undefined>();
    const touchedNames = new Set<string>();
    for (const s of [...change.replaced, ...change.upserted]) touchedNames.add(s.name);
    const owners = new Map<string, Set<string>>();
    for (const name of touchedNames) {
      const w = winnersOf(name, snapshot.versionsOf(name));
      global.set(name, w.global);
      for (const [k, winner] of w.own) own.set(k, winner);
      // A key whose last skill of this name left: no winner any more.
      for (const r of change.replaced)
        if (r.name === name && r.apiKeyId !== null && !own.has(ownKey(r.apiKeyId, name)))
          own.set(ownKey(r.apiKeyId, name), undefined);
    }
    for (const [k, winner] of own) {
      const cut = k.indexOf("\n");
      const key = k.slice(0, cut);
      const name = k.slice(cut + 1);
      let set = owners.get(key);
      if (!set) {
        set = new Set(this.ownNames.get(key) ?? []);
        owners.set(key, set);
      }
      if (winner) set.add(name);
      else set.delete(name);
    }
    return new ToolResolver(source, {
      snapshot,
      byHash: this.byHash
        ? patchLists(this.byHash, (s) => refHash(s.name, s.version), change)
        : null,
      globalWinner: this.globalWinner.with(global),
      ownBest: this.ownBest.with(own),
      ownNames: this.ownNames.with(
        [...owners].map(([k, set]): [string, ReadonlySet<string> | undefined] => [
          k,
          set.size ? set : undefined,
        ]),
      ),
    });
  }

  /** The emitted tool name of `skill` (memoised per skill object). */
  toolName(skill: Skill): string {
    let name = toolNames.get(skill);
    if (name === undefined) {
      name = emittedToolName(skill);
      toolNames.set(skill, name);
    }
    return name;
  }

  /** The global winner of `name` (apiKeyId null) or the winner `apiKeyId` owns, if any. */
  winnersFor(name: string, apiKeyId: string | null): Skill | undefined {
    return apiKeyId === null
      ? this.globalWinner.get(name)
      : this.ownBest.get(ownKey(apiKeyId, name));
  }

  /** Every skill that may compete for injection for some caller (a name's winners), any order. */
  potentialWinners(): Skill[] {
    const out: Skill[] = [];
    const add = (s: Skill) => {
      out.push(s);
    };
    this.globalWinner.forEach(add);
    this.ownBest.forEach(add);
    return out;
  }

  /**
   * The version of `name` that competes for injection for a caller: the highest active version
   * visible to it, the key's own winning ties (docs/registry.md#visibility-and-shadowing).
   */
  winner(name: string, apiKeyId: string | null): Skill | undefined {
    const own = apiKeyId === null ? undefined : this.ownBest.get(ownKey(apiKeyId, name));
    const global = this.globalWinner.get(name);
    if (!own) return global;
    if (!global) return own;
    // Versions are ordered highest first, a key's own copy before the global one of its version.
    const versions = this.snapshot.versionsOf(name);
    return versions.indexOf(own) < versions.indexOf(global) ? own : global;
  }

  /** Every name with a competing version for the caller (global winners and the key's own). */
  competingNames(apiKeyId: string | null): Set<string> {
    const names = new Set(this.globalWinner.keys());
    if (apiKeyId !== null) for (const n of this.ownNames.get(apiKeyId) ?? []) names.add(n);
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
   * `injected` is given without it and the client declared a tool of that name (or its tools are
   * not known, `clientTools`); a bare custom skill name that `injected` lists; a version
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
      const owned =
        !opts.injected ||
        opts.injected.get(toolName) === builtin ||
        (opts.clientTools !== undefined && !opts.clientTools.has(toolName));
      return owned ? { skill: builtin } : undefined;
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
      const byHash = new Map<string, Skill[]>();
      for (const s of this.skills) {
        const hash = refHash(s.name, s.version);
        const list = byHash.get(hash);
        if (list) list.push(s);
        else byHash.set(hash, [s]);
      }
      this.byHash = LayeredMap.of<string, readonly Skill[]>(byHash);
    }
    return pickForCaller(this.byHash.get(parsed.hash), apiKeyId);
  }
}

const CACHE_SIZE = 4;
const cache: ToolResolver[] = [];

/** The cached resolver of `source`, if any (by generation and skills array). */
export function cachedToolResolver(
  source: Pick<SkillSource, "generation" | "skills">,
): ToolResolver | undefined {
  return cache.find((r) => r.generation === source.generation && r.skills === source.skills);
}

/** Keeps `resolver` among the last few resolvers. @returns it. */
export function rememberToolResolver(resolver: ToolResolver): ToolResolver {
  const at = cache.indexOf(resolver);
  if (at >= 0) cache.splice(at, 1);
  cache.unshift(resolver);
  if (cache.length > CACHE_SIZE) cache.pop();
  return resolver;
}

/**
 * The resolver of a snapshot, built on first use and cached by generation (and skills array, so
 * two views that reuse a generation number never share one). Keeps the last few. A snapshot
 * derived from one whose resolver is cached gets a derived resolver.
 */
export function toolResolverFor(source: SkillSource): ToolResolver {
  const hit = cachedToolResolver(source);
  if (hit) return hit;
  const change = source.change;
  const parent = change ? cachedToolResolver(change.from) : undefined;
  return rememberToolResolver(
    parent && change
      ? parent.derive(source as SkillSource & { change: SourceChange })
      : new ToolResolver(source),
  );
}
