/**
 * What a skill write may carry (docs/registry.md#a-skill): the rules of its name and text fields,
 * and the inputs of install, update and listing. The service is skills.ts.
 */
import { InvalidInputError } from "../errors.js";
import type {
  ExecutionPolicy,
  InjectionMode,
  JsonSchema,
  Skill,
  SkillOrigin,
} from "../skills/types.js";

/** Registry names (Agent Skills names may start with a digit; docs/registry.md#a-skill). */
export const SKILL_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;

/** Longest skill description, in characters (docs/registry.md#a-skill). */
export const MAX_DESCRIPTION_CHARS = 4096;
/** Most tags per skill, and the longest tag in characters (docs/registry.md#a-skill). */
export const MAX_TAGS = 32;
export const MAX_TAG_CHARS = 64;

/**
 * The length rules of a skill's text fields, checked here so that every door (REST, dashboard
 * forms, MCP, catalog installs) refuses the same input (docs/registry.md#a-skill).
 * @throws InvalidInputError `invalid_input` naming `description` or `tags`.
 */
export function checkTextFields(fields: { description?: string; tags?: readonly string[] }): void {
  if (fields.description !== undefined && fields.description.length > MAX_DESCRIPTION_CHARS) {
    throw new InvalidInputError(
      `description is ${fields.description.length} characters; at most ${MAX_DESCRIPTION_CHARS} are allowed`,
      [{ field: "description", message: `at most ${MAX_DESCRIPTION_CHARS} characters` }],
    );
  }
  const tags = fields.tags;
  if (tags === undefined) return;
  if (tags.length > MAX_TAGS) {
    throw new InvalidInputError(`${tags.length} tags; at most ${MAX_TAGS} are allowed`, [
      { field: "tags", message: `at most ${MAX_TAGS} tags` },
    ]);
  }
  if (tags.some((t) => t.length === 0 || t.length > MAX_TAG_CHARS)) {
    throw new InvalidInputError(`Each tag has 1 to ${MAX_TAG_CHARS} characters`, [
      { field: "tags", message: `each tag 1 to ${MAX_TAG_CHARS} characters` },
    ]);
  }
}

/** Input of `SkillsService.install`. */
export interface InstallSkillInput {
  name: string;
  version: string;
  description?: string;
  schema?: { input?: unknown; output?: JsonSchema };
  handlerCode: string;
  instructions?: string | null;
  mode?: InjectionMode;
  policy?: ExecutionPolicy;
  tags?: string[];
  timeoutMs?: number | null;
  /** Auto-upgrade of sandbox runs (docs/execution.md#auto-upgrade); null = the handler's default. */
  autoUpgrade?: boolean | null;
  /** Owner; null = global. */
  apiKeyId: string | null;
  sourceProvider?: SkillOrigin;
  sourceRef?: string | null;
}

/** Answer of `SkillsService.installWithHandler`. */
export interface InstalledWithHandler {
  skill: Skill;
  /** Signing secret of an HTTP handler (`whsec_...`), shown this once; null for code skills. */
  secret: string | null;
}

/** Editable fields (PUT /api/skills/{id}). */
export interface UpdateSkillInput {
  enabled?: boolean;
  mode?: InjectionMode;
  policy?: ExecutionPolicy;
  description?: string;
  tags?: string[];
  timeoutMs?: number | null;
  autoUpgrade?: boolean | null;
  schema?: { input?: unknown; output?: JsonSchema };
}

/** Listing filters (GET /api/skills). */
export interface ListSkillsQuery {
  q?: string;
  mode?: InjectionMode;
  policy?: ExecutionPolicy;
  source?: SkillOrigin;
  /** Restrict to what this key sees (global + own); undefined = every skill (management). */
  visibleTo?: string | null;
  /** Restrict to one owner (management `?apiKeyId=`). */
  owner?: string | null;
  /** Case-insensitive substring of the skill's name (the MCP list tool's `name`). */
  name?: string;
  /** Only skills whose `enabled` flag has this value. */
  enabled?: boolean;
  page: number;
  limit: number;
}
