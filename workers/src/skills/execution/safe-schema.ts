/**
 * A JSON Schema validator whose regular expressions run in linear time
 * (docs/registry.md#patterns). `@cfworker/json-schema` runs `pattern` and `patternProperties`
 * with V8's backtracking `RegExp`, which a hostile pattern freezes for seconds; so the schema is
 * rewritten before the validator sees it:
 *
 * - each `pattern` becomes a `format` whose check is the pattern compiled by RE2JS
 *   ({@link compileSafePattern}), registered in the validator's format table under a name
 *   derived from the pattern;
 * - each `patternProperties` is parked where the validator does not look, and at every
 *   validation expanded into `properties` entries for the input's property names that the
 *   patterns match (tested by RE2JS) — the same result as JSON Schema's rule, since a property
 *   a pattern matches is then checked against the pattern's schema and counts as evaluated for
 *   `additionalProperties`;
 * - the non-standard `format: "url"`, whose table entry backtracks exponentially on some
 *   inputs, is checked with the WHATWG URL parser instead.
 *
 * The matching work of one validation is bounded ({@link PATTERN_MATCH_BUDGET}), and so are the
 * distinct property names of an input that a schema with `patternProperties` must match
 * ({@link MAX_PATTERN_PROPERTY_NAMES}).
 */
import { format as formatTable, Validator } from "@cfworker/json-schema";
import { InvalidInputError } from "../../errors.js";
import {
  cachedSafePattern,
  forEachSchemaNode,
  PatternRefusedError,
  type SafePattern,
} from "../registry/schema-patterns.js";

/**
 * Work spent matching a schema's patterns in one validation, at most: the sum over every string
 * tested of its length times the pattern's compiled size (RE2's matching costs about that; 5
 * million units take some tens of ms in the worst case).
 */
export const PATTERN_MATCH_BUDGET = 5_000_000;
/** Distinct property names of one input checked against `patternProperties`, at most. */
export const MAX_PATTERN_PROPERTY_NAMES = 100;
/**
 * Schema nodes of one validation's expanded schema (its `patternProperties` turned into
 * `properties` for the input's names, shared sub-schemas counted at every place), at most.
 */
export const MAX_EXPANDED_SCHEMA_NODES = 20_000;

const FORMAT_PREFIX = "skillgate-pattern:";
const PARKED = "x-skillgate-pattern-properties";

type Node = Record<string, unknown>;
type ParkedEntry = [source: string, schema: unknown];

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

/** Matching work of the current (synchronous) validation. */
let spent = 0;

function charge(text: string, p: SafePattern): void {
  spent += text.length * Math.max(1, p.size);
  if (spent > PATTERN_MATCH_BUDGET) {
    throw new InvalidInputError(
      `The input's strings are too long to check against the schema's patterns (at most ${PATTERN_MATCH_BUDGET} characters × pattern instructions per call)`,
      [{ field: "input", message: "too long to check against the schema's patterns" }],
      "invalid_skill_input",
    );
  }
}

const formats = formatTable as Record<string, (value: string) => boolean>;
/** Pattern sources registered in the format table (cleared with the validator caches). */
const registered = new Set<string>();

/** The linear-time check of `format: "url"`: an absolute http, https or ftp URL with a host. */
function isUrl(value: string): boolean {
  if (/\s/.test(value) || !URL.canParse(value)) return false;
  const url = new URL(value);
  return ["http:", "https:", "ftp:"].includes(url.protocol) && url.hostname.length > 0;
}
formats.url = isUrl;

function safePattern(source: string): SafePattern {
  try {
    return cachedSafePattern(source);
  } catch (err) {
    if (!(err instanceof PatternRefusedError)) throw err;
    throw new InvalidInputError(
      `The skill's input schema holds a pattern that cannot run in linear time (${err.message}); reinstall the skill with another pattern`,
      [{ field: "schema.input", message: err.message }],
      "invalid_schema_pattern",
    );
  }
}

function formatFor(source: string): string {
  const name = `${FORMAT_PREFIX}${source}`;
  if (!registered.has(source)) {
    const p = safePattern(source);
    formats[name] = (value: string) => {
      charge(value, p);
      return p.test(value);
    };
    registered.add(source);
  }
  return name;
}

/** A validator for one schema, prepared once and used for many inputs. */
export class SafeSchemaValidator {
  private readonly base: Node | boolean;
  private readonly patternProperties: boolean;
  private readonly fixed?: Validator;

  /**
   * @param schema a JSON Schema (draft 2020-12).
   * @throws InvalidInputError `invalid_schema_pattern` when a pattern of the schema is refused.
   */
  constructor(schema: unknown) {
    if (!isNode(schema)) {
      this.base = schema !== false;
      this.patternProperties = false;
      this.fixed = new Validator(this.base, "2020-12", false);
      return;
    }
    const base = structuredClone(schema);
    const nodes: Node[] = [];
    forEachSchemaNode(base, (node) => nodes.push(node));
    let parked = false;
    for (const node of nodes) {
      // The parking place is this module's own: a schema cannot bring entries of its own there.
      delete node[PARKED];
      if (typeof node.pattern === "string") {
        const name = formatFor(node.pattern);
        delete node.pattern;
        if (!("format" in node)) node.format = name;
        else if (node.allOf === undefined || Array.isArray(node.allOf)) {
          node.allOf = [...((node.allOf as unknown[] | undefined) ?? []), { format: name }];
        } else {
          // Neither keyword is free (an `allOf` that is not an array): keep the check anyway.
          // not (¬format ∨ not) = format ∧ ¬not
          node.not = {
            anyOf: [{ not: { format: name } }, ...(node.not === undefined ? [] : [node.not])],
          };
        }
      }
      if (isNode(node.patternProperties)) {
        const entries = Object.entries(node.patternProperties);
        for (const [source] of entries) safePattern(source);
        node[PARKED] = entries;
        delete node.patternProperties;
        parked = true;
      }
    }
    this.base = base;
    this.patternProperties = parked;
    if (!parked) this.fixed = new Validator(base, "2020-12", false);
  }

  /**
   * Validates `instance` (all errors, not the first only).
   * @throws InvalidInputError `invalid_skill_input` when the input's strings exceed
   *   {@link PATTERN_MATCH_BUDGET_CHARS} or its property names {@link MAX_PATTERN_PROPERTY_NAMES}.
   */
  validate(instance: unknown): ReturnType<Validator["validate"]> {
    spent = 0;
    try {
      if (this.fixed) return this.fixed.validate(instance);
      const schema = this.expanded(propertyNames(instance));
      refuseLargeExpansion(schema);
      return new Validator(schema, "2020-12", false).validate(instance);
    } finally {
      spent = 0;
    }
  }

  /** A copy of the schema with each parked `patternProperties` turned into `properties`. */
  private expanded(names: string[]): Node {
    const copy = structuredClone(this.base) as Node;
    const seen = new WeakSet<object>();
    const stack: unknown[] = [copy];
    while (stack.length > 0) {
      const top = stack.pop();
      if (typeof top !== "object" || top === null || seen.has(top)) continue;
      seen.add(top);
      if (Array.isArray(top)) {
        stack.push(...top);
        continue;
      }
      const node = top as Node;
      const parked = node[PARKED] as ParkedEntry[] | undefined;
      if (Array.isArray(parked)) {
        delete node[PARKED];
        const properties: Node = isNode(node.properties) ? { ...node.properties } : {};
        for (const name of names) {
          const matched = parked.filter(([source]) => {
            const p = safePattern(source);
            charge(name, p);
            return p.test(name);
          });
          if (matched.length === 0) continue;
          const own = Object.hasOwn(properties, name) ? [properties[name]] : [];
          Object.defineProperty(properties, name, {
            value: { allOf: [...own, ...matched.map(([, sub]) => sub)] },
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        node.properties = properties;
      }
      for (const [key, value] of Object.entries(node)) {
        if (key !== "const" && key !== "enum" && key !== "default") stack.push(value);
      }
    }
    return copy;
  }
}

/**
 * Refuses an expanded schema the validator would walk for too long (every place a shared
 * sub-schema appears is walked again).
 * @throws InvalidInputError `invalid_skill_input` past {@link MAX_EXPANDED_SCHEMA_NODES}.
 */
function refuseLargeExpansion(schema: Node): void {
  let nodes = 0;
  const tooLarge = new InvalidInputError(
    `The input names too many properties that the schema's patternProperties match to be checked (at most ${MAX_EXPANDED_SCHEMA_NODES} schema nodes per call)`,
    [{ field: "input", message: "too many properties matched by patternProperties" }],
    "invalid_skill_input",
  );
  forEachSchemaNode(schema, () => {
    if (++nodes > MAX_EXPANDED_SCHEMA_NODES) throw tooLarge;
  });
}

/**
 * The distinct property names of every object in `instance` (iterative).
 * @throws InvalidInputError `invalid_skill_input` past {@link MAX_PATTERN_PROPERTY_NAMES}.
 */
function propertyNames(instance: unknown): string[] {
  const names = new Set<string>();
  const stack: unknown[] = [instance];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
      continue;
    }
    for (const [key, value] of Object.entries(v)) {
      names.add(key);
      if (names.size > MAX_PATTERN_PROPERTY_NAMES) {
        throw new InvalidInputError(
          `The input has more than ${MAX_PATTERN_PROPERTY_NAMES} distinct property names, the most a schema with patternProperties checks`,
          [{ field: "input", message: "too many distinct property names" }],
          "invalid_skill_input",
        );
      }
      stack.push(value);
    }
  }
  return [...names];
}

/** How many patterns have a format entry (each holds its compiled program, up to ~40 KB). */
export function safePatternCount(): number {
  return registered.size;
}

/**
 * Forgets the format entries of the patterns. Call only when no {@link SafeSchemaValidator}
 * built before will be used again (the caller drops its cache).
 */
export function clearSafePatterns(): void {
  for (const source of registered) delete formats[`${FORMAT_PREFIX}${source}`];
  registered.clear();
}

/** True when `keyword`/`format` of a validation error is one of this module's pattern checks. */
export function isPatternFormat(formatName: unknown): boolean {
  return typeof formatName === "string" && formatName.startsWith(FORMAT_PREFIX);
}
