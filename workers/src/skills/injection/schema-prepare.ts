/**
 * The provider-neutral step of schema adaptation (docs/schema-adaptation.md): a skill's
 * normalised input schema becomes a "portable" JSON Schema whose structure every supported
 * provider accepts, plus the map that turns emitted argument names back into the skill's own.
 *
 * Portable form (each rule comes from a provider's documentation, see the doc):
 * - root `type: "object"` with a `properties` object and no `anyOf`/`oneOf`/`allOf`/`enum`/`not`
 *   (OpenAI and Anthropic refuse root combinators): root alternatives are folded into the root
 *   (their properties added, names required by every alternative required, the alternatives
 *   described in the root `description`);
 * - `$ref`s inlined from `$defs`/`definitions` (a recursive one becomes an open value), `allOf`
 *   merged, `oneOf` turned into `anyOf`;
 * - only the keywords listed for the portable form in the doc, and type-specific ones only on
 *   nodes of that type (`properties` never on an `integer`);
 * - every array schema has `items` (OpenAI refuses one without); missing items become `{}`
 *   (any value), tuples the `anyOf` of their members;
 * - at most 32 levels and 5,000 nodes (inlined references included); beyond, an open value;
 * - property names matching {@link SAFE_ARGUMENT_NAME} (see argument-names.ts).
 *
 * The result may be looser than the skill's schema, never stricter: the executor still validates
 * a call's input against the skill's own schema before the handler runs.
 */

import type { JsonSchema } from "../types.js";
import {
  type ArgumentNameMap,
  mergeArgumentNameMaps,
  restoreArgumentNames,
  SAFE_ARGUMENT_NAME,
  safeArgumentNames,
} from "./argument-names.js";
import { TYPED_KEYWORDS } from "./schema-keywords.js";
import {
  addProperties,
  appendDescription,
  asList,
  isObject,
  isObjectLike,
  isRefinement,
  type Obj,
  oneBranch,
  stringList,
  typesOf,
  withoutBooleanBranches,
} from "./schema-node.js";

export { appendDescription, SAFE_ARGUMENT_NAME };

/** A portable schema and its argument-name map. */
export interface PreparedSchema {
  schema: JsonSchema & { type: "object"; properties: Record<string, JsonSchema> };
  /** Undefined when no name anywhere needed a change. */
  names: ArgumentNameMap | undefined;
}

type Converted = { schema: Obj; names?: ArgumentNameMap };

const MAX_DEPTH = 32;
const MAX_REFS = 16;
/** Nodes converted per schema at most (inlining a $defs graph can multiply them). */
const MAX_NODES = 5_000;

class Preparer {
  private readonly defs: Obj;
  private nodes = 0;

  constructor(root: Obj) {
    this.defs = {
      ...(isObject(root.definitions) ? root.definitions : {}),
      ...(isObject(root.$defs) ? root.$defs : {}),
    };
  }

  /**
   * The node with its `$ref` inlined and `allOf` merged, and the references followed on the way
   * (`seen` plus those); null for a recursive or unknown reference.
   */
  private resolve(
    raw: Obj,
    seen: readonly string[],
  ): { node: Obj; seen: readonly string[] } | null {
    let node = raw;
    let path = seen;
    if (typeof node.$ref === "string") {
      const ref = node.$ref;
      const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
      const target = m ? this.defs[m[1]!.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined;
      if (!isObject(target) || seen.includes(ref) || seen.length >= MAX_REFS) return null;
      const inner = this.resolve(target, [...seen, ref]);
      if (!inner) return null;
      // Keywords beside a $ref apply together with the target: merged like an allOf member.
      const { $ref: _ref, ...siblings } = node;
      node = { ...siblings, allOf: [...asList(siblings.allOf), inner.node] };
      path = inner.seen;
    }
    if (!Array.isArray(node.allOf)) return { node, seen: path };
    const { allOf, ...base } = node;
    const merged: Obj = { ...base };
    for (const raw of allOf) {
      const part = isObject(raw) ? this.resolve(raw, path) : null;
      if (!part) continue;
      path = [...new Set([...path, ...part.seen])];
      for (const [k, v] of Object.entries(part.node)) {
        if (k === "properties" && isObject(v))
          merged.properties = addProperties(merged.properties, v);
        else if (k === "required" && Array.isArray(v))
          merged.required = [...new Set([...asList(merged.required), ...v])];
        else if (!(k in merged)) merged[k] = v;
      }
    }
    return { node: merged, seen: path };
  }

  /** Converts one schema (see the module docs); null for the `false` schema. */
  convert(raw: unknown, depth: number, seen: readonly string[], root = false): Converted | null {
    if (raw === false) return null;
    if (!isObject(raw) || depth > MAX_DEPTH || ++this.nodes > MAX_NODES) return { schema: {} };
    let resolved = this.resolve(raw, seen);
    if (resolved) resolved = { ...resolved, node: withoutBooleanBranches(resolved.node) };
    if (resolved && oneBranch(resolved.node)) {
      // anyOf/oneOf of one schema means that schema: merged like an allOf member.
      const { anyOf, oneOf, ...rest } = resolved.node;
      const only = [...asList(anyOf), ...asList(oneOf)];
      resolved = this.resolve({ ...rest, allOf: only }, resolved.seen);
    }
    if (!resolved) {
      // Recursive or unknown reference: an open value (described when it said what it is).
      const out: Obj = {};
      if (typeof raw.description === "string") out.description = raw.description;
      return { schema: out };
    }
    const node = resolved.node;
    seen = resolved.seen;
    let types = typesOf(node);
    if (types.length === 0 && isObject(node.properties)) types = ["object"];
    else if (types.length === 0 && (node.items !== undefined || Array.isArray(node.prefixItems)))
      types = ["array"];
    if (root) types = ["object"];
    const has = (t: string) => types.length === 0 || types.includes(t);

    const out: Obj = {};
    let names: ArgumentNameMap | undefined;
    if (types.length > 0) out.type = types.length === 1 ? types[0] : types;
    if (typeof node.title === "string") out.title = node.title;
    if (typeof node.description === "string") out.description = node.description;
    if (node.default !== undefined) out.default = node.default;
    if (Array.isArray(node.examples)) out.examples = node.examples;
    if (!root && Array.isArray(node.enum)) out.enum = node.enum;
    if (!root && node.const !== undefined) out.const = node.const;
    for (const [k, spec] of Object.entries(TYPED_KEYWORDS)) {
      if (typeof node[k] === spec.shape && spec.types.some(has)) out[k] = node[k];
    }
    if (types.includes("array")) names = this.items(node, out, depth, seen);

    // anyOf/oneOf: folded into an object node when they only refine it (always at the root).
    const branches = [
      ...(Array.isArray(node.anyOf) ? node.anyOf : []),
      ...(Array.isArray(node.oneOf) ? node.oneOf : []),
    ];
    const alts = branches.map((b) => (isObject(b) ? (this.resolve(b, seen)?.node ?? null) : null));
    const fold =
      branches.length > 0 &&
      (root || (types.length === 1 && types[0] === "object" && alts.every(isRefinement)));
    let properties = isObject(node.properties) ? node.properties : undefined;
    let required = stringList(node.required);
    let alternatives: string[][] | null = null;
    if (fold) {
      const objects = alts.filter((b): b is Obj => b !== null && isObjectLike(b));
      for (const b of objects)
        if (isObject(b.properties)) properties = addProperties(properties, b.properties);
      const sets = objects.map((b) => stringList(b.required));
      if (sets.length > 0) {
        const common = sets.reduce((acc, s) => acc.filter((n) => s.includes(n)));
        required = [...new Set([...required, ...common])];
        if (sets.every((s) => s.length > 0)) alternatives = sets;
      }
    } else if (branches.length > 0) {
      const converted = branches
        .map((b) => this.convert(b, depth + 1, seen))
        .filter((c): c is Converted => c !== null);
      for (const c of converted) names = mergeArgumentNameMaps(names, c.names);
      if (converted.length > 0) out.anyOf = converted.map((c) => c.schema);
    }

    if (types.includes("object")) {
      // Names from items/branches share this level: list every own name so those win.
      const obj = this.object(node, properties, required, depth, seen, names !== undefined);
      Object.assign(out, obj.schema);
      names = mergeArgumentNameMaps(obj.names, names);
      if (alternatives) {
        const rename = (n: string) => obj.rename.get(n) ?? n;
        const sets = alternatives.map((s) => `[${s.map(rename).join(", ")}]`).join(" or ");
        const kind =
          Array.isArray(node.oneOf) && !Array.isArray(node.anyOf) ? "exactly" : "at least";
        appendDescription(out, `must include ${kind} one of ${sets}`);
      }
    }
    if (root) out.properties ??= {};
    return names ? { schema: out, names } : { schema: out };
  }

  /** `items` of an array node (always present in the output). */
  private items(
    node: Obj,
    out: Obj,
    depth: number,
    seen: readonly string[],
  ): ArgumentNameMap | undefined {
    const members = [
      ...(Array.isArray(node.prefixItems) ? node.prefixItems : []),
      ...(Array.isArray(node.items) ? node.items : node.items === undefined ? [] : [node.items]),
    ];
    if (node.items === false && members.length === 1) {
      out.maxItems = 0;
      out.items = {};
      return undefined;
    }
    const converted = members
      .map((m) => this.convert(m, depth + 1, seen))
      .filter((c): c is Converted => c !== null);
    const unique = [...new Map(converted.map((c) => [JSON.stringify(c.schema), c])).values()];
    let names: ArgumentNameMap | undefined;
    for (const c of unique) names = mergeArgumentNameMaps(names, c.names);
    out.items =
      unique.length === 0
        ? {}
        : unique.length === 1
          ? unique[0]!.schema
          : { anyOf: unique.map((c) => c.schema) };
    return names ? { items: names } : undefined;
  }

  /** `properties`, `required` and `additionalProperties` of an object node, names made safe. */
  private object(
    node: Obj,
    properties: Obj | undefined,
    required: string[],
    depth: number,
    seen: readonly string[],
    listAll: boolean,
  ): { schema: Obj; names?: ArgumentNameMap; rename: Map<string, string> } {
    const kept: [string, Converted][] = [];
    for (const [k, v] of Object.entries(properties ?? {})) {
      const c = this.convert(v, depth + 1, seen);
      if (c) kept.push([k, c]);
    }
    const rename = safeArgumentNames(kept.map(([k]) => k));
    const props: Obj = {};
    const map = new Map<string, { name: string; below?: ArgumentNameMap }>();
    for (const [k, c] of kept) {
      const safe = rename.get(k)!;
      props[safe] = c.schema;
      if (safe !== k || c.names) map.set(safe, c.names ? { name: k, below: c.names } : { name: k });
    }
    const schema: Obj = properties ? { properties: props } : {};
    const req = [...new Set(required.filter((r) => rename.has(r)).map((r) => rename.get(r)!))];
    if (req.length > 0) schema.required = req;
    let additional: ArgumentNameMap | undefined;
    if (typeof node.additionalProperties === "boolean")
      schema.additionalProperties = node.additionalProperties;
    else if (isObject(node.additionalProperties)) {
      const c = this.convert(node.additionalProperties, depth + 1, seen);
      if (c) {
        schema.additionalProperties = c.schema;
        additional = c.names;
      }
    }
    if (additional || listAll) {
      for (const [k] of kept) if (!map.has(rename.get(k)!)) map.set(rename.get(k)!, { name: k });
    }
    const names: ArgumentNameMap = {};
    if (map.size > 0) names.properties = map;
    if (additional) names.additional = additional;
    return map.size > 0 || additional ? { schema, names, rename } : { schema, rename };
  }
}

const prepared = new WeakMap<JsonSchema, PreparedSchema>();

/**
 * The portable form of a normalised input schema and its argument-name map (see the module
 * docs), memoised per schema object.
 */
export function prepareInputSchema(schema: JsonSchema): PreparedSchema {
  const hit = prepared.get(schema);
  if (hit) return hit;
  const c = new Preparer(schema).convert(schema, 0, [], true)!;
  const result: PreparedSchema = {
    schema: c.schema as PreparedSchema["schema"],
    names: c.names,
  };
  prepared.set(schema, result);
  return result;
}

/**
 * A model's call arguments with the emitted property names turned back into the names of
 * `schema` (the skill's input schema), at every nesting level; anything else is unchanged.
 */
export function restoreCallArguments(schema: JsonSchema, input: unknown): unknown {
  return restoreArgumentNames(input, prepareInputSchema(schema).names);
}
