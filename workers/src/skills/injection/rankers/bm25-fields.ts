/**
 * The fields the `bm25` ranker reads from a skill (docs/scoring.md#the-bm25-ranker), each
 * analysed into terms by text-analysis.ts:
 * - `name`: the skill name (split at camelCase, `_`, `-`, `.`, `/`);
 * - `description`;
 * - `tags`;
 * - `params`: the input schema's property names, at any depth (nested objects, array items);
 * - `paramText`: the properties' titles and descriptions, and their string `enum` values.
 * The schema walk stops at depth 6 and after 8,000 characters of parameter text, so a huge
 * schema costs bounded work.
 */
import type { Skill } from "../../types.js";
import { analyse } from "./text-analysis.js";

/** Field names, in their fixed order (index = field number in the index's arrays). */
export const FIELDS = ["name", "description", "tags", "params", "paramText"] as const;
/** A field name. */
export type Field = (typeof FIELDS)[number];
/** Number of fields. */
export const FIELD_COUNT = FIELDS.length;

/** A skill's terms per field, in {@link FIELDS} order (duplicates kept: they are term counts). */
export type FieldTerms = readonly (readonly string[])[];

const MAX_DEPTH = 6;
const MAX_PARAM_CHARS = 8_000;

const memo = new WeakMap<Skill, FieldTerms>();

/** The terms of each field of `skill`, memoised per skill object. */
export function fieldTerms(skill: Skill): FieldTerms {
  let terms = memo.get(skill);
  if (!terms) {
    const names: string[] = [];
    const texts: string[] = [];
    const budget = { chars: MAX_PARAM_CHARS };
    walkSchema(skill.schema?.input, names, texts, 0, budget);
    terms = [
      analyse(skill.name),
      analyse(skill.description ?? ""),
      skill.tags.flatMap((t) => analyse(t)),
      names.flatMap((n) => analyse(n)),
      texts.flatMap((t) => analyse(t)),
    ];
    memo.set(skill, terms);
  }
  return terms;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function take(text: string, into: string[], budget: { chars: number }): void {
  if (budget.chars <= 0) return;
  const t = text.length > budget.chars ? text.slice(0, budget.chars) : text;
  budget.chars -= t.length;
  into.push(t);
}

/** Collects property names and texts of a JSON Schema (or the shorthand form) into the lists. */
function walkSchema(
  schema: unknown,
  names: string[],
  texts: string[],
  depth: number,
  budget: { chars: number },
): void {
  if (!isObject(schema) || depth > MAX_DEPTH || budget.chars <= 0) return;
  // The shorthand form (`{ "city": "string" }`) is a root without `type` or `properties`.
  const shorthand = depth === 0 && schema.type === undefined && schema.properties === undefined;
  const props = isObject(schema.properties) ? schema.properties : shorthand ? schema : null;
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (budget.chars <= 0) return;
      take(key, names, budget);
      if (!isObject(value)) continue;
      for (const k of ["title", "description"] as const) {
        const v = value[k];
        if (typeof v === "string") take(v, texts, budget);
      }
      if (Array.isArray(value.enum)) {
        for (const e of value.enum) if (typeof e === "string") take(e, texts, budget);
      }
      walkSchema(value, names, texts, depth + 1, budget);
      if (isObject(value.items)) walkSchema(value.items, names, texts, depth + 1, budget);
    }
  }
}
