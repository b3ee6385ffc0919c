/**
 * Regular expressions of skill input schemas (`pattern`, `patternProperties`), checked at install
 * and run in linear time (docs/registry.md#patterns). JSON Schema patterns are ECMA-262 regular
 * expressions; a backtracking engine (V8's) can take exponential time on some of them
 * (`^(a+)+$` against `aaaa…!`), so Skillgate never runs a schema's pattern with `RegExp`: it
 * compiles it with RE2JS (a JavaScript port of RE2: time linear in the input, no recursion) and
 * refuses at install what RE2 cannot run (backreferences, lookahead) or what is too large.
 */
import { ignoredKeyword, schemaArrayKeyword, schemaMapKeyword } from "@cfworker/json-schema";
import { RE2JS, RE2JSException } from "re2js";
import { InvalidInputError } from "../../errors.js";

/** Longest pattern accepted, in UTF-16 code units (docs/registry.md#patterns). */
export const MAX_PATTERN_LENGTH = 1_000;
/** Largest compiled pattern accepted, in RE2 program instructions (docs/registry.md#patterns). */
export const MAX_PATTERN_PROGRAM_SIZE = 5_000;
/** Most regular expressions (patterns and patternProperties keys) in one schema. */
export const MAX_SCHEMA_PATTERNS = 64;
/** Compiled patterns kept in memory (about 40 KB each at most); past it the cache starts over. */
const MAX_CACHED_PATTERNS = 1_000;

/** Why a pattern is refused: a sentence for the client. */
export class PatternRefusedError extends Error {}

/** A pattern compiled for linear-time matching. */
export interface SafePattern {
  /** The pattern as written in the schema. */
  readonly source: string;
  /** Size of the compiled program, in instructions: matching costs about `text.length × size`. */
  readonly size: number;
  /** True when the pattern matches somewhere in `text` (unanchored, as JSON Schema's `pattern`). */
  test(text: string): boolean;
}

/**
 * Compiles an ECMAScript pattern for linear-time matching.
 * The pattern must be valid ECMA-262 with the `u` flag (as JSON Schema validators read it) and
 * within RE2's syntax: backreferences (`\1`, `\k<name>`) and lookahead (`(?=`, `(?!`) are
 * refused; captureless lookbehind runs in linear time and is accepted.
 * @throws PatternRefusedError with a sentence saying why.
 */
export function compileSafePattern(source: string): SafePattern {
  if (source.length > MAX_PATTERN_LENGTH) {
    throw new PatternRefusedError(`is longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  try {
    // Parsing only (V8 compiles a RegExp lazily, on its first match): the syntax check of
    // ECMA-262. Linear in the pattern's length; the pattern is never run here.
    new RegExp(source, "u");
  } catch {
    throw new PatternRefusedError("is not a valid ECMAScript regular expression");
  }
  refuseBackreferences(source);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(source), RE2JS.LOOKBEHINDS);
  } catch (err) {
    if (!(err instanceof RE2JSException)) throw err;
    throw new PatternRefusedError(
      `uses a construct the linear-time engine cannot run (lookahead, backreferences, or a repeat count over 1000): ${err.message}`,
    );
  }
  const size = compiled.programSize();
  if (size > MAX_PATTERN_PROGRAM_SIZE) {
    throw new PatternRefusedError(
      `compiles to more than ${MAX_PATTERN_PROGRAM_SIZE} instructions (nested or large repeat counts)`,
    );
  }
  return { source, size, test: (text) => compiled.test(text) };
}

const cache = new Map<string, SafePattern>();

/**
 * {@link compileSafePattern} through a process-wide cache of compiled patterns (shared by the
 * install check and the validators; bounded, it starts over when full).
 * @throws PatternRefusedError as {@link compileSafePattern}.
 */
export function cachedSafePattern(source: string): SafePattern {
  let p = cache.get(source);
  if (!p) {
    p = compileSafePattern(source);
    if (cache.size >= MAX_CACHED_PATTERNS) cache.clear();
    cache.set(source, p);
  }
  return p;
}

/** Lets other work run between two compilations (a long pattern takes tens of ms to compile). */
const yieldToOthers = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Checks every regular expression of an input schema (docs/registry.md#patterns), compiling one
 * at a time with a pause for other requests in between, and leaves them compiled in the cache.
 * @param schema the normalised input schema.
 * @param fieldPrefix prefix of the field names in errors, e.g. `schema.input`.
 * @throws InvalidInputError `invalid_schema_pattern` naming the keyword's field, for a refused
 *   pattern or more than {@link MAX_SCHEMA_PATTERNS} of them.
 */
export async function checkSchemaPatterns(schema: unknown, fieldPrefix: string): Promise<void> {
  const sites = schemaPatternSites(schema);
  if (sites.length > MAX_SCHEMA_PATTERNS) {
    throw new InvalidInputError(
      `${fieldPrefix} holds ${sites.length} regular expressions; at most ${MAX_SCHEMA_PATTERNS} are accepted`,
      [{ field: fieldPrefix, message: `more than ${MAX_SCHEMA_PATTERNS} regular expressions` }],
      "invalid_schema_pattern",
    );
  }
  for (const site of sites) {
    if (cache.has(site.source)) continue;
    try {
      cachedSafePattern(site.source);
    } catch (err) {
      if (!(err instanceof PatternRefusedError)) throw err;
      const field = `${fieldPrefix}.${site.path}`;
      const shown = site.source.length > 200 ? `${site.source.slice(0, 200)}…` : site.source;
      throw new InvalidInputError(
        `The pattern ${JSON.stringify(shown)} at ${field} ${err.message}`,
        [{ field, message: err.message }],
        "invalid_schema_pattern",
      );
    }
    await yieldToOthers();
  }
}

/**
 * Compiles the patterns of a stored schema that are not compiled yet, one at a time with a pause
 * in between, so that the validation which follows does not compile them in one block. Refused
 * patterns are left for the validator to report.
 */
export async function warmSchemaPatterns(schema: unknown): Promise<void> {
  for (const site of schemaPatternSites(schema).slice(0, MAX_SCHEMA_PATTERNS)) {
    if (cache.has(site.source)) continue;
    try {
      cachedSafePattern(site.source);
    } catch (err) {
      if (!(err instanceof PatternRefusedError)) throw err;
    }
    await yieldToOthers();
  }
}

/** `\1`…`\9` and `\k<name>` outside a character class: RE2 has no backreferences. */
function refuseBackreferences(source: string): void {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (!inClass && (next === "k" || (next >= "1" && next <= "9"))) {
        throw new PatternRefusedError(
          "uses a backreference, which the linear-time engine cannot run",
        );
      }
      i++;
    } else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
  }
}

/** One regular expression found in a schema, and where. */
export interface SchemaPatternSite {
  /** Dotted path of the keyword under the schema root, e.g. `properties.code.pattern`. */
  path: string;
  source: string;
}

/** A schema object (a node the validator treats as a schema). */
type SchemaNode = Record<string, unknown>;

function isNode(v: unknown): v is SchemaNode {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Visits every schema node of `schema` the way `@cfworker/json-schema` reaches them (its
 * dereference walk: map keywords' values, array keywords' items, any other object-valued keyword
 * except the data keywords such as `const`, `enum`, `default`). Iterative: a deep schema cannot
 * exhaust the call stack.
 * @param visit called with each node and its dotted path ("" for the root).
 */
export function forEachSchemaNode(
  schema: unknown,
  visit: (node: SchemaNode, path: string) => void,
): void {
  const stack: Array<[unknown, string]> = [[schema, ""]];
  const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (!isNode(node)) continue;
    visit(node, path);
    for (const [key, value] of Object.entries(node)) {
      if ((ignoredKeyword as Record<string, boolean>)[key]) continue;
      const at = join(path, key);
      if (Array.isArray(value)) {
        if ((schemaArrayKeyword as Record<string, boolean>)[key]) {
          for (const [i, item] of value.entries()) stack.push([item, `${at}.${i}`]);
        }
      } else if ((schemaMapKeyword as Record<string, boolean>)[key] && isNode(value)) {
        for (const [sub, subSchema] of Object.entries(value)) {
          stack.push([subSchema, `${at}.${sub}`]);
        }
      } else stack.push([value, at]);
    }
  }
}

/**
 * Every regular expression of a schema: each string `pattern` and each key of a
 * `patternProperties` object, in the nodes {@link forEachSchemaNode} visits.
 */
export function schemaPatternSites(schema: unknown): SchemaPatternSite[] {
  const sites: SchemaPatternSite[] = [];
  forEachSchemaNode(schema, (node, path) => {
    const prefix = path ? `${path}.` : "";
    if (typeof node.pattern === "string") {
      sites.push({ path: `${prefix}pattern`, source: node.pattern });
    }
    if (isNode(node.patternProperties)) {
      for (const source of Object.keys(node.patternProperties)) {
        sites.push({ path: `${prefix}patternProperties`, source });
      }
    }
  });
  return sites;
}
