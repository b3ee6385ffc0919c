import type { Client } from "@libsql/client";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { DrizzleSkillRepository } from "../../workers/src/db/repositories/skills.js";
import { SkillRegistry } from "../../workers/src/skills/registry/registry.js";
import type { SkillRecord } from "../../workers/src/skills/registry/skill-repository.js";
import { openDb } from "../support/app.js";

const builtins = [
  {
    name: "web_search",
    description: "Search the web",
    inputSchema: { type: "object" },
    policy: "auto" as const,
    mode: "auto" as const,
    tags: ["search"],
    aliases: ["omniroute_web_search"],
  },
];

let client: Client | undefined;
afterEach(() => client?.close());

async function setup(now: { t: number }) {
  const opened = await openDb(":memory:");
  client = opened.client;
  let selects = 0;
  const registry = new SkillRegistry({
    repository: new DrizzleSkillRepository(opened.db),
    cache: new MemoryCache(() => now.t),
    builtins,
    clock: () => now.t,
  });
  // Count database loads through the libSQL client.
  const original = opened.client.execute.bind(opened.client);
  opened.client.execute = ((stmt: any, args?: any) => {
    const sql = typeof stmt === "string" ? stmt : stmt.sql;
    if (/^select .* from "skills"$/i.test(sql.trim())) selects++;
    return original(stmt, args);
  }) as typeof opened.client.execute;
  return { registry, db: opened.db, client: opened.client, selects: () => selects };
}

const row = (name: string, version: string, now: number): SkillRecord => ({
  id: `${name}-${version}`,
  name,
  version,
  description: "",
  schema: { input: { type: "object" } },
  handlerCode: "echo-handler",
  handler: null,
  handlerSecret: null,
  instructions: null,
  enabled: true,
  mode: "on",
  policy: "auto",
  sourceProvider: "local",
  sourceRef: null,
  tags: [],
  installCount: 0,
  timeoutMs: null,
  autoUpgrade: null,
  apiKeyId: null,
  createdAt: now,
  updatedAt: now,
});

/** The version of `name` that `constraint` resolves to for global callers, through the registry. */
async function resolved(registry: SkillRegistry, name: string, constraint: string) {
  return (await registry.snapshot()).resolve(name, constraint, null)?.version ?? null;
}

describe("registry cache", () => {
  it("seeds builtins and reserves their names and aliases", async () => {
    const { registry } = await setup({ t: 1_000 });
    const snap = await registry.snapshot();
    expect(snap.resolve("web_search", null, null)?.sourceProvider).toBe("builtin");
    expect(registry.isReservedName("omniroute_web_search")).toBe(true);
  });

  it("de-duplicates concurrent cold loads into one query", async () => {
    const now = { t: 1_000 };
    const { registry, selects } = await setup(now);
    const snaps = await Promise.all(Array.from({ length: 10 }, () => registry.snapshot()));
    expect(new Set(snaps).size).toBe(1);
    expect(selects()).toBe(1);
  });

  it("serves from memory within 60 s, reloads after, and every write invalidates", async () => {
    const now = { t: 1_000 };
    const { registry, selects } = await setup(now);
    await registry.snapshot();
    now.t += 59_000;
    await registry.snapshot();
    expect(selects()).toBe(1);
    now.t += 2_000;
    await registry.snapshot();
    expect(selects()).toBe(2);

    await registry.insert(row("fmt", "1.0.0", now.t));
    expect((await registry.snapshot()).resolve("fmt", null, null)?.version).toBe("1.0.0");
    await registry.insert(row("fmt", "2.0.0", now.t));
    const versions = (await registry.snapshot()).visibleVersions("fmt", null);
    expect(versions.map((s) => s.version)).toEqual(["2.0.0", "1.0.0"]);
    await registry.remove("fmt-2.0.0");
    expect(await resolved(registry, "fmt", ">=1.0.0")).toBe("1.0.0");
  });

  it("through the registry: every constraint form resolves to the highest match", async () => {
    const { registry } = await setup({ t: 1_000 });
    for (const v of ["1.0.0", "1.2.0", "2.0.0"]) await registry.insert(row("fmt", v, 1_000));
    expect(await resolved(registry, "fmt", ">=1.1.0")).toBe("2.0.0");
    expect(await resolved(registry, "fmt", "<2.0.0")).toBe("1.2.0");
    expect(await resolved(registry, "fmt", "==1.0.0")).toBe("1.0.0");
    expect(await resolved(registry, "fmt", "^1.0.0")).toBe("1.2.0");
    expect(await resolved(registry, "fmt", "~1.0.0")).toBe("1.0.0");
    expect(await resolved(registry, "fmt", "3.0.0")).toBeNull();
  });

  it("sees a hand edit only after invalidateCache()", async () => {
    const now = { t: 1_000 };
    const { registry, client: raw } = await setup(now);
    await registry.snapshot();
    await raw.execute({
      sql: "insert into skills (id, name, version, schema, handler_code, created_at, updated_at) values ('h', 'hand', '1.0.0', '{}', 'echo-handler', 1, 1)",
      args: [],
    });
    expect((await registry.snapshot()).resolve("hand", null, null)).toBeUndefined();
    await registry.invalidateCache();
    expect((await registry.snapshot()).resolve("hand", null, null)?.id).toBe("h");
  });

  it("applies a write to the snapshot in memory: no reload, unchanged skills keep their objects", async () => {
    const now = { t: 1_000 };
    const { registry, selects } = await setup(now);
    await registry.insert(row("alpha", "1.0.0", now.t));
    const before = await registry.snapshot();
    const loads = selects();
    const alpha = before.resolve("alpha", null, null)!;
    const beta = await registry.insert(row("beta", "1.0.0", now.t));
    const after = await registry.snapshot();
    expect(selects()).toBe(loads);
    expect(after).not.toBe(before);
    expect(after.change).toMatchObject({ upserted: [beta], replaced: [] });
    expect(after.change?.from.generation).toBe(before.generation);
    expect(after.change?.from.skills).toBe(before.skills);
    expect(after.resolve("alpha", null, null)).toBe(alpha);
    expect(after.getById(beta.id)).toBe(beta);
    expect(before.getById(beta.id)).toBeUndefined();

    const disabled = await registry.update(alpha.id, { enabled: false, mode: "off" });
    const third = await registry.snapshot();
    expect(third.change?.replaced).toEqual([alpha]);
    expect(third.getById(alpha.id)).toBe(disabled);
    await registry.remove(beta.id);
    expect((await registry.snapshot()).getById(beta.id)).toBeUndefined();
    expect(selects()).toBe(loads);
  });

  it("a reload keeps the snapshot when nothing changed and derives one from the rows that did", async () => {
    const now = { t: 1_000 };
    const { registry, client: raw } = await setup(now);
    await registry.insert(row("gamma", "1.0.0", now.t));
    await registry.insert(row("delta", "1.0.0", now.t));
    const first = await registry.snapshot();
    now.t += 61_000;
    const same = await registry.snapshot();
    expect(same).toBe(first);
    await raw.execute("update skills set description = 'edited by hand' where name = 'delta'");
    now.t += 61_000;
    const reloaded = await registry.snapshot();
    expect(reloaded).not.toBe(first);
    expect(reloaded.change?.upserted.map((s) => s.description)).toEqual(["edited by hand"]);
    expect(reloaded.resolve("gamma", null, null)).toBe(first.resolve("gamma", null, null));
    expect(reloaded.resolve("delta", null, null)?.description).toBe("edited by hand");
  });
});
