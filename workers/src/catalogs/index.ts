/**
 * The registered catalogs (docs/catalogs.md). A new catalog is one module exporting a
 * {@link CatalogDefinition} plus its line here; its id then becomes a {@link CatalogId}, a valid
 * `activeProvider` setting and a skill `sourceProvider`.
 */
import { skillsMpCatalog } from "./skillsmp.js";
import { skillsShCatalog } from "./skillssh.js";
import type { Catalog, CatalogDefinition, CatalogEnv, CatalogId } from "./types.js";

/** Every catalog by id. */
export const CATALOGS = {
  skillsmp: skillsMpCatalog,
  skillssh: skillsShCatalog,
} as const satisfies Record<string, CatalogDefinition>;

/** Every catalog id, in registration order (for request validation). */
export const CATALOG_IDS = Object.keys(CATALOGS) as [CatalogId, ...CatalogId[]];

/** Builds every catalog for `env`, by id. */
export function createCatalogs(env: CatalogEnv): Record<CatalogId, Catalog> {
  const out = {} as Record<CatalogId, Catalog>;
  for (const id of CATALOG_IDS) out[id] = CATALOGS[id].create(env);
  return out;
}
