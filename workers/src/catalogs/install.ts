/**
 * Installing a catalog skill (docs/catalogs.md#installing): locate its SKILL.md on GitHub raw,
 * validate it, and register an instruction skill (mode `auto`, handler `skill-instructions`, input
 * `{ task?: string }`, the SKILL.md body in `instructions`) owned by the installing key, or global
 * when management installs it. A second install of the same `name@version` by the same owner is a
 * 409; the install count of the catalog item is kept across owners.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { skills as skillsTable } from "../db/schema.js";
import { INSTRUCTION_HANDLER, INSTRUCTION_INPUT_SCHEMA } from "../skills/builtins/instructions.js";
import type { SkillRegistry } from "../skills/registry/registry.js";
import type { SkillService } from "../skills/registry/skill-service.js";
import type { Skill } from "../skills/types.js";
import { locateSkillMd } from "./github-raw.js";
import { parseSkillMd } from "./skill-md.js";
import type { SkillLocation } from "./types.js";

/** What an install needs from the app. */
export interface CatalogInstallDeps {
  db: Db;
  skills: SkillService;
  registry: SkillRegistry;
  /** Operator fetch for GitHub raw. */
  fetch: typeof fetch;
  /** `GITHUB_RAW_BASE_URL`. */
  githubRawBaseUrl: string;
}

/** One install request. */
export interface CatalogInstallRequest {
  provider: "skillsmp" | "skillssh";
  location: SkillLocation;
  /** Owner of the installed skill; null = global (management). */
  apiKeyId: string | null;
}

/** The installed skill and where its SKILL.md was found. */
export interface CatalogInstallResult {
  skill: Skill;
  skillMd: { url: string; path: string };
}

/**
 * Installs one catalog skill.
 * @throws InvalidInputError for unsafe repository coordinates; NotFoundError `skill_md_not_found`;
 *   InvalidSkillMdError (422) for a SKILL.md breaking the Agent Skills rules; ConflictError
 *   `skill_exists` (409) for a duplicate `name@version` of the owner, `reserved_name` for a builtin
 *   name; UpstreamError for GitHub raw failures.
 */
export async function installCatalogSkill(
  deps: CatalogInstallDeps,
  req: CatalogInstallRequest,
): Promise<CatalogInstallResult> {
  const { location } = req;
  const found = await locateSkillMd(deps.githubRawBaseUrl, deps.fetch, location);
  const md = parseSkillMd(found.text);
  const sourceRef = `${location.owner}/${location.repo}/${location.skillId}`;
  const skill = await deps.skills.install({
    name: md.name,
    version: md.version,
    description: md.description,
    schema: { input: INSTRUCTION_INPUT_SCHEMA },
    handlerCode: INSTRUCTION_HANDLER,
    instructions: md.body,
    mode: "auto",
    policy: "auto",
    tags: md.tags,
    apiKeyId: req.apiKeyId,
    sourceProvider: req.provider,
    sourceRef,
  });
  const counted = await updateInstallCounts(deps, skill, req.provider, sourceRef);
  return { skill: counted, skillMd: { url: found.url, path: found.path } };
}

/**
 * Install count of a catalog item: every row installed from the same item (same provider and
 * `owner/repo/skill-id`, any owner or version) counts the installs of that item made here.
 * The new row starts at that total; earlier rows gain one.
 */
async function updateInstallCounts(
  deps: CatalogInstallDeps,
  skill: Skill,
  provider: "skillsmp" | "skillssh",
  sourceRef: string,
): Promise<Skill> {
  const rows = await deps.db
    .select({ id: skillsTable.id })
    .from(skillsTable)
    .where(and(eq(skillsTable.sourceProvider, provider), eq(skillsTable.sourceRef, sourceRef)));
  const others = rows.filter((r) => r.id !== skill.id);
  if (others.length === 0) return skill;
  for (const other of others) await deps.registry.incrementInstallCount(other.id);
  return deps.registry.update(skill.id, { installCount: others.length + 1 });
}
