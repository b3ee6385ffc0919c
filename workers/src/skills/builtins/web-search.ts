/**
 * Builtin `web_search` (docs/builtins.md#web_search; alias `omniroute_web_search`,
 * docs/tool-names.md#builtin-names-and-aliases). Results are cached in the KV-style cache for
 * `WEB_SEARCH_CACHE_TTL_S` seconds; failures are tool errors, never empty results.
 */
import { z } from "zod";
import { sha256Hex } from "../../auth/crypto.js";
import type { Cache } from "../../cache/types.js";
import { ExecutionFailure } from "../../errors.js";
import type { HandlerContext, SkillHandler } from "../types.js";
import { inputSchemaOf } from "./input-schema.js";
import { createSearchBackend, type SearchBackend, type SearchResult } from "./search-backends.js";
import type { BuiltinDefinition, BuiltinHandlerFactory } from "./types.js";

/** Default number of results per call. */
export const DEFAULT_SEARCH_LIMIT = 5;
/** Largest number of results per call (Brave serves at most 20 per page). */
export const MAX_SEARCH_LIMIT = 20;

/** Input of `web_search`. */
export const webSearchInput = z.object({
  query: z.string().trim().min(1).max(1000).describe("What to search for."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_SEARCH_LIMIT)
    .default(DEFAULT_SEARCH_LIMIT)
    .describe(`Number of results (default ${DEFAULT_SEARCH_LIMIT}).`),
});

/** Result of `web_search`. */
export interface WebSearchResult {
  query: string;
  /** Name of the search backend that answered (`searxng` or `brave`); the field name is the API's. */
  provider: string;
  results: SearchResult[];
  /** True when the results came from the cache. */
  cached: boolean;
}

/** Declaration of `web_search` (policy `auto`; docs/registry.md#builtins). */
export const webSearchDefinitions: BuiltinDefinition[] = [
  {
    name: "web_search",
    description: "Search the web and return the top results as title, url and snippet.",
    inputSchema: inputSchemaOf(webSearchInput),
    policy: "auto",
    mode: "auto",
    tags: ["search", "web", "internet", "lookup", "news"],
    aliases: ["omniroute_web_search"],
    available: (deps) => typeof createSearchBackend(deps.config) !== "string",
  },
];

/**
 * Cache key of one search: search backend, limit and a hash of the normalised query (trimmed, single
 * spaces, lower case), so the key stays short (KV keys are at most 512 bytes).
 */
export async function searchCacheKey(
  backend: string,
  query: string,
  limit: number,
): Promise<string> {
  const normalised = query.trim().replace(/\s+/g, " ").toLowerCase();
  return `web_search:v1:${backend}:${limit}:${await sha256Hex(normalised)}`;
}

/**
 * Runs one search through the cache.
 * @returns results and whether they were cached.
 * @throws ExecutionFailure from the search backend (`search_*` codes).
 */
export async function cachedSearch(
  backend: SearchBackend,
  cache: Cache,
  ttlSeconds: number,
  query: string,
  limit: number,
  signal?: AbortSignal,
): Promise<{ results: SearchResult[]; cached: boolean }> {
  const key = await searchCacheKey(backend.name, query, limit);
  const hit = await cache.get<SearchResult[]>(key);
  if (hit) return { results: hit, cached: true };
  const results = await backend.search(query.trim(), limit, signal);
  await cache.put(key, results, ttlSeconds);
  return { results, cached: false };
}

/**
 * Builds the `web_search` handler (also registered as `omniroute_web_search`). The search backend
 * comes from `WEB_SEARCH_PROVIDER` and is called with `deps.fetch` (operator upstream, not guarded).
 * Errors (ExecutionFailure): `invalid_input`, `search_not_configured`, and the backend's
 * `search_unavailable`, `search_rate_limited` (both retryable), `search_auth_failed`,
 * `search_failed`, `search_invalid_response`.
 */
export const createWebSearchHandlers: BuiltinHandlerFactory = (deps) => {
  const backend = createSearchBackend(deps.config, deps.fetch);
  const ttl = deps.config.WEB_SEARCH_CACHE_TTL_S;

  const handler: SkillHandler = async (input, ctx: HandlerContext): Promise<WebSearchResult> => {
    const parsed = webSearchInput.safeParse(input);
    if (!parsed.success) {
      const where = parsed.error.issues.map((i) => i.path.join(".") || "input").join(", ");
      throw new ExecutionFailure(`Invalid web_search input: ${where}`, { code: "invalid_input" });
    }
    if (typeof backend === "string") {
      throw new ExecutionFailure(backend, { code: "search_not_configured" });
    }
    const { query, limit } = parsed.data;
    const { results, cached } = await cachedSearch(
      backend,
      deps.cache,
      ttl,
      query,
      limit,
      ctx.signal,
    );
    return { query, provider: backend.name, results, cached };
  };

  return { web_search: handler, omniroute_web_search: handler };
};
