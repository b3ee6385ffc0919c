/**
 * Internet services that answer JSON nested tens of thousands of levels deep (a catalog, a
 * search backend, each played by a local HTTP server): the answer is refused as invalid before it
 * is parsed, with the service's own code, instead of reaching code that serialises it
 * (docs/execution.md#output-depth).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { upstreamJson } from "../../workers/src/catalogs/upstream.js";
import { parseConfig } from "../../workers/src/config.js";
import type { Db } from "../../workers/src/db/client.js";
import type { AppDeps } from "../../workers/src/deps.js";
import { UpstreamError } from "../../workers/src/errors.js";
import { createWebSearchHandlers } from "../../workers/src/skills/builtins/web-search.js";
import { expectFailure, fakeContext } from "../support/fakes/handler-context.js";
import { type FakeServer, startFakeServer } from "../support/fakes/http.js";

const DEPTH = 30_000;
let deep: FakeServer;

beforeAll(async () => {
  deep = await startFakeServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(`{"results":${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}}`);
  });
});
afterAll(() => deep.close());

describe("JSON answers nested too deep", () => {
  it("a catalog's answer is catalog_invalid_response", async () => {
    const err = await upstreamJson("SkillsMP", fetch, new URL(`${deep.url}/api/skills`)).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).code).toBe("catalog_invalid_response");
    expect((err as UpstreamError).message).toContain("nested deeper than 256 levels");
  });

  it("a search backend's answer is search_invalid_response", async () => {
    const deps: AppDeps = {
      db: {} as Db,
      cache: new MemoryCache(),
      config: parseConfig({ WEB_SEARCH_PROVIDER: "searxng", SEARXNG_URL: deep.url }),
    };
    const search = createWebSearchHandlers(deps).web_search!;
    const failure = await expectFailure(search({ query: "deep" }, fakeContext("k")));
    expect(failure.code).toBe("search_invalid_response");
    expect(failure.message).toContain("nested deeper than 256 levels");
  });
});
