/**
 * Reading raw JSON Schema nodes for schema adaptation (docs/schema-adaptation.md): the object
 * test, the declared types of a node, and the small rewrites the portable form is built from
 * (merged properties, boolean `anyOf`/`oneOf` members dropped, refinement branches recognised).
 * Pure functions over plain JSON values.
 */
import { JSON_TYPES } from "./schema-keywords.js";

/** A JSON Schema node (or any JSON object) as read from a stored schema. */
export type Obj = Record<string, unknown>;

/** True when `v` is a JSON object (not null, not an array). */
export function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The JSON types a node declares (`type` as a string or a list, unknown names dropped), with
 * `"null"` added for OpenAPI's `nullable: true`; empty when it declares none.
 */
export function typesOf(node: Obj): string[] {
  const raw = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  const types = [
    ...new Set(raw.filter((t): t is string => typeof t === "string" && JSON_TYPES.has(t))),
  ];
  if (node.nullable === true && types.length > 0 && !types.includes("null")) types.push("null");
  return types;
}

/** Appends `note` to the node's description. */
export function appendDescription(out: Obj, note: string): void {
  out.description =
    typeof out.description === "string" && out.description ? `${out.description} (${note})` : note;
}

/** `base` plus the properties of `extra` it does not have (base keys first, base schemas win). */
export function addProperties(base: unknown, extra: Obj): Obj {
  const out: Obj = isObject(base) ? { ...base } : {};
  for (const [k, v] of Object.entries(extra)) if (!Object.hasOwn(out, k)) out[k] = v;
  return out;
}

/** `v` when it is an array, else an empty list. */
export function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * The node with `false` members removed from its `anyOf`/`oneOf`, and a combinator holding a
 * `true` member (always satisfied) removed.
 */
export function withoutBooleanBranches(node: Obj): Obj {
  let out = node;
  for (const k of ["anyOf", "oneOf"] as const) {
    const list = out[k];
    if (!Array.isArray(list) || !list.some((b) => typeof b === "boolean")) continue;
    const { [k]: _drop, ...rest } = out;
    out = list.includes(true) ? rest : { ...rest, [k]: list.filter((b) => b !== false) };
  }
  return out;
}

/** True when the node's anyOf/oneOf hold exactly one schema between them. */
export function oneBranch(node: Obj): boolean {
  return asList(node.anyOf).length + asList(node.oneOf).length === 1;
}

/** The strings of `v` when it is an array, else an empty list. */
export function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** True when the node declares no type or includes `object`. */
export function isObjectLike(b: Obj): boolean {
  const t = typesOf(b);
  return t.length === 0 || t.includes("object");
}

/** A branch that only adds object constraints (`{"required": ["a"]}`, extra properties). */
export function isRefinement(b: Obj | null): boolean {
  if (!b || !isObjectLike(b)) return false;
  const allowed = new Set(["type", "properties", "required", "title", "description"]);
  return Object.keys(b).every((k) => allowed.has(k));
}
