/**
 * Catalog operations for the dashboard (docs/catalogs.md): search the active provider, read a
 * skill's SKILL.md before installing it, and install it. The same clients and installer as the
 * `/api/skills/marketplace` and `/api/skills/skillssh` routes.
 */
import type { AppDeps } from "../deps.js";
import { InvalidInputError } from "../errors.js";
import type { SettingsService } from "../settings/settings-service.js";
import type { SkillRegistry } from "../skills/registry.js";
import type { SkillService } from "../skills/skill-service.js";
import { locateSkillMd, parseRepoRef } from "./github-raw.js";
import { type CatalogInstallResult, installCatalogSkill } from "./install.js";
import { parseSkillMd, type SkillMd } from "./skill-md.js";
import { SkillsMpClient } from "./skillsmp.js";
import { SkillsShClient } from "./skillssh.js";
import type { CatalogPage, SkillLocation } from "./types.js";
import { globalFetch } from "./upstream.js";

/** Where a catalog item's SKILL.md lives, as search results name it. */
export interface CatalogItemRef {
  /** `owner/repo` (skills.sh, SkillsMP). */
  source?: string;
  /** A github.com URL (SkillsMP), possibly with `tree/<ref>/<path>`. */
  githubUrl?: string;
  skillId: string;
}

/** A SKILL.md read for preview. */
export interface SkillMdPreview {
  url: string;
  text: string;
  /** The parsed file, or the reason it would be refused at install. */
  parsed: SkillMd | { error: string };
}

/** Search, preview and install from the active catalog provider. */
export class CatalogService {
  constructor(
    private readonly deps: AppDeps,
    private readonly settings: SettingsService,
    private readonly skills: SkillService,
    private readonly registry: SkillRegistry,
  ) {}

  private fetch(): typeof fetch {
    return this.deps.fetch ?? globalFetch;
  }

  /** The active provider setting. */
  async activeProvider(): Promise<"skillsmp" | "skillssh"> {
    return (await this.settings.get()).activeProvider;
  }

  /**
   * Searches the active provider.
   * @throws UpstreamError when the catalog fails or rate-limits (as the REST routes).
   */
  async search(q: string, limit = 20): Promise<CatalogPage> {
    const settings = await this.settings.get();
    const cfg = this.deps.config;
    if (settings.activeProvider === "skillssh") {
      return new SkillsShClient(cfg.SKILLSSH_BASE_URL, this.fetch()).search(q, limit);
    }
    const key = settings.skillsmpApiKey ?? cfg.SKILLSMP_API_KEY;
    return new SkillsMpClient(cfg.SKILLSMP_BASE_URL, key, this.fetch()).search({
      q,
      page: 1,
      limit,
    });
  }

  /** @throws InvalidInputError when `ref` names no GitHub repository. */
  private location(ref: CatalogItemRef): SkillLocation {
    const repo = parseRepoRef(ref.githubUrl || ref.source || "");
    if (!repo || !ref.skillId) {
      throw new InvalidInputError("The catalog item names no GitHub repository and skill id", [
        { field: "source", message: "owner/repo or a github.com URL is required" },
      ]);
    }
    return {
      owner: repo.owner,
      repo: repo.repo,
      skillId: ref.skillId,
      ref: repo.ref,
      path: repo.path,
    };
  }

  /** Reads the item's SKILL.md. @throws as {@link locateSkillMd}. */
  async preview(ref: CatalogItemRef): Promise<SkillMdPreview> {
    const found = await locateSkillMd(
      this.deps.config.GITHUB_RAW_BASE_URL,
      this.fetch(),
      this.location(ref),
    );
    let parsed: SkillMdPreview["parsed"];
    try {
      parsed = parseSkillMd(found.text);
    } catch (err) {
      parsed = { error: (err as Error).message };
    }
    return { url: found.url, text: found.text, parsed };
  }

  /** Installs the item from the active provider for `apiKeyId` (null = global). */
  async install(ref: CatalogItemRef, apiKeyId: string | null): Promise<CatalogInstallResult> {
    return installCatalogSkill(
      {
        db: this.deps.db,
        skills: this.skills,
        registry: this.registry,
        fetch: this.fetch(),
        githubRawBaseUrl: this.deps.config.GITHUB_RAW_BASE_URL,
      },
      { provider: await this.activeProvider(), location: this.location(ref), apiKeyId },
    );
  }
}
