/**
 * Search backends of `web_search` (docs/builtins.md#web_search), chosen by the operator's
 * `WEB_SEARCH_PROVIDER` setting. Two implementations
 * against their documented JSON APIs: SearXNG (`GET {SEARXNG_URL}/search?q=&format=json`, the
 * instance must enable the `json` format) and the Brave Search API
 * (`GET {BRAVE_BASE_URL}/res/v1/web/search?q=&count=` with `X-Subscription-Token`). The endpoint is
 * operator configuration (it may be on a private network), so it uses the operator fetch, not the
 * user-facing outbound guard.
 */

import { z } from "zod";
import type { Config } from "../../config.js";
import { ExecutionFailure } from "../../errors.js";
import { jsonDepthExceeds, MAX_VALUE_DEPTH } from "../../json-depth.js";

/** One search hit. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** A search backend. `search` throws ExecutionFailure on any failure; it never hides one as []. */
export interface SearchBackend {
  readonly name: "searxng" | "brave";
  /**
   * @param query the user's query text.
   * @param limit most results wanted (1..20).
   * @param signal aborts the upstream call.
   */
  search(query: string, limit: number, signal?: AbortSignal): Promise<SearchResult[]>;
}

/** The global fetch, called through a wrapper (workerd refuses a detached `fetch`). */
const globalFetch: typeof fetch = (input, init) => fetch(input, init);

/** Brave caps `count` at 20 per page (Brave Search API reference). */
export const BRAVE_MAX_COUNT = 20;

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  "#39": "'",
  nbsp: " ",
};

/** Removes HTML tags and the common entities from a snippet (Brave marks matches with <strong>). */
export function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|apos|#39|nbsp);/g, (_, e: string) => ENTITIES[e] ?? "")
    .replace(/\s+/g, " ")
    .trim();
}

const hit = z.object({
  url: z.string().url(),
  title: z.string().optional(),
  content: z.string().nullish(),
  description: z.string().nullish(),
  snippet: z.string().nullish(),
});

function toResults(items: unknown[], limit: number, backend: string): SearchResult[] {
  const out: SearchResult[] = [];
  for (const item of items) {
    const parsed = hit.safeParse(item);
    if (!parsed.success) continue;
    const h = parsed.data;
    out.push({
      title: plainText(h.title ?? h.url),
      url: h.url,
      snippet: plainText(h.content ?? h.description ?? h.snippet ?? ""),
    });
    if (out.length >= limit) break;
  }
  if (items.length > 0 && out.length === 0) {
    throw new ExecutionFailure(`${backend} returned results without usable url fields`, {
      code: "search_invalid_response",
    });
  }
  return out;
}

async function call(
  backend: string,
  fetchImpl: typeof fetch,
  url: URL,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<unknown> {
  let res: Response;
  try {
    res = await fetchImpl(url.href, {
      headers: { accept: "application/json", ...headers },
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ExecutionFailure(`${backend} is unreachable: ${(err as Error).message}`, {
      code: "search_unavailable",
      retryable: true,
      cause: err,
    });
  }
  if (!res.ok) {
    const detail = (await res.text().catch(() => "")).slice(0, 200).trim();
    const suffix = detail ? `: ${detail}` : "";
    if (res.status === 429) {
      throw new ExecutionFailure(`${backend} rate limit reached (HTTP 429)${suffix}`, {
        code: "search_rate_limited",
        retryable: true,
      });
    }
    if (res.status === 401 || res.status === 403) {
      const hint =
        backend === "searxng"
          ? " (is the json format enabled in settings.yml?)"
          : " (check BRAVE_API_KEY)";
      throw new ExecutionFailure(
        `${backend} refused the request (HTTP ${res.status})${hint}${suffix}`,
        {
          code: "search_auth_failed",
        },
      );
    }
    throw new ExecutionFailure(`${backend} failed with HTTP ${res.status}${suffix}`, {
      code: res.status >= 500 ? "search_unavailable" : "search_failed",
      retryable: res.status >= 500,
    });
  }
  let text: string;
  try {
    text = await res.text();
  } catch {
    throw new ExecutionFailure(`${backend} answered with invalid JSON`, {
      code: "search_invalid_response",
    });
  }
  if (jsonDepthExceeds(text, MAX_VALUE_DEPTH)) {
    throw new ExecutionFailure(
      `${backend} answered with JSON nested deeper than ${MAX_VALUE_DEPTH} levels`,
      { code: "search_invalid_response" },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ExecutionFailure(`${backend} answered with invalid JSON`, {
      code: "search_invalid_response",
    });
  }
}

const searxngPayload = z.object({ results: z.array(z.unknown()) });

/**
 * SearXNG over its JSON API. `baseUrl` is the instance root (a path prefix is kept). One page of
 * results is read (its size is the instance's setting, typically 10-20); `limit` cuts it.
 */
export function createSearxngBackend(opts: {
  baseUrl: string;
  fetch?: typeof fetch;
}): SearchBackend {
  const fetchImpl = opts.fetch ?? globalFetch;
  return {
    name: "searxng",
    async search(query, limit, signal) {
      const url = new URL("search", opts.baseUrl.endsWith("/") ? opts.baseUrl : `${opts.baseUrl}/`);
      url.searchParams.set("q", query);
      url.searchParams.set("format", "json");
      const body = searxngPayload.safeParse(await call("searxng", fetchImpl, url, {}, signal));
      if (!body.success) {
        throw new ExecutionFailure("searxng answered without a results array", {
          code: "search_invalid_response",
        });
      }
      return toResults(body.data.results, limit, "searxng");
    },
  };
}

const bravePayload = z.object({
  type: z.string().optional(),
  web: z.object({ results: z.array(z.unknown()) }).optional(),
});

/** Brave Search over its Web Search API; `apiKey` goes in `X-Subscription-Token`. */
export function createBraveBackend(opts: {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
}): SearchBackend {
  const fetchImpl = opts.fetch ?? globalFetch;
  return {
    name: "brave",
    async search(query, limit, signal) {
      const base = opts.baseUrl.endsWith("/") ? opts.baseUrl : `${opts.baseUrl}/`;
      const url = new URL("res/v1/web/search", base);
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(Math.min(limit, BRAVE_MAX_COUNT)));
      const raw = await call(
        "brave",
        fetchImpl,
        url,
        { "x-subscription-token": opts.apiKey },
        signal,
      );
      const body = bravePayload.safeParse(raw);
      // A search with no web hits has `type: "search"` and no `web` section; anything else is malformed.
      if (!body.success || (!body.data.web && body.data.type !== "search")) {
        throw new ExecutionFailure("brave answered without web results or a search type", {
          code: "search_invalid_response",
        });
      }
      return toResults(body.data.web?.results ?? [], limit, "brave");
    },
  };
}

/**
 * Builds the search backend chosen by `WEB_SEARCH_PROVIDER`.
 * @returns the backend, or a string saying what configuration is missing.
 */
export function createSearchBackend(
  config: Config,
  fetchImpl?: typeof fetch,
): SearchBackend | string {
  switch (config.WEB_SEARCH_PROVIDER) {
    case "searxng":
      if (!config.SEARXNG_URL) return "WEB_SEARCH_PROVIDER is searxng but SEARXNG_URL is not set";
      return createSearxngBackend({ baseUrl: config.SEARXNG_URL, fetch: fetchImpl });
    case "brave":
      if (!config.BRAVE_API_KEY) return "WEB_SEARCH_PROVIDER is brave but BRAVE_API_KEY is not set";
      return createBraveBackend({
        baseUrl: config.BRAVE_BASE_URL,
        apiKey: config.BRAVE_API_KEY,
        fetch: fetchImpl,
      });
    default:
      return "web_search is not configured (set WEB_SEARCH_PROVIDER to searxng or brave)";
  }
}
