/**
 * The catalog item shape the API returns for both catalogs (`GET /api/skills/marketplace`
 * and `GET /api/skills/skillssh`), normalised from their varying payloads.
 */

/** One catalog entry. */
export interface CatalogSkill {
  /** The catalog's own id of the entry. */
  id: string;
  name: string;
  description: string;
  /** GitHub `owner/repo` holding the skill, when known. */
  source: string | null;
  /** Folder name of the skill in its repository (skills.sh `skillId`). */
  skillId: string;
  /** Install count reported by the catalog (skills.sh). */
  installs: number | null;
  /** GitHub stars reported by the catalog (SkillsMP). */
  stars: number | null;
  author: string | null;
  /** GitHub URL of the skill folder (SkillsMP `githubUrl`). */
  githubUrl: string | null;
  /** The entry's page on the catalog. */
  url: string | null;
}

/** A page of catalog results. `total` is null when the catalog does not say. */
export interface CatalogPage {
  provider: "skillsmp" | "skillssh";
  query: string;
  data: CatalogSkill[];
  total: number | null;
  page: number;
  limit: number;
}

/** Where a skill's SKILL.md lives on GitHub. */
export interface SkillLocation {
  owner: string;
  repo: string;
  /** Folder name of the skill (used for the standard layouts). */
  skillId: string;
  /** Branch, tag or commit named by the catalog, tried before the default branch. */
  ref?: string;
  /** Folder (or SKILL.md path) named by the catalog, tried first. */
  path?: string;
}
