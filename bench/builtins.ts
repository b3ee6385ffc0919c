/**
 * Builtins benchmark: median time of a `file_write` + `file_read` round trip for 1 KB and
 * 1 MB on embedded libSQL, the outbound guard's own cost per call (URL parsing, resolution through
 * the test resolver, range checks), and `web_search` latency uncached vs cached against a local
 * SearXNG-format server. Handlers are called as the executor calls them. Run:
 * `npx tsx bench/builtins.ts` (or `npm run bench`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeContext } from "../test/support/fakes/handler-context.js";
import { startFakeSearxng } from "../test/support/fakes/search.js";
import { MemoryCache } from "../workers/src/cache/memory-cache.js";
import { parseConfig } from "../workers/src/config.js";
import { createDb } from "../workers/src/db/client.js";
import type { AppDeps, HostResolver } from "../workers/src/deps.js";
import { guardOutboundUrl } from "../workers/src/outbound/guard.js";
import { openEmbeddedDatabase } from "../workers/src/runtime/node/embedded-db.js";
import { applyMigrations } from "../workers/src/runtime/node/migrate.js";
import { builtinDeps } from "../workers/src/services/wiring/handlers.js";
import { createFileHandlers } from "../workers/src/skills/builtins/files.js";
import { createWebSearchHandlers } from "../workers/src/skills/builtins/web-search.js";
import { fmt, median, row, timeEach } from "./stats.js";

/** The test resolver: an in-memory name → addresses table, as tests inject it. */
const TEST_NAMES: Record<string, string[]> = {
  "api.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
  "internal.example.com": ["10.0.0.7"],
};
const testResolver: HostResolver = async (name) => TEST_NAMES[name] ?? [];

async function fileRoundTrips(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "skillgate-bench-files-"));
  const client = await openEmbeddedDatabase(`file:${join(dir, "bench.db")}`);
  try {
    const db = createDb(client);
    await applyMigrations(db);
    const deps: AppDeps = {
      db,
      cache: new MemoryCache(),
      config: parseConfig({ SKILLS_MAX_FILE_BYTES: String(2 * 1024 * 1024) }),
    };
    const h = createFileHandlers(builtinDeps(deps));
    const ctx = fakeContext("bench-key");
    const out: Record<string, number> = {};
    for (const [label, size, n] of [
      ["1KB", 1024, 300],
      ["1MB", 1024 * 1024, 30],
    ] as const) {
      const content = "a".repeat(size);
      const samples = await timeEach(n, async (i) => {
        const path = `bench/${label}-${i % 10}.txt`;
        await h.file_write!({ path, content }, ctx);
        const r = (await h.file_read!({ path }, ctx)) as { bytesRead: number };
        if (r.bytesRead !== size) throw new Error(`read ${r.bytesRead} bytes, wrote ${size}`);
      });
      out[`file${label}`] = median(samples.slice(Math.min(5, n / 10)));
    }
    return out;
  } finally {
    client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function guardCost(): Promise<Record<string, number>> {
  const n = 20_000;
  const named = await timeEach(n, () =>
    guardOutboundUrl("https://api.example.com/v1/items?q=1", { resolve: testResolver }),
  );
  const literal = await timeEach(n, () =>
    guardOutboundUrl("http://[2606:4700:4700::1111]:8080/x", { resolve: testResolver }),
  );
  const refused = await timeEach(n, () =>
    guardOutboundUrl("http://internal.example.com/", { resolve: testResolver }).then(
      () => {
        throw new Error("a private target was approved");
      },
      () => undefined,
    ),
  );
  return {
    guardNamed: median(named),
    guardLiteral: median(literal),
    guardRefused: median(refused),
  };
}

async function searchLatency(): Promise<Record<string, number>> {
  const searx = await startFakeSearxng();
  try {
    const deps: AppDeps = {
      db: {} as AppDeps["db"],
      cache: new MemoryCache(),
      config: parseConfig({ WEB_SEARCH_PROVIDER: "searxng", SEARXNG_URL: searx.url }),
    };
    const search = createWebSearchHandlers(deps).web_search!;
    const ctx = fakeContext("bench-key");
    await search({ query: "warm up" }, ctx);
    const uncached = await timeEach(300, (i) => search({ query: `uncached query ${i}` }, ctx));
    const cached = await timeEach(3_000, () => search({ query: "uncached query 7" }, ctx));
    return { searchUncached: median(uncached), searchCached: median(cached) };
  } finally {
    await searx.close();
  }
}

/** Runs the builtins benchmark and prints its table. @returns the medians in ms. */
export async function runBuiltinsBench(): Promise<Record<string, number>> {
  const m = { ...(await fileRoundTrips()), ...(await guardCost()), ...(await searchLatency()) };
  console.log("\nBuiltins (medians)");
  row("file_write + file_read, 1 KB (embedded libSQL)", fmt(m.file1KB!));
  row("file_write + file_read, 1 MB (embedded libSQL)", fmt(m.file1MB!));
  row("outbound guard, name via test resolver", fmt(m.guardNamed!), "target ≤ 1 ms");
  row("outbound guard, IPv6 literal", fmt(m.guardLiteral!));
  row("outbound guard, name refused (private)", fmt(m.guardRefused!));
  row("web_search uncached (local SearXNG over HTTP)", fmt(m.searchUncached!));
  row("web_search cached", fmt(m.searchCached!), "target ≤ 2 ms");
  return m;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runBuiltinsBench().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
