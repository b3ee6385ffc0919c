/**
 * SkillsMP marketplace client (docs/catalogs.md#searching;
 * `GET {SKILLSMP_BASE_URL}/api/v1/skills/search?q&page&limit&sortBy`,
 * `Authorization: Bearer <key>`). Observed payloads: `{ success: true, data: { skills: [{ id, name,
 * description, author, stars, githubUrl, skillUrl, updatedAt }], pagination: { page, limit, total,
 * totalPages } } }`, and flat `{ skills, pagination }`; errors `{ success: false, error: { code,
 * message } }`. An empty query lists the most-starred skills (`sortBy=stars`, no `q`).
 */
import { InvalidInputError, UpstreamError } from "../errors.js";
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

/** Sort orders SkillsMP documents. */
export type SkillsMpSort = "stars" | "recent";
/** Largest page size SkillsMP serves. */
export const SKILLSMP_MAX_LIMIT = 100;

/** Normalises one SkillsMP item; null when it names no skill. */
export function normalizeSkillsMpItem(item: Record<string, unknown>): CatalogSkill | null {
  const githubUrl = str(
    item,
    "githubUrl",
    "github_url",
    "repoUrl",
    "repo_url",
    "repository",
    "github",
  );
  const repo = githubUrl ? parseRepoRef(githubUrl) : null;
  const path = str(item, "path") ?? repo?.path ?? null;
  const folder = path
    ?.replace(/\/?SKILL\.md$/i, "")
    .split("/")
    .filter(Boolean)
    .pop();
  const name = str(item, "name", "title", "slug");
  const skillId = folder ?? name;
  if (!name || !skillId) return null;
  return {
    id: str(item, "id", "slug") ?? name,
    name,
    description: str(item, "description", "summary") ?? "",
    source: repo ? `${repo.owner}/${repo.repo}` : null,
    skillId,
    installs: numberField(item, "installs", "downloads"),
    stars: numberField(item, "stars", "githubStars", "stargazers_count"),
    author: str(item, "author", "owner") ?? repo?.owner ?? null,
    githubUrl: githubUrl ?? null,
    url: str(item, "skillUrl", "skill_url", "url"),
  };
}

/** SkillsMP search client. */
export class SkillsMpClient {
  /**
   * @param baseUrl `SKILLSMP_BASE_URL`.
   * @param apiKey the `skillsmpApiKey` setting, else the `SKILLSMP_API_KEY` secret.
   * @param fetchImpl operator fetch (`AppDeps.fetch`).
   */
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string | null | undefined,
    private readonly fetchImpl: typeof fetch,
  ) {}

  /**
   * Searches SkillsMP.
   * @param opts `q` (empty: most-starred), `page` from 1, `limit` 1..100, `sortBy`.
   * @throws UpstreamError 503 `skillsmp_not_configured` without an API key; 429
   *   `catalog_rate_limited`; 502 `catalog_auth_failed` / `catalog_failed` / `catalog_unreachable` /
   *   `catalog_invalid_response`.
   */
  async search(opts: {
    q: string;
    page: number;
    limit: number;
    sortBy?: SkillsMpSort;
  }): Promise<CatalogPage> {
    if (!this.apiKey) {
      throw new UpstreamError(
        "SkillsMP needs an API key: set the skillsmpApiKey setting or SKILLSMP_API_KEY",
        "skillsmp_not_configured",
      );
    }
    const q = opts.q.trim();
    const url = joinUrl(this.baseUrl, "api/v1/skills/search");
    if (q !== "") url.searchParams.set("q", q);
    url.searchParams.set("page", String(opts.page));
    url.searchParams.set("limit", String(opts.limit));
    const sortBy = opts.sortBy ?? (q === "" ? "stars" : undefined);
    if (sortBy) url.searchParams.set("sortBy", sortBy);
    const payload = await upstreamJson("SkillsMP", this.fetchImpl, url, {
      authorization: `Bearer ${this.apiKey}`,
    });
    const { items, envelope } = itemsOf("SkillsMP", payload);
    const pagination = envelope.pagination;
    const meta =
      pagination && typeof pagination === "object"
        ? (pagination as Record<string, unknown>)
        : envelope;
    const data = items
      .map(normalizeSkillsMpItem)
      .filter((s): s is CatalogSkill => s !== null)
      .slice(0, opts.limit);
    return {
      provider: "skillsmp",
      query: q,
      data,
      total: numberField(meta, "total", "totalCount", "count"),
      page: numberField(meta, "page") ?? opts.page,
      limit: opts.limit,
    };
  }
}

function badLocation(message: string): InvalidInputError {
  return new InvalidInputError(message, [{ field: "source", message }]);
}

/**
 * A SkillsMP install request → where its SKILL.md lives: `githubUrl` (with its ref and path), or
 * `source` (`owner/repo`) with `skillId`; `path` and `ref` override what the URL says.
 * @throws InvalidInputError (field `source`) when no repository or skill folder is named.
 */
export function skillsMpLocation(ref: CatalogInstallRef): SkillLocation {
  const repo = parseRepoRef(ref.githubUrl ?? ref.source ?? "");
  if (!repo) throw badLocation("githubUrl (a github.com URL) or source (owner/repo) is required");
  const path = ref.path ?? repo.path;
  const folder = path
    ?.replace(/\/?SKILL\.md$/i, "")
    .split("/")
    .filter(Boolean)
    .pop();
  const skillId = ref.skillId ?? folder;
  if (!skillId) throw badLocation("skillId is required when the URL names no skill folder");
  return { owner: repo.owner, repo: repo.repo, skillId, ref: ref.ref ?? repo.ref, path };
}

/**
 * The SkillsMP catalog: its key is the `skillsmpApiKey` setting, else the `SKILLSMP_API_KEY`
 * secret, read at each search.
 */
export const skillsMpCatalog: CatalogDefinition<"skillsmp"> = {
  id: "skillsmp",
  create: (env) => ({
    id: "skillsmp",
    label: "SkillsMP",
    maxLimit: SKILLSMP_MAX_LIMIT,
    async search(query) {
      const key = (await env.settings()).skillsmpApiKey ?? env.config.SKILLSMP_API_KEY;
      const client = new SkillsMpClient(env.config.SKILLSMP_BASE_URL, key, env.fetch);
      const sortBy =
        query.sortBy === "stars" || query.sortBy === "recent" ? query.sortBy : undefined;
      return client.search({ q: query.q, page: query.page, limit: query.limit, sortBy });
    },
    locate: skillsMpLocation,
  }),
};
