/**
 * SKILL.md parsing and validation (docs/catalogs.md#skillmd-rules). A SKILL.md is YAML
 * frontmatter between `---` lines followed by a Markdown body. Rules follow the Agent Skills
 * specification: `name` 1–64 characters of lowercase letters, digits and single hyphens (not at
 * either end); `description` 1–1024 characters.
 */
import semver from "semver";
import { parse as parseYaml } from "yaml";
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
  /** Tags from frontmatter `tags` or `metadata.tags` (strings only, at most 32). */
  tags: string[];
  /** The Markdown after the frontmatter, trimmed. */
  body: string;
  /** The whole frontmatter mapping, as parsed. */
  frontmatter: Record<string, unknown>;
}

/** 422: a SKILL.md that cannot be installed; `details` lists the failing fields. */
export class InvalidSkillMdError extends AppError {
  constructor(message: string, details?: unknown, cause?: unknown) {
    super("invalid_skill_md", `Invalid SKILL.md: ${message}`, { details, cause });
  }
}

const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Version rule: frontmatter `version`, else `metadata.version`, used when it is a valid semver
 * (a leading `v` is tolerated); pre-release and build parts are dropped because the registry keys
 * on `MAJOR.MINOR.PATCH` (docs/registry.md#versions). Anything else gives `1.0.0`.
 */
export function versionFrom(frontmatter: Record<string, unknown>): string {
  const metadata = frontmatter.metadata;
  const candidates = [
    frontmatter.version,
    metadata && typeof metadata === "object"
      ? (metadata as Record<string, unknown>).version
      : undefined,
  ];
  for (const c of candidates) {
    if (typeof c !== "string") continue;
    const v = semver.valid(c.trim());
    if (v) {
      const p = semver.parse(v)!;
      return `${p.major}.${p.minor}.${p.patch}`;
    }
  }
  return DEFAULT_SKILL_VERSION;
}

function tagsFrom(frontmatter: Record<string, unknown>): string[] {
  const metadata = frontmatter.metadata;
  const raw =
    frontmatter.tags ??
    (metadata && typeof metadata === "object"
      ? (metadata as Record<string, unknown>).tags
      : undefined);
  const list = typeof raw === "string" ? raw.split(",") : Array.isArray(raw) ? raw : [];
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
  let data: unknown;
  try {
    data = parseYaml(match[1] ?? "", { maxAliasCount: 100 });
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
  const problems: Array<{ field: string; message: string }> = [];
  const name = typeof frontmatter.name === "string" ? frontmatter.name.trim() : "";
  if (name.length < 1 || name.length > MAX_NAME_LENGTH || !AGENT_SKILL_NAME.test(name)) {
    problems.push({
      field: "name",
      message: "1-64 lowercase letters, digits and single hyphens, not starting or ending with '-'",
    });
  }
  const description =
    typeof frontmatter.description === "string" ? frontmatter.description.trim() : "";
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
    version: versionFrom(frontmatter),
    tags: tagsFrom(frontmatter),
    body,
    frontmatter,
  };
}
