/**
 * The catalogs service (docs/catalogs.md): search a registered catalog, and install a skill from
 * one — locate its SKILL.md on GitHub raw, validate it, and register an instruction skill (mode
 * `auto`, handler `skill-instructions`, input `{ task?: string }`, the SKILL.md body in
 * `instructions`) owned by the installing key, or global when management installs it. Installs
 * come only from the catalog the `activeProvider` setting names. A second install of the same
 * `name@version` by the same owner is a 409; the install count of the catalog item is kept across
 * owners.
 */

import { locateSkillMd } from "../catalogs/github-raw.js";
import { CATALOG_IDS, createCatalogs } from "../catalogs/index.js";
import { parseSkillMd, type SkillMd } from "../catalogs/skill-md.js";
import type {
  Catalog,
  CatalogEnv,
  CatalogId,
  CatalogInstallRef,
  CatalogPage,
  CatalogQuery,
} from "../catalogs/types.js";
import { ConflictError } from "../errors.js";
import { INSTRUCTION_HANDLER, INSTRUCTION_INPUT_SCHEMA } from "../skills/builtins/instructions.js";
import type { SkillRegistry } from "../skills/registry/registry.js";
import type { ExecutionPolicy, InjectionMode, Skill } from "../skills/types.js";
import type { SettingsService } from "./settings.js";
import type { SkillsService } from "./skills.js";

export type { CatalogId, CatalogPage };
export { CATALOG_IDS };

/** Largest page size any catalog serves (the route caps `limit` with it; each catalog with its own). */
export const MAX_CATALOG_LIMIT = 100;

/** The installed skill and where its SKILL.md was found. */
export interface CatalogInstallResult {
  skill: Skill;
  skillMd: { url: string; path: string };
}

/** A SKILL.md read for preview (the dashboard shows it before installing). */
export interface SkillMdPreview {
  url: string;
  text: string;
  /** The parsed file, or the reason it would be refused at install. */
  parsed: SkillMd | { error: string };
}

/** What the catalogs service is built from. */
export interface CatalogsServiceOptions {
  env: CatalogEnv;
  settings: SettingsService;
  skills: SkillsService;
  registry: SkillRegistry;
  /** `GITHUB_RAW_BASE_URL`. */
  githubRawBaseUrl: string;
}

/** Searches catalogs and installs from them. */
export class CatalogsService {
  private readonly catalogs: Record<CatalogId, Catalog>;

  constructor(private readonly opts: CatalogsServiceOptions) {
    this.catalogs = createCatalogs(opts.env);
  }

  /** The catalog the `activeProvider` setting names (installs come only from it). */
  async activeCatalog(): Promise<CatalogId> {
    return (await this.opts.settings.get()).activeCatalog;
  }

  /**
   * Reads the SKILL.md an install from the active catalog would use, without installing it.
   * @throws InvalidInputError when `ref` names no skill; NotFoundError `skill_md_not_found`;
   *   UpstreamError for GitHub raw failures. A SKILL.md breaking the Agent Skills rules is
   *   returned with the reason in `parsed.error`.
   */
  async preview(ref: CatalogInstallRef): Promise<SkillMdPreview> {
    const location = this.catalogs[await this.activeCatalog()].locate(ref);
    const found = await locateSkillMd(this.opts.githubRawBaseUrl, this.opts.env.fetch, location);
    let parsed: SkillMdPreview["parsed"];
    try {
      parsed = parseSkillMd(found.text);
    } catch (err) {
      parsed = { error: err instanceof Error ? err.message : String(err) };
    }
    return { url: found.url, text: found.text, parsed };
  }

  /**
   * Searches catalog `id`; `limit` is capped at the catalog's largest page.
   * @throws UpstreamError from the catalog (`catalog_*`, `skillsmp_not_configured`).
   */
  search(id: CatalogId, query: CatalogQuery): Promise<CatalogPage> {
    const catalog = this.catalogs[id];
    return catalog.search({ ...query, limit: Math.min(query.limit, catalog.maxLimit) });
  }

  /**
   * Installs one skill from catalog `id` for `owner` (null = global).
   * @throws ConflictError `provider_not_active` when `id` is not the active catalog;
   *   InvalidInputError when the request names no skill or unsafe repository coordinates;
   *   NotFoundError `skill_md_not_found`; InvalidSkillMdError (422) for a SKILL.md breaking the
   *   Agent Skills rules; ConflictError `skill_exists` (409) for a duplicate `name@version` of
   *   the owner, `reserved_name` for a builtin name; UpstreamError for GitHub raw failures.
   */
  async install(
    id: CatalogId,
    ref: CatalogInstallRef,
    owner: string | null,
  ): Promise<CatalogInstallResult> {
    const catalog = this.catalogs[id];
    const active = (await this.opts.settings.get()).activeCatalog;
    if (active !== id) {
      throw new ConflictError(
        `Installs from ${id} need the active provider setting to be ${id} (it is ${active})`,
        "provider_not_active",
      );
    }
    const location = catalog.locate(ref);
    const found = await locateSkillMd(this.opts.githubRawBaseUrl, this.opts.env.fetch, location);
    const md = parseSkillMd(found.text);
    const skill = await this.opts.skills.install({
      name: md.name,
      version: md.version,
      description: md.description,
      schema: { input: INSTRUCTION_INPUT_SCHEMA },
      handlerCode: INSTRUCTION_HANDLER,
      instructions: md.body,
      mode: "auto",
      policy: "auto",
      tags: md.tags,
      apiKeyId: owner,
      sourceProvider: id,
      sourceRef: `${location.owner}/${location.repo}/${location.skillId}`,
    });
    const counted = await this.opts.registry.countCatalogInstall(skill);
    return { skill: counted, skillMd: { url: found.url, path: found.path } };
  }

  /**
   * Installs the SKILL.md text `content` as a local instruction skill
   * (`POST /api/skills/skill-md/install`; docs/catalogs.md#installing-a-skillmd-file): the same
   * validation and skill shape as a catalog install, with no catalog source. `mode` defaults to
   * `auto`, `policy` to the registry's default; `owner` null = global.
   * @throws InvalidSkillMdError (422) for a SKILL.md breaking the Agent Skills rules;
   *   ConflictError `skill_exists` (409) for a duplicate `name@version` of the owner,
   *   `reserved_name` for a builtin name.
   */
  async installSkillMd(
    content: string,
    opts: { owner: string | null; mode?: InjectionMode; policy?: ExecutionPolicy },
  ): Promise<Skill> {
    const md = parseSkillMd(content);
    return this.opts.skills.install({
      name: md.name,
      version: md.version,
      description: md.description,
      schema: { input: INSTRUCTION_INPUT_SCHEMA },
      handlerCode: INSTRUCTION_HANDLER,
      instructions: md.body,
      mode: opts.mode ?? "auto",
      ...(opts.policy === undefined ? {} : { policy: opts.policy }),
      tags: md.tags,
      apiKeyId: opts.owner,
    });
  }
}
