/**
 * The registry cache on the `SKILLS_KV` binding inside workerd
 * (docs/architecture.md#the-registry-cache): a read stores the snapshot in KV, a write drops it
 * (the writing isolate applies the write to its snapshot in memory), another isolate's app
 * reuses the KV snapshot until it is invalidated; and KvCache's own semantics (memory layer in
 * front of KV, KV's 60 s minimum TTL) against the real KV binding.
 */

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { KV_MIN_TTL_S, KvCache } from "../../workers/src/cache/kv-cache.js";
import worker from "../../workers/src/runtime/worker/index.js";
import { buildRequest, call, directDb, installBody, readJson } from "./support.js";

/** Registry keys currently in KV (the registry owns the `registry:` prefix). */
async function registryKeys() {
  return (await env.SKILLS_KV.list({ prefix: "registry:" })).keys;
}

/** Skill names in the registry snapshot stored in KV, or null when none is stored. */
async function kvSnapshotNames(): Promise<string[] | null> {
  const keys = await registryKeys();
  if (keys.length === 0) return null;
  expect(keys).toHaveLength(1);
  const rows = (await env.SKILLS_KV.get(keys[0]!.name, "json")) as { name: string }[] | null;
  return rows ? rows.map((r) => r.name) : null;
}

/** A request through a fresh bindings object: a fresh app, as in another isolate (cold memory). */
async function otherIsolate(path: string, method = "GET") {
  const ctx = createExecutionContext();
  const res = await worker.fetch(buildRequest(method, path), { ...env } as never, ctx);
  await waitOnExecutionContext(ctx);
  return readJson(res);
}

describe("registry snapshot in Workers KV", () => {
  it("stores the snapshot in SKILLS_KV on a read and drops it on a write", async () => {
    // A cold registry on this isolate (an earlier test may have left a snapshot in memory, to
    // which a write would be applied without a load).
    expect((await call("POST", "/api/skills/cache/invalidate")).status).toBe(200);
    // Names no other test matches with `q=kvstore-` (the database is shared by the project).
    await call("POST", "/api/skills/install", { body: installBody("kvstore-first") });
    const before = Math.floor(Date.now() / 1000);
    const list = await call("GET", "/api/skills?q=kvstore-");
    expect(list.body.data.map((s: { name: string }) => s.name)).toEqual(["kvstore-first"]);
    expect(await kvSnapshotNames()).toContain("kvstore-first");
    const [entry] = await registryKeys();
    // The registry's 60 s TTL, which is also KV's minimum.
    expect(entry!.expiration! - before).toBeGreaterThanOrEqual(KV_MIN_TTL_S);
    expect(entry!.expiration! - before).toBeLessThanOrEqual(KV_MIN_TTL_S + 5);

    const second = await call("POST", "/api/skills/install", {
      body: installBody("kvstore-second"),
    });
    expect(second.status).toBe(201);
    expect(await kvSnapshotNames()).toBeNull();

    // The writing isolate serves the write from memory at once; another isolate loads it from
    // the database and stores that snapshot in KV.
    const again = await call("GET", "/api/skills?q=kvstore-");
    expect(again.body.total).toBe(2);
    expect(await kvSnapshotNames()).toBeNull();
    const elsewhere = await otherIsolate("/api/skills?q=kvstore-");
    expect(elsewhere.body.total).toBe(2);
    expect(await kvSnapshotNames()).toEqual(
      expect.arrayContaining(["kvstore-first", "kvstore-second"]),
    );

    const installed = await call("GET", "/api/skills?q=kvstore-second");
    const del = await call("DELETE", `/api/skills/${installed.body.data[0].id}`);
    expect(del.status).toBe(204);
    expect(await kvSnapshotNames()).toBeNull();
  });

  it("shows a write at once on its instance even when another isolate's older load lands in KV later", async () => {
    await otherIsolate("/api/skills?q=kv-race");
    const [key] = await registryKeys();
    const olderSnapshot = await env.SKILLS_KV.get(key!.name);
    expect(olderSnapshot).not.toBeNull();

    const installed = await call("POST", "/api/skills/install", { body: installBody("kv-race") });
    expect(installed.status).toBe(201);
    // Another isolate loaded before the write and stores its (older) snapshot after it.
    await env.SKILLS_KV.put(key!.name, olderSnapshot!, { expirationTtl: 60 });

    const list = await call("GET", "/api/skills?q=kv-race");
    expect(list.body.data.map((s: { name: string }) => s.name)).toEqual(["kv-race"]);
    const run = await call("POST", "/api/skills/executions", {
      body: { skillName: "kv-race", input: { text: "seen" } },
    });
    expect(run.body.execution?.output).toEqual({ text: "seen" });
  });

  it("lets another isolate reuse the KV snapshot until the management endpoint invalidates it", async () => {
    await call("POST", "/api/skills/install", { body: installBody("kv-shared") });
    await otherIsolate("/api/skills?q=kv-shared");
    expect(await kvSnapshotNames()).toContain("kv-shared");

    // A row written behind the API's back (as after a manual database edit).
    const now = Date.now();
    await directDb().execute({
      sql: `insert into skills (id, name, version, description, schema, handler_code, created_at, updated_at)
            values (?, ?, '1.0.0', 'edited by hand', ?, 'echo-handler', ?, ?)`,
      args: [
        crypto.randomUUID(),
        "kv-hand-edit",
        JSON.stringify({ input: { type: "object" } }),
        now,
        now,
      ],
    });

    // Each request below is a fresh app: cold memory, warm KV.
    const stale = await otherIsolate("/api/skills?q=kv-hand-edit");
    expect(stale.body.total).toBe(0);

    const invalidated = await otherIsolate("/api/skills/cache/invalidate", "POST");
    expect(invalidated.body).toEqual({ invalidated: true });
    expect(await kvSnapshotNames()).toBeNull();
    const fresh = await otherIsolate("/api/skills?q=kv-hand-edit");
    expect(fresh.body.total).toBe(1);
    expect(fresh.body.data[0].description).toBe("edited by hand");
  });
});

describe("KvCache over the SKILLS_KV binding", () => {
  it("raises a TTL below KV's 60 s minimum, which KV itself rejects", async () => {
    await expect(env.SKILLS_KV.put("kvc:raw", "1", { expirationTtl: 5 })).rejects.toThrow();
    const cache = new KvCache(env.SKILLS_KV);
    const before = Math.floor(Date.now() / 1000);
    await cache.put("kvc:short", { n: 1 }, 5);
    const [entry] = (await env.SKILLS_KV.list({ prefix: "kvc:short" })).keys;
    expect(entry!.expiration! - before).toBeGreaterThanOrEqual(KV_MIN_TTL_S);
    expect(await env.SKILLS_KV.get("kvc:short", "json")).toEqual({ n: 1 });
  });

  it("answers from the isolate's memory first and falls back to KV when that copy expires", async () => {
    const clock = { t: 1_000_000 };
    const cache = new KvCache(env.SKILLS_KV, 60, () => clock.t);
    await cache.put("kvc:layered", { v: "first" }, 300);
    // Another isolate changes KV; this isolate keeps its memory copy for at most 60 s.
    await env.SKILLS_KV.put("kvc:layered", JSON.stringify({ v: "second" }), { expirationTtl: 300 });
    expect(await cache.get("kvc:layered")).toEqual({ v: "first" });
    clock.t += 59_000;
    expect(await cache.get("kvc:layered")).toEqual({ v: "first" });
    clock.t += 2_000;
    expect(await cache.get("kvc:layered")).toEqual({ v: "second" });

    // A read from KV fills memory again.
    await env.SKILLS_KV.delete("kvc:layered");
    expect(await cache.get("kvc:layered")).toEqual({ v: "second" });
    const elsewhere = new KvCache(env.SKILLS_KV);
    expect(await elsewhere.get("kvc:layered")).toBeUndefined();
  });

  it("keeps a memory copy no longer than a short TTL and deletes from both layers", async () => {
    const clock = { t: 5_000_000 };
    const cache = new KvCache(env.SKILLS_KV, 60, () => clock.t);
    await cache.put("kvc:brief", [1, 2, 3], 10);
    await env.SKILLS_KV.put("kvc:brief", JSON.stringify([4]), { expirationTtl: 60 });
    clock.t += 11_000;
    expect(await cache.get("kvc:brief")).toEqual([4]);

    await cache.delete("kvc:brief");
    expect(await cache.get("kvc:brief")).toBeUndefined();
    expect(await env.SKILLS_KV.get("kvc:brief")).toBeNull();
  });
});
