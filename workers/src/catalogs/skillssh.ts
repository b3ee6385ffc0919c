/**
 * skills.sh catalog client (docs/catalogs.md#searching;
 * `GET {SKILLSSH_BASE_URL}/api/search?q=&limit=`, no auth).
 * Observed payloads: `{ query, searchType, skills: [{ id: "owner/repo/skill", skillId, name,
 * installs, source: "owner/repo" }], count }`; older or other shapes use `topSource`, `slug`, or a
 * bare array. The SKILL.md itself comes from GitHub raw.
 */
import { InvalidInputError } from "../errors.js";
import { parseRepoRef } from "./github-raw.js";
import { itemsOf, numberField, str } from "./normalize.js";
import type {
  CatalogDefinition,
  CatalogInstallRef,
  CatalogPage,
  CatalogSkill,
  SkillLocation,
} from "./types.js";
import { joinUrl, upstreamJson } from "./upstream.js";

/** `limit` range of `GET /api/skills/skillssh` (docs/catalogs.md#searching). */
export const SKILLSSH_MAX_LIMIT = 100;

/** Normalises one skills.sh item; null when it names no skill. */
export function normalizeSkillsShItem(item: Record<string, unknown>): CatalogSkill | null {
  const id = str(item, "id", "slug", "fullName", "full_name");
  const idParts = id?.split("/").filter(Boolean) ?? [];
  let source = str(item, "source", "topSource", "top_source", "repo", "repository");
  if (source) {
    const ref = parseRepoRef(source);
    source = ref ? `${ref.owner}/${ref.repo}` : null;
  } else if (idParts.length >= 3) {
    source = `${idParts[0]}/${idParts[1]}`;
  }
  const skillId =
    str(item, "skillId", "skill_id", "skill") ??
    (idParts.length > 0 ? idParts[idParts.length - 1]! : null) ??
    str(item, "name");
  const name = str(item, "name", "title") ?? skillId;
  if (!skillId || !name) return null;
  return {
    id: id ?? (source ? `${source}/${skillId}` : skillId),
    name,
    description: str(item, "description", "summary") ?? "",
    source,
    skillId,
    installs: numberField(item, "installs", "installCount", "install_count", "downloads"),
    stars: numberField(item, "stars", "githubStars"),
    author: str(item, "author", "owner") ?? (source ? source.split("/")[0]! : null),
    githubUrl: source ? `https://github.com/${source}` : null,
    url: str(item, "url") ?? (source ? `https://skills.sh/${source}/${skillId}` : null),
  };
}

/** skills.sh search client. */
export class SkillsShClient {
  /**
   * @param baseUrl `SKILLSSH_BASE_URL`.
   * @param fetchImpl operator fetch (`AppDeps.fetch`).
   */
  constructor(
    private readonly baseUrl: string,
    private readonly fetchImpl: typeof fetch,
  ) {}

  /**
   * Searches skills.sh.
   * @param q query text (may be empty).
   * @param limit 1..100.
   * @throws UpstreamError (429 `catalog_rate_limited`, 502 `catalog_failed` /
   *   `catalog_unreachable` / `catalog_invalid_response`).
   */
  async search(q: string, limit: number): Promise<CatalogPage> {
    const url = joinUrl(this.baseUrl, "api/search");
    url.searchParams.set("q", q);
    url.searchParams.set("limit", String(limit));
    const payload = await upstreamJson("skills.sh", this.fetchImpl, url);
    const { items, envelope } = itemsOf("skills.sh", payload);
    const data = items
      .map(normalizeSkillsShItem)
      .filter((s): s is CatalogSkill => s !== null)
      .slice(0, limit);
    return {
      provider: "skillssh",
      query: q,
      data,
      total: numberField(envelope, "count", "total") ?? data.length,
      page: 1,
      limit,
    };
  }
}

/**
 * A skills.sh install request → where its SKILL.md lives: `source` (`owner/repo`) and `skillId`,
 * or `id` (`owner/repo/skillId`).
 * @throws InvalidInputError (field `source`) when no repository or skill is named.
 */
export function skillsShLocation(ref: CatalogInstallRef): SkillLocation {
  const parts = ref.id?.split("/").filter(Boolean) ?? [];
  const repo = parseRepoRef(ref.source ?? (parts.length >= 3 ? `${parts[0]}/${parts[1]}` : ""));
  const skillId = ref.skillId ?? (parts.length >= 3 ? parts[parts.length - 1] : undefined);
  if (!repo || !skillId) {
    const message = "source (owner/repo) and skillId, or id (owner/repo/skillId), are required";
    throw new InvalidInputError(message, [{ field: "source", message }]);
  }
  return { owner: repo.owner, repo: repo.repo, skillId };
}

/** The skills.sh catalog (one page of results; no authentication). */
export const skillsShCatalog: CatalogDefinition<"skillssh"> = {
  id: "skillssh",
  create: (env) => ({
    id: "skillssh",
    label: "skills.sh",
    maxLimit: SKILLSSH_MAX_LIMIT,
    search: (query) =>
      new SkillsShClient(env.config.SKILLSSH_BASE_URL, env.fetch).search(query.q, query.limit),
    locate: skillsShLocation,
  }),
};
