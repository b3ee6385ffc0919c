/**
 * Provider-safe, reversible tool names (docs/tool-names.md). Real providers reject `@` and `.` in
 * tool names (OpenAI and Anthropic accept `^[a-zA-Z0-9_-]{1,64}$`, Gemini wants a letter or `_`
 * first), so every emitted name matches {@link TOOL_NAME_PATTERN}:
 *
 * - builtins keep their bare name (`web_search`);
 * - direct form `<name>_v<major>_<minor>_<patch>` (`lookupWeather_v1_0_0`) when the name starts
 *   with a letter or `_` and the result fits in 64 characters; it parses back without any lookup
 *   (the version suffix is always the last `_v<d>_<d>_<d>`);
 * - hash form `<prefix>_h<10 base-36 chars>` otherwise (a name starting with a digit, or a long
 *   one): the hash of `name@version`, resolved through the registry (see registry/tool-resolver.ts).
 *
 * The two forms never overlap: a direct name ends in `_<digits>`, a hash name in `_h<hash>`.
 */
import { toSemverRange } from "../registry/versions.js";

/** Every emitted tool name matches this. */
export const TOOL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

const DIRECT_RE = /^(.+)_v(\d+)_(\d+)_(\d+)$/;
const HASH_RE = /^[A-Za-z_][A-Za-z0-9_-]*_h([0-9a-z]{10})$/;
const REF_RE = /^([A-Za-z0-9_][A-Za-z0-9_-]{0,63})@(\d+\.\d+\.\d+)$/;
const CONSTRAINT_RE = /^([A-Za-z0-9_][A-Za-z0-9_-]{0,63})@(.{1,100})$/;
const HASH_LEN = 10;
const MAX_LEN = 64;

/** What a tool name in a model's call refers to. */
export type ParsedToolName =
  | { kind: "ref"; name: string; version: string }
  | { kind: "constraint"; name: string; constraint: string }
  | { kind: "hash"; hash: string }
  | { kind: "bare"; name: string };

/**
 * 10 base-36 characters (about 51 bits) of two FNV-1a 32-bit hashes of `name@version`. Stable
 * across processes and runtimes (no crypto needed on the hot path).
 */
export function refHash(name: string, version: string): string {
  const text = `${name}@${version}`;
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x0100019b);
  }
  const high = (a >>> 0) % 0x80000; // 19 bits
  const value = high * 0x100000000 + (b >>> 0); // 51 bits, exact in a double
  return value.toString(36).padStart(HASH_LEN, "0").slice(-HASH_LEN);
}

/**
 * The emitted tool name of a skill (see the module docs for the forms).
 * @param skill `name` as the registry accepts it, `version` MAJOR.MINOR.PATCH, and whether it is a builtin.
 */
export function emittedToolName(skill: {
  name: string;
  version: string;
  sourceProvider?: string;
}): string {
  if (skill.sourceProvider === "builtin") return skill.name;
  const direct = `${skill.name}_v${skill.version.replaceAll(".", "_")}`;
  if (/^[A-Za-z_]/.test(skill.name) && direct.length <= MAX_LEN && TOOL_NAME_PATTERN.test(direct))
    return direct;
  const base = /^[A-Za-z_]/.test(skill.name) ? skill.name : `_${skill.name}`;
  const prefix = base.slice(0, MAX_LEN - 2 - HASH_LEN).replace(/[^A-Za-z0-9_-]/g, "_");
  return `${prefix}_h${refHash(skill.name, skill.version)}`;
}

/**
 * Parses a tool name from a model's call: `name@version` and the direct form give a `ref`,
 * `name@<constraint>` (`^1.0.0`, `>=1.1.0`, `~1.2.0`, `latest`, ... as versions.ts reads them) a
 * `constraint`, the hash form a `hash` (resolve with the registry), anything else is `bare` (a
 * builtin, an alias, a bare skill name, or a client tool).
 */
export function parseToolName(toolName: string): ParsedToolName {
  const ref = REF_RE.exec(toolName);
  if (ref) return { kind: "ref", name: ref[1]!, version: ref[2]! };
  const constraint = CONSTRAINT_RE.exec(toolName);
  if (constraint && toSemverRange(constraint[2]!) !== null) {
    return { kind: "constraint", name: constraint[1]!, constraint: constraint[2]!.trim() };
  }
  const direct = DIRECT_RE.exec(toolName);
  if (direct && TOOL_NAME_PATTERN.test(toolName)) {
    return { kind: "ref", name: direct[1]!, version: `${direct[2]}.${direct[3]}.${direct[4]}` };
  }
  const hash = HASH_RE.exec(toolName);
  if (hash && toolName.length <= MAX_LEN) return { kind: "hash", hash: hash[1]! };
  return { kind: "bare", name: toolName };
}
