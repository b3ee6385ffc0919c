/**
 * Provider-safe argument (property) names and their way back (docs/schema-adaptation.md,
 * "Property names").
 *
 * Anthropic refuses a tool whose `input_schema` property keys fall outside
 * `^[a-zA-Z0-9_.-]{1,64}$`, and Gemini documents parameter names as a letter or `_` followed by
 * letters, digits or `_` (at most 64). Skillgate emits, for every provider format, only names
 * matching {@link SAFE_ARGUMENT_NAME} (the intersection of both rules); any other name is
 * replaced by {@link safeArgumentNames} and the replacement is recorded in an
 * {@link ArgumentNameMap}, which {@link restoreArgumentNames} applies to a model's arguments so
 * the handler (and the executor's validation against the skill's own schema) sees the original
 * names.
 *
 * The mapping depends only on the skill's input schema: injection and interception derive the
 * same names in any process, for any format.
 */

/** Every emitted property name matches this (Anthropic's and Gemini's documented rules combined). */
export const SAFE_ARGUMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const MAX_LEN = 64;
const HASH_LEN = 6;

/**
 * Emitted property name → original name, per schema level; only levels that rename something
 * (or hold a level that does) are present. A level with `additional` lists every declared
 * property, so that only undeclared ones take the `additional` map.
 */
export interface ArgumentNameMap {
  /** Emitted name → original name and the map of the value under it. */
  properties?: Map<string, { name: string; below?: ArgumentNameMap }>;
  /** Map of each array element. */
  items?: ArgumentNameMap;
  /** Map of the values of properties not declared (`additionalProperties` schemas). */
  additional?: ArgumentNameMap;
}

/** 6 base-36 characters of an FNV-1a 32-bit hash of `text` (stable across runtimes). */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36).padStart(HASH_LEN, "0").slice(-HASH_LEN);
}

/** Letters folded to ASCII where Unicode decomposes them (`é` → `e`), runs of others → `_`. */
function sanitize(name: string): string {
  const folded = name.normalize("NFKD").replace(/\p{M}+/gu, "");
  const base = folded.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  if (base === "") return "";
  return /^[0-9]/.test(base) ? `_${base}` : base;
}

/**
 * Safe, distinct names for the property names of one object, in order.
 * A name that already matches {@link SAFE_ARGUMENT_NAME} is kept. Another one becomes its
 * sanitised form (`page[size]` → `page_size`, `first name` → `first_name`) or, when that is
 * empty, longer than 64 characters or taken by another property, a prefix of it plus `_` and a
 * 6-character hash of the original name.
 * @returns original name → emitted name, for every input name.
 */
export function safeArgumentNames(names: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const n of names) {
    if (SAFE_ARGUMENT_NAME.test(n)) {
      out.set(n, n);
      taken.add(n);
    }
  }
  for (const n of names) {
    if (out.has(n)) continue;
    const base = sanitize(n);
    let safe = base;
    if (safe === "" || safe.length > MAX_LEN || taken.has(safe)) {
      const prefix = (base || "_").slice(0, MAX_LEN - HASH_LEN - 1);
      safe = `${prefix}_${shortHash(n)}`;
      for (let i = 2; taken.has(safe); i++) {
        const suffix = `_${shortHash(`${n}#${i}`)}`;
        safe = `${prefix}${suffix}`;
      }
    }
    out.set(n, safe);
    taken.add(safe);
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Union of two maps (the first wins where both rename the same emitted name differently). */
export function mergeArgumentNameMaps(
  a: ArgumentNameMap | undefined,
  b: ArgumentNameMap | undefined,
): ArgumentNameMap | undefined {
  if (!a) return b;
  if (!b) return a;
  const out: ArgumentNameMap = {};
  if (a.properties || b.properties) {
    const props = new Map(a.properties);
    for (const [safe, entry] of b.properties ?? []) {
      const mine = props.get(safe);
      if (!mine) props.set(safe, entry);
      else if (mine.name === entry.name) {
        const below = mergeArgumentNameMaps(mine.below, entry.below);
        props.set(safe, below ? { name: mine.name, below } : { name: mine.name });
      }
    }
    out.properties = props;
  }
  const items = mergeArgumentNameMaps(a.items, b.items);
  if (items) out.items = items;
  const additional = mergeArgumentNameMaps(a.additional, b.additional);
  if (additional) out.additional = additional;
  return out;
}

/**
 * A model's arguments with emitted names turned back into the skill's own names, at every level
 * the map covers. Names the map does not know are kept; when an emitted name and its original
 * both appear, the emitted one wins. The input is not mutated.
 * @param map from the skill's prepared schema; undefined → `input` unchanged.
 */
export function restoreArgumentNames(input: unknown, map: ArgumentNameMap | undefined): unknown {
  if (!map) return input;
  if (Array.isArray(input)) {
    return map.items ? input.map((v) => restoreArgumentNames(v, map.items)) : input;
  }
  if (!isPlainObject(input) || (!map.properties && !map.additional)) return input;
  const entries = new Map<string, unknown>();
  const fromOriginal: [string, unknown][] = [];
  for (const [key, value] of Object.entries(input)) {
    const entry = map.properties?.get(key);
    if (entry) entries.set(entry.name, restoreArgumentNames(value, entry.below));
    else fromOriginal.push([key, restoreArgumentNames(value, map.additional)]);
  }
  for (const [key, value] of fromOriginal) if (!entries.has(key)) entries.set(key, value);
  // fromEntries defines own properties, so a "__proto__" argument stays plain data.
  return Object.fromEntries(entries);
}
