/**
 * The injection index in Workers KV (docs/scoring.md#keeping-the-index-current): the isolate that
 * builds or updates an index stores its scoring core in `SKILLS_KV`; a cold isolate loads it from
 * there instead of building it, and injects the same skills; a write updates the index in place
 * and the stored core with it.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../workers/src/runtime/worker/index.js";
import { appFor, type WorkerEnv } from "../../workers/src/runtime/worker/worker-app.js";
import { INDEX_CACHE_KEY } from "../../workers/src/skills/injection/injection-store.js";
import { buildRequest, installBody, readJson } from "./support.js";

/** Sends a request to the app of `bindings` (a fresh bindings object is a fresh isolate's app). */
async function send(bindings: WorkerEnv, method: string, path: string, body?: unknown) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(buildRequest(method, path, { body }), bindings, ctx);
  await waitOnExecutionContext(ctx);
  return readJson(res);
}

const inject = (bindings: WorkerEnv, text: string) =>
  send(bindings, "POST", "/api/skills/inject", {
    format: "openai-chat",
    request: { model: "gpt-4.1", messages: [{ role: "user", content: text }] },
  });

describe("injection index in SKILLS_KV", () => {
  it("a cold isolate loads the stored core instead of building it, and a write updates it", async () => {
    const first = { ...env } as unknown as WorkerEnv;
    const installed = await send(first, "POST", "/api/skills/install", {
      ...installBody("kvIndexForecast"),
      description: "Weather forecast for a city",
      mode: "auto",
      tags: ["forecast"],
    });
    expect(installed.status).toBe(201);
    const one = await inject(first, "what is the forecast for kvIndexForecast in Rome");
    expect(one.body.injected.map((t: { name: string }) => t.name)).toContain("kvIndexForecast");
    const stats = appFor(first).services.indexes.stats;
    expect(stats.stored).toBeGreaterThanOrEqual(1);
    const stored = await env.SKILLS_KV.get(INDEX_CACHE_KEY, "arrayBuffer");
    expect(stored?.byteLength).toBeGreaterThan(0);

    const cold = { ...env } as unknown as WorkerEnv;
    const two = await inject(cold, "what is the forecast for kvIndexForecast in Rome");
    expect(two.body.injected).toEqual(one.body.injected);
    expect(appFor(cold).services.indexes.stats).toMatchObject({ loaded: 1, built: 0 });

    // A write on this isolate derives its index and stores the new core.
    const second = await send(cold, "POST", "/api/skills/install", {
      ...installBody("kvIndexTides"),
      description: "Tide tables for a harbour",
      mode: "auto",
      tags: ["tides"],
    });
    expect(second.status).toBe(201);
    const afterWrite = appFor(cold).services.indexes.stats;
    expect(afterWrite).toMatchObject({ derived: 1, built: 0 });
    expect(afterWrite.stored).toBe(1);
    const three = await inject(cold, "tides in the harbour, kvIndexTides please");
    expect(three.body.injected.map((t: { name: string }) => t.name)).toContain("kvIndexTides");

    const colder = { ...env } as unknown as WorkerEnv;
    const four = await inject(colder, "tides in the harbour, kvIndexTides please");
    expect(four.body.injected).toEqual(three.body.injected);
    expect(appFor(colder).services.indexes.stats).toMatchObject({ loaded: 1, built: 0 });
  });
});
