/**
 * What a catalog is (docs/catalogs.md): a place skills are found and installed from, behind one
 * {@link Catalog} interface, and the item shape the API returns for every catalog
 * (`GET /api/skills/marketplace`, `GET /api/skills/skillssh`), normalised from their varying
 * payloads. The catalogs themselves are registered in `index.ts`.
 */
import type { Config } from "../config.js";
import type { CATALOGS } from "./index.js";

/** The id of a registered catalog (`skillsmp`, `skillssh`); also a skill's `sourceProvider`. */
export type CatalogId = keyof typeof CATALOGS;

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
  /** The catalog that answered (API field name). */
  provider: CatalogId;
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

/** A search: `q` may be empty (the catalog's own default listing); `page` from 1. */
export interface CatalogQuery {
  q: string;
  page: number;
  /** 1 to the catalog's {@link Catalog.maxLimit}. */
  limit: number;
  /** A sort order the catalog knows (SkillsMP: `stars`, `recent`); others ignore it. */
  sortBy?: string;
}

/**
 * How an install request names a skill; each catalog reads the fields it documents
 * (docs/catalogs.md#installing).
 */
export interface CatalogInstallRef {
  /** A github.com URL of the skill folder (`…/tree/<ref>/<path>`). */
  githubUrl?: string;
  /** `owner/repo`. */
  source?: string;
  /** Folder name of the skill. */
  skillId?: string;
  /** Folder or SKILL.md path in the repository. */
  path?: string;
  /** Branch, tag or commit. */
  ref?: string;
  /** The catalog's own id of the entry (skills.sh: `owner/repo/skillId`). */
  id?: string;
}

/** Settings a catalog may read at call time (an operator can change them through the API). */
export interface CatalogSettings {
  /** SkillsMP API key set through the API; null when unset. */
  skillsmpApiKey: string | null;
}

/** What a catalog is built from. */
export interface CatalogEnv {
  config: Config;
  /** Operator fetch for the catalog's upstream (not the user-facing outbound guard). */
  fetch: typeof fetch;
  /** The current settings. */
  settings(): Promise<CatalogSettings>;
}

/** One catalog: search it, and say where an install request's SKILL.md lives. */
export interface Catalog {
  readonly id: CatalogId;
  /** Human name, for messages. */
  readonly label: string;
  /** Largest page size the catalog serves. */
  readonly maxLimit: number;
  /**
   * Searches the catalog.
   * @throws UpstreamError (`catalog_*` codes; see upstream.ts) and the catalog's own (e.g.
   *   503 `skillsmp_not_configured`).
   */
  search(query: CatalogQuery): Promise<CatalogPage>;
  /**
   * Where the SKILL.md of an install request lives.
   * @throws InvalidInputError (field `source`) when the request does not name a skill.
   */
  locate(ref: CatalogInstallRef): SkillLocation;
}

/** A catalog's registration: its id and how to build it. */
export interface CatalogDefinition<Id extends string = string> {
  readonly id: Id;
  create(env: CatalogEnv): Catalog;
}
