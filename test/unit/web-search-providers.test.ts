import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { parseConfig } from "../../workers/src/config.js";
import type { Db } from "../../workers/src/db/client.js";
import type { AppDeps } from "../../workers/src/deps.js";
import {
  createWebSearchHandlers,
  webSearchDefinitions,
} from "../../workers/src/skills/builtins/web-search.js";
import { expectFailure, fakeContext } from "../support/fakes/handler-context.js";
import { type FakeSearch, startFakeBrave, startFakeSearxng } from "../support/fakes/search.js";

const TOKEN = "brave-test-token";
let searx: FakeSearch;
let brave: FakeSearch;

beforeAll(async () => {
  searx = await startFakeSearxng();
  brave = await startFakeBrave(TOKEN);
});
afterAll(async () => {
  await searx.close();
  await brave.close();
});
beforeEach(() => {
  searx.mode = "ok";
  brave.mode = "ok";
});

interface Out {
  query: string;
  provider: string;
  results: Array<{ title: string; url: string; snippet: string }>;
  cached: boolean;
}

function build(env: Record<string, string>, cache = new MemoryCache()) {
  const deps: AppDeps = { db: {} as Db, cache, config: parseConfig(env) };
  return createWebSearchHandlers(deps);
}
const searxEnv = () => ({ WEB_SEARCH_PROVIDER: "searxng", SEARXNG_URL: searx.url });
const braveEnv = (token = TOKEN) => ({
  WEB_SEARCH_PROVIDER: "brave",
  BRAVE_API_KEY: token,
  BRAVE_BASE_URL: brave.url,
});

describe("web_search over SearXNG", () => {
  it("calls /search?format=json and maps results to title, url, snippet", async () => {
    const h = build(searxEnv()).web_search!;
    const out = (await h({ query: "edge skills", limit: 3 }, fakeContext("k"))) as Out;
    expect(out).toMatchObject({ query: "edge skills", provider: "searxng", cached: false });
    expect(out.results).toEqual(
      [1, 2, 3].map((i) => ({
        title: `Result ${i} for edge skills`,
        url: `https://example.org/edge-skills/${i}`,
        snippet: `About edge skills & more, item ${i}.`,
      })),
    );
    const sent = new URL(searx.requests.at(-1)!.url, "http://x");
    expect(sent.pathname).toBe("/search");
    expect(sent.searchParams.get("q")).toBe("edge skills");
    expect(sent.searchParams.get("format")).toBe("json");
  });

  it("serves a repeated query from the cache until the TTL ends", async () => {
    let now = 1_000_000;
    const h = build({ ...searxEnv(), WEB_SEARCH_CACHE_TTL_S: "120" }, new MemoryCache(() => now))
      .web_search!;
    const before = searx.requests.length;
    const first = (await h({ query: "cache me" }, fakeContext("k"))) as Out;
    const second = (await h({ query: "  Cache   ME " }, fakeContext("k"))) as Out;
    expect(first.cached).toBe(false);
    expect(second.cached).toBe(true);
    expect(second.results).toEqual(first.results);
    expect(first.results.length).toBe(5);
    expect(searx.requests.length - before).toBe(1);
    now += 121_000;
    expect(((await h({ query: "cache me" }, fakeContext("k"))) as Out).cached).toBe(false);
    expect(searx.requests.length - before).toBe(2);
  });

  it("returns an honest empty list when the engine finds nothing", async () => {
    searx.mode = "empty";
    const out = (await build(searxEnv()).web_search!({ query: "zzzz" }, fakeContext("k"))) as Out;
    expect(out.results).toEqual([]);
  });

  it.each([
    ["429", "search_rate_limited", true],
    ["500", "search_unavailable", true],
    ["malformed", "search_invalid_response", false],
    ["notjson", "search_invalid_response", false],
  ] as const)(
    "surfaces %s as a tool error (%s), never as empty results, and does not cache it",
    async (mode, code, retryable) => {
      const cache = new MemoryCache();
      const h = build(searxEnv(), cache).web_search!;
      searx.mode = mode;
      const err = await expectFailure(h({ query: `failing ${mode}` }, fakeContext("k")));
      expect(err.code).toBe(code);
      expect(err.retryable).toBe(retryable);
      searx.mode = "ok";
      const out = (await h({ query: `failing ${mode}` }, fakeContext("k"))) as Out;
      expect(out.cached).toBe(false);
      expect(out.results.length).toBe(5);
    },
  );

  it("reports an unreachable instance as retryable search_unavailable", async () => {
    const h = build({ WEB_SEARCH_PROVIDER: "searxng", SEARXNG_URL: "http://127.0.0.1:9" })
      .web_search!;
    const err = await expectFailure(h({ query: "x" }, fakeContext("k")));
    expect(err.code).toBe("search_unavailable");
    expect(err.retryable).toBe(true);
  });
});

describe("web_search over Brave", () => {
  it("sends the key and count, strips markup from snippets", async () => {
    const out = (await build(braveEnv()).web_search!(
      { query: "brave query", limit: 7 },
      fakeContext("k"),
    )) as Out;
    expect(out.provider).toBe("brave");
    expect(out.results.length).toBe(7);
    expect(out.results[0]).toEqual({
      title: "Result 1 for brave query",
      url: "https://example.org/brave-query/1",
      snippet: "About brave query & more, item 1.",
    });
    const req = brave.requests.at(-1)!;
    expect(req.headers["x-subscription-token"]).toBe(TOKEN);
    const sent = new URL(req.url, "http://x");
    expect(sent.pathname).toBe("/res/v1/web/search");
    expect(sent.searchParams.get("count")).toBe("7");
  });

  it("treats a search without a web section as zero results and a wrong key as an error", async () => {
    brave.mode = "empty";
    expect(
      ((await build(braveEnv()).web_search!({ query: "none" }, fakeContext("k"))) as Out).results,
    ).toEqual([]);
    brave.mode = "ok";
    const err = await expectFailure(
      build(braveEnv("wrong")).web_search!({ query: "x" }, fakeContext("k")),
    );
    expect(err.code).toBe("search_failed");
    expect(err.message).toContain("HTTP 422");
    expect(err.message).toContain("SUBSCRIPTION_TOKEN_INVALID");
  });

  it.each([
    ["429", "search_rate_limited"],
    ["500", "search_unavailable"],
    ["malformed", "search_invalid_response"],
    ["notjson", "search_invalid_response"],
  ] as const)("surfaces %s as %s", async (mode, code) => {
    brave.mode = mode;
    expect(
      (await expectFailure(build(braveEnv()).web_search!({ query: `b ${mode}` }, fakeContext("k"))))
        .code,
    ).toBe(code);
  });
});

describe("web_search configuration and input", () => {
  it("fails clearly when no provider is configured", async () => {
    const none = await expectFailure(build({}).web_search!({ query: "x" }, fakeContext("k")));
    expect(none.code).toBe("search_not_configured");
    const noUrl = await expectFailure(
      build({ WEB_SEARCH_PROVIDER: "searxng" }).web_search!({ query: "x" }, fakeContext("k")),
    );
    expect(noUrl.message).toContain("SEARXNG_URL");
    const noKey = await expectFailure(
      build({ WEB_SEARCH_PROVIDER: "brave" }).web_search!({ query: "x" }, fakeContext("k")),
    );
    expect(noKey.message).toContain("BRAVE_API_KEY");
  });

  it("rejects an empty query and an out-of-range limit", async () => {
    const h = build(searxEnv()).web_search!;
    expect((await expectFailure(h({ query: "  " }, fakeContext("k")))).code).toBe("invalid_input");
    expect((await expectFailure(h({ query: "x", limit: 21 }, fakeContext("k")))).code).toBe(
      "invalid_input",
    );
  });

  it("answers to the alias omniroute_web_search with the same handler", async () => {
    const handlers = build(searxEnv());
    expect(handlers.omniroute_web_search).toBe(handlers.web_search);
    expect(webSearchDefinitions[0]!.aliases).toEqual(["omniroute_web_search"]);
  });
});
