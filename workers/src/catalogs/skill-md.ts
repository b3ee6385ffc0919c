/**
 * SKILL.md parsing and validation. A SKILL.md is YAML frontmatter between `---` lines followed by
 * a Markdown body. Rules follow the Agent Skills specification (https://agentskills.io/specification):
 * `name` 1–64 characters of lowercase letters, digits and single hyphens (not at either end);
 * `description` 1–1024 characters.
 *
 * YAML types plain scalars (`name: 404` is a number, `version: 1.10` the float 1.1), but these
 * fields are text: `name`, `description`, `version` and `tags` are read as the scalar's source text
 * as written, never as a re-printed number or boolean.
 */
import semver from "semver";
import { type Document, isAlias, isScalar, isSeq, parseDocument } from "yaml";
import { AppError } from "../errors.js";

/** Agent Skills name rule. */
export const AGENT_SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Agent Skills limit on `name`, in characters. */
export const MAX_NAME_LENGTH = 64;
/** Agent Skills limit on `description`, in characters. */
export const MAX_DESCRIPTION_LENGTH = 1024;
/** Version used when the frontmatter has no semver `version` / `metadata.version`. */
export const DEFAULT_SKILL_VERSION = "1.0.0";

/** A parsed, validated SKILL.md. */
export interface SkillMd {
  name: string;
  description: string;
  /** `MAJOR.MINOR.PATCH`. */
  version: string;
  /** Tags from frontmatter `tags` or `metadata.tags` (scalars as written, at most 32). */
  tags: string[];
  /** The Markdown after the frontmatter, trimmed. */
  body: string;
  /** The whole frontmatter mapping with YAML 1.2 core types (the fields above are read as text). */
  frontmatter: Record<string, unknown>;
}

/** 422: a SKILL.md that cannot be installed; `details` lists the failing fields. */
export class InvalidSkillMdError extends AppError {
  constructor(message: string, details?: unknown, cause?: unknown) {
    super("invalid_skill_md", `Invalid SKILL.md: ${message}`, { details, cause });
  }
}

const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** `MAJOR` or `MAJOR.MINOR` (e.g. `2`, `1.10`), completed with `.0` parts. */
const SHORT_VERSION = /^v?(\d+)(?:\.(\d+))?$/;

/**
 * Version rule: frontmatter `version`, else `metadata.version`, as text. A semver (a leading `v`
 * is tolerated) is used without its pre-release and build parts, because the registry keys on
 * `MAJOR.MINOR.PATCH`; `MAJOR` and `MAJOR.MINOR` are completed with zeros (`1.10` → `1.10.0`).
 * Anything else, and any value that is not a string, gives `1.0.0`.
 * @param fields `version` and `metadata.version` as the source text of their YAML scalars.
 */
export function versionFrom(fields: { version?: unknown; metadata?: unknown }): string {
  const metadata = fields.metadata;
  const candidates = [
    fields.version,
    metadata && typeof metadata === "object"
      ? (metadata as Record<string, unknown>).version
      : undefined,
  ];
  for (const c of candidates) {
    if (typeof c !== "string") continue;
    const text = c.trim();
    const short = SHORT_VERSION.exec(text);
    const v = short ? `${Number(short[1])}.${Number(short[2] ?? 0)}.0` : semver.valid(text);
    if (v && semver.valid(v)) {
      const p = semver.parse(v)!;
      return `${p.major}.${p.minor}.${p.patch}`;
    }
  }
  return DEFAULT_SKILL_VERSION;
}

/**
 * The text of a YAML scalar node: strings as parsed, numbers, booleans and other typed plain
 * scalars (`404`, `1.10`, `true`) as written in the source; undefined for a missing node,
 * `null`/`~`/empty, or a node that is not a scalar.
 */
function scalarText(doc: Document, node: unknown): string | undefined {
  const resolved = isAlias(node) ? node.resolve(doc) : node;
  if (!isScalar(resolved)) return undefined;
  const value = resolved.value;
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string") return value;
  return typeof resolved.source === "string" ? resolved.source : String(value);
}

function tagsFrom(doc: Document): string[] {
  const own = doc.get("tags", true);
  const node =
    own === undefined || (isScalar(own) && own.value === null)
      ? doc.getIn(["metadata", "tags"], true)
      : own;
  const resolved = isAlias(node) ? node.resolve(doc) : node;
  const list = isSeq(resolved)
    ? resolved.items.map((item) => scalarText(doc, item))
    : (scalarText(doc, resolved)?.split(",") ?? []);
  return list
    .filter((t): t is string => typeof t === "string")
    .map((t) => t.trim())
    .filter((t) => t.length > 0 && t.length <= 64)
    .slice(0, 32);
}

/**
 * Parses and validates a SKILL.md.
 * @param text the file's text.
 * @returns name, description, version, tags, body and the raw frontmatter.
 * @throws InvalidSkillMdError (422) for missing or malformed frontmatter, a frontmatter that is not
 *   a mapping, an invalid `name` or `description`, or an empty body.
 */
export function parseSkillMd(text: string): SkillMd {
  const match = FRONTMATTER.exec(text);
  if (!match) throw new InvalidSkillMdError("no YAML frontmatter between `---` lines at the top");
  let doc: Document;
  let data: unknown;
  try {
    doc = parseDocument(match[1] ?? "", { prettyErrors: false });
    if (doc.errors.length > 0) throw doc.errors[0];
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new InvalidSkillMdError(
      `frontmatter is not valid YAML (${(err as Error).message.split("\n")[0]})`,
      undefined,
      err,
    );
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    throw new InvalidSkillMdError("frontmatter must be a YAML mapping");
  }
  const frontmatter = data as Record<string, unknown>;
  const fieldText = (...path: string[]) => scalarText(doc, doc.getIn(path, true));
  const problems: Array<{ field: string; message: string }> = [];
  const name = fieldText("name")?.trim() ?? "";
  if (name.length < 1 || name.length > MAX_NAME_LENGTH || !AGENT_SKILL_NAME.test(name)) {
    problems.push({
      field: "name",
      message: "1-64 lowercase letters, digits and single hyphens, not starting or ending with '-'",
    });
  }
  const description = fieldText("description")?.trim() ?? "";
  if (description.length < 1 || description.length > MAX_DESCRIPTION_LENGTH) {
    problems.push({ field: "description", message: "1-1024 characters" });
  }
  const body = text.slice(match[0].length).trim();
  if (body === "")
    problems.push({ field: "body", message: "the instructions after the frontmatter are empty" });
  if (problems.length > 0) {
    throw new InvalidSkillMdError(
      problems.map((p) => `${p.field} (${p.message})`).join(", "),
      problems,
    );
  }
  return {
    name,
    description,
    version: versionFrom({
      version: fieldText("version"),
      metadata: { version: fieldText("metadata", "version") },
    }),
    tags: tagsFrom(doc),
    body,
    frontmatter,
  };
}
