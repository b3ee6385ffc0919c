/**
 * Registry benchmark (docs/architecture.md#the-registry-cache): median latency of `GET /api/skills` over real HTTP and of a
 * registry resolve, with 1,000 registered skills, cache warm and cold, each beside a bare Hono
 * route served the same way in the same run. Run: `npx tsx bench/registry.ts` (or `npm run bench`).
 */

import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { skills } from "../workers/src/db/schema.js";
import { BENCH_TOKEN, startBenchApi } from "./api.js";
import { fmt, interleave, median, row } from "./stats.js";

async function listen(
  fetchFn: (req: Request) => Response | Promise<Response>,
): Promise<{ url: string; close(): void }> {
  const server = serve({ fetch: fetchFn, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((r) => server.once("listening", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

/** Runs the registry benchmark and prints its table. @returns the medians in ms. */
export async function runRegistryBench(count = 1_000): Promise<Record<string, number>> {
  const api = await startBenchApi();
  const { db, services } = api;
  const now = Date.now();
  const rows = Array.from({ length: count }, (_, i) => ({
    id: `skill-${i}`,
    name: `skill-${String(i).padStart(4, "0")}`,
    version: `1.${i % 7}.0`,
    description: `Benchmark skill number ${i} that formats, searches and converts text`,
    schema: JSON.stringify({ input: { type: "object", properties: { q: { type: "string" } } } }),
    handlerCode: "echo-handler",
    mode: (i % 3 === 0 ? "on" : "auto") as "on" | "auto",
    tags: JSON.stringify(["bench", `t${i % 20}`]),
    createdAt: now,
    updatedAt: now,
  }));
  for (let i = 0; i < rows.length; i += 200) await db.insert(skills).values(rows.slice(i, i + 200));
  await services.registry.invalidateCache();

  const bare = new Hono();
  bare.get("/bare", (c) => c.json({ ok: true, data: [] }));
  const ref = await listen(bare.fetch);
  const headers = { authorization: `Bearer ${BENCH_TOKEN}` };
  const get = async (url: string) => {
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
  };

  // Warm up both servers and the registry.
  for (let i = 0; i < 200; i++) {
    await get(`${api.url}/api/skills`);
    await get(`${ref.url}/bare`);
  }
  const http = await interleave(
    {
      bare: () => get(`${ref.url}/bare`),
      warm: () => get(`${api.url}/api/skills`),
      cold: async () => {
        await services.registry.invalidateCache();
        await get(`${api.url}/api/skills`);
      },
    },
    10,
    50,
  );
  const names = rows.map((r) => r.name);
  const inProcess = await interleave(
    {
      bareRoute: async () => (await bare.request("/bare")).arrayBuffer(),
      resolveWarm: (i) =>
        services.registry
          .snapshot()
          .then((s) => s.resolve(names[i % names.length]!, "^1.0.0", null)),
      resolveCold: async (i) => {
        await services.registry.invalidateCache();
        (await services.registry.snapshot()).resolve(names[i % names.length]!, "^1.0.0", null);
      },
    },
    10,
    200,
  );
  api.close();
  ref.close();

  const m = {
    httpBare: median(http.bare!),
    httpWarm: median(http.warm!),
    httpCold: median(http.cold!),
    bareRouteInProcess: median(inProcess.bareRoute!),
    resolveWarm: median(inProcess.resolveWarm!),
    resolveCold: median(inProcess.resolveCold!),
  };
  console.log(`\nRegistry (${count} skills, embedded libSQL file, medians)`);
  row(
    "GET /api/skills over HTTP, cache warm",
    fmt(m.httpWarm),
    `${(m.httpWarm / m.httpBare).toFixed(2)}× bare`,
  );
  row(
    "GET /api/skills over HTTP, cache cold",
    fmt(m.httpCold),
    `${(m.httpCold / m.httpBare).toFixed(2)}× bare`,
  );
  row("bare Hono route over HTTP (same server)", fmt(m.httpBare), "1.00× bare");
  row(
    "resolve name@^1.0.0, cache warm",
    fmt(m.resolveWarm),
    `${(m.resolveWarm / m.bareRouteInProcess).toFixed(2)}× bare`,
  );
  row(
    "resolve name@^1.0.0, cache cold (DB load)",
    fmt(m.resolveCold),
    `${(m.resolveCold / m.bareRouteInProcess).toFixed(2)}× bare`,
  );
  row("bare Hono route in process (app.request)", fmt(m.bareRouteInProcess), "1.00× bare");
  row("targets", "warm GET ≤ 2× bare", "warm resolve < 50 µs");
  return m;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runRegistryBench().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
