/**
 * Starts the real API (`createApp`) on a temp embedded libSQL file over real HTTP on 127.0.0.1,
 * for benchmarks that measure end to end through the REST surface.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { createClient } from "@libsql/client";
import { createApp } from "../workers/src/app.js";
import { MemoryCache } from "../workers/src/cache/memory-cache.js";
import { parseConfig } from "../workers/src/config.js";
import { createDb } from "../workers/src/db/client.js";
import type { AppDeps } from "../workers/src/deps.js";
import { openEmbeddedDatabase } from "../workers/src/runtime/node/embedded-db.js";
import { applyMigrations } from "../workers/src/runtime/node/migrate.js";
import { createNodeOutbound } from "../workers/src/runtime/node/outbound.js";
import { createNodeUpstreamFetch } from "../workers/src/runtime/node/upstream-fetch.js";
import type { Services } from "../workers/src/services/index.js";

/** Management token of benchmark APIs. */
export const BENCH_TOKEN = "bench-management-token-0123456789";

/** A running benchmark API. */
export interface BenchApi {
  url: string;
  services: Services;
  db: AppDeps["db"];
  /** POSTs JSON with the management token; rejects on a non-2xx answer. @returns the parsed body. */
  post(path: string, body: unknown): Promise<any>;
  close(): void;
}

/**
 * Starts an API with `env` configuration and `deps` overrides (e.g. a sandbox client), on a temp
 * embedded database, or on the libSQL server at `libsqlUrl` (already migrated or not).
 */
export async function startBenchApi(
  env: Record<string, string> = {},
  deps: Partial<AppDeps> = {},
  libsqlUrl?: string,
): Promise<BenchApi> {
  const dir = mkdtempSync(join(tmpdir(), "skillgate-bench-"));
  const client = libsqlUrl
    ? createClient({ url: libsqlUrl })
    : await openEmbeddedDatabase(`file:${join(dir, "bench.db")}`);
  const db = createDb(client);
  await applyMigrations(db);
  const { app, services } = createApp({
    db,
    cache: new MemoryCache(),
    config: parseConfig({ MGMT_TOKEN: BENCH_TOKEN, ...env }),
    // As the Node entry does (createNodeDeps).
    upstreamFetch: createNodeUpstreamFetch(),
    outbound: createNodeOutbound(),
    runtime: "node",
    ...deps,
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((r) => server.once("listening", () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    services,
    db,
    async post(path, body) {
      const res = await fetch(url + path, {
        method: "POST",
        headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    },
    close() {
      server.close();
      // Buffered observations are written first, as the Node server does when it stops.
      void Promise.all([services.tokenUsage.settled(), services.routing.settled()]).finally(() => {
        client.close();
        rmSync(dir, { recursive: true, force: true });
      });
    },
  };
}
