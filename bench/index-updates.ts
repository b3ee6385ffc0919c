/**
 * Injection index upkeep (docs/scoring.md#keeping-the-index-current), each figure beside its
 * baseline in the same run, at 1,000 and 10,000 `auto` skills:
 * - the first inject after a one-skill write (an update of one skill's description, an added
 *   skill, a deleted skill): the snapshot derived and the index derived from the previous one,
 *   vs. the index rebuilt from scratch for the changed registry;
 * - a cold instance: the scoring core loaded from its serialised bytes (as from Workers KV) vs.
 *   built, and the size of those bytes;
 * - the same update through the registry on an embedded database: the write (which derives the
 *   index) and the first inject after it;
 * - the memory the index holds (JavaScript heap and typed-array buffers).
 * Run: `npx tsx bench/index-updates.ts` (or `npm run bench -- injection`, which includes it).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { MemoryCache } from "../workers/src/cache/memory-cache.js";
import { parseConfig } from "../workers/src/config.js";
import { createDb } from "../workers/src/db/client.js";
import { skills } from "../workers/src/db/schema.js";
import { openEmbeddedDatabase } from "../workers/src/runtime/node/embedded-db.js";
import { applyMigrations } from "../workers/src/runtime/node/migrate.js";
import { createServices } from "../workers/src/services/index.js";
import {
  getInjectionIndex,
  InjectionIndexCache,
} from "../workers/src/skills/injection/index-cache.js";
import { injectSkills } from "../workers/src/skills/injection/injection.js";
import { InjectionIndex } from "../workers/src/skills/injection/injection-index.js";
import { decodeCore, encodeCore } from "../workers/src/skills/injection/injection-serial.js";
import { RegistrySnapshot } from "../workers/src/skills/registry/snapshot.js";
import type { Skill } from "../workers/src/skills/types.js";
import { contextRequest, syntheticSkills } from "./injection-data.js";
import { fmt, median, row } from "./stats.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Bytes held by the JavaScript heap plus ArrayBuffers, after a full collection. */
function heldBytes(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Figures of one registry size (ms unless named otherwise). */
export interface IndexFigures {
  skills: number;
  derivedUpdate: number;
  derivedAdd: number;
  derivedDelete: number;
  rebuild: number;
  warmInject: number;
  coreBytes: number;
  load: number;
  build: number;
  memoryBytes: number;
}

function run(n: number, rounds: number): IndexFigures {
  const requests = Array.from({ length: 16 }, (_, i) => contextRequest("zipf", i + 1));
  const inject = (snapshot: RegistrySnapshot, i: number) =>
    injectSkills({
      format: "openai-chat",
      request: requests[i % requests.length]!,
      snapshot,
      apiKeyId: null,
    }).injected.length;

  // One registry's index cache, as its index store owns it.
  const indexCache = new InjectionIndexCache();
  let snapshot = new RegistrySnapshot(syntheticSkills(n, "zipf", 3), indexCache);
  // The index cache keeps the last few indexes: fill it with one-skill indexes first, so the
  // baseline no longer holds an earlier, larger one that the measured build would evict.
  for (let i = 0; i < 4; i++)
    inject(new RegistrySnapshot(syntheticSkills(1, "zipf", 100 + i), indexCache), 0);
  const withSnapshot = heldBytes();
  inject(snapshot, 0);
  const memoryBytes = heldBytes() - withSnapshot;

  const edit = (s: Skill, i: number): Skill => ({
    ...s,
    description: `${s.description} edited ${i}`,
    updatedAt: new Date(1_800_000_000_000 + i).toISOString(),
  });
  const samples: Record<string, number[]> = {
    update: [],
    add: [],
    delete: [],
    rebuild: [],
    warm: [],
  };
  let extra = 0;
  for (let r = 0; r < rounds; r++) {
    // One-skill write, then the first inject (what a request after the write pays).
    const target = snapshot.skills[(r * 7919) % snapshot.skills.length]!;
    let t = performance.now();
    snapshot = snapshot.apply([edit(target, r)], []);
    getInjectionIndex(snapshot);
    inject(snapshot, r);
    samples.update!.push(performance.now() - t);

    const added = { ...syntheticSkills(1, "zipf", 10_000 + r)[0]!, id: `added-${extra++}` };
    t = performance.now();
    snapshot = snapshot.apply([added], []);
    getInjectionIndex(snapshot);
    inject(snapshot, r + 1);
    samples.add!.push(performance.now() - t);

    t = performance.now();
    snapshot = snapshot.apply([], [added.id]);
    getInjectionIndex(snapshot);
    inject(snapshot, r + 2);
    samples.delete!.push(performance.now() - t);

    t = performance.now();
    inject(snapshot, r + 3);
    samples.warm!.push(performance.now() - t);

    // Baseline: the same registry after a write, its index rebuilt from scratch.
    if (r < Math.min(rounds, n > 5_000 ? 5 : 15)) {
      const changed = snapshot.skills.map((s, i) => (i === r ? edit(s, 1_000 + r) : s));
      t = performance.now();
      InjectionIndex.build({ generation: -1 - r, skills: changed });
      samples.rebuild!.push(performance.now() - t);
    }
  }

  // A cold instance: the serialised core of the current index, loaded vs. built.
  const index = getInjectionIndex(snapshot);
  const bytes = encodeCore(index.core);
  const loads: number[] = [];
  const builds: number[] = [];
  for (let r = 0; r < (n > 5_000 ? 5 : 15); r++) {
    const copy = bytes.slice();
    let t = performance.now();
    const core = decodeCore(copy);
    const loaded = InjectionIndex.build(
      { generation: -100 - r, skills: snapshot.skills },
      undefined,
      core,
    );
    loads.push(performance.now() - t);
    if (loaded.core !== core) throw new Error("the loaded core was not used");
    const changed = snapshot.skills.map((s, i) => (i === r ? edit(s, 5_000 + r) : s));
    t = performance.now();
    InjectionIndex.build({ generation: -200 - r, skills: changed });
    builds.push(performance.now() - t);
  }
  return {
    skills: n,
    derivedUpdate: median(samples.update!),
    derivedAdd: median(samples.add!),
    derivedDelete: median(samples.delete!),
    rebuild: median(samples.rebuild!),
    warmInject: median(samples.warm!),
    coreBytes: bytes.length,
    load: median(loads),
    build: median(builds),
    memoryBytes,
  };
}

/**
 * Through the registry on an embedded database: an update of one skill's description (the write,
 * which applies the change to the snapshot and derives the index), then the first inject.
 * @returns medians in ms.
 */
async function throughRegistry(
  n: number,
  rounds: number,
): Promise<{ write: number; inject: number }> {
  const dir = mkdtempSync(join(tmpdir(), "skillgate-bench-index-"));
  const client = await openEmbeddedDatabase(`file:${join(dir, "bench.db")}`);
  try {
    const db = createDb(client);
    await applyMigrations(db);
    const services = createServices(
      { db, cache: new MemoryCache(), config: parseConfig({}) },
      { builtins: [] },
    );
    const now = Date.now();
    const rows = syntheticSkills(n, "zipf", 5).map((s) => ({
      id: s.id,
      name: s.name,
      version: s.version,
      description: s.description,
      schema: JSON.stringify(s.schema),
      handlerCode: "echo-handler",
      mode: s.mode,
      tags: JSON.stringify(s.tags),
      installCount: s.installCount,
      createdAt: now,
      updatedAt: now,
    }));
    for (let i = 0; i < rows.length; i += 500)
      await db.insert(skills).values(rows.slice(i, i + 500));
    const request = contextRequest("zipf", 3);
    const inject = async () =>
      injectSkills({
        format: "openai-chat",
        request,
        snapshot: await services.registry.snapshot(),
        apiKeyId: null,
      }).injected.length;
    await inject();
    const writes: number[] = [];
    const injects: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const row = rows[(r * 7919) % rows.length]!;
      let t = performance.now();
      await services.registry.update(row.id, { description: `${row.description} edited ${r}` });
      writes.push(performance.now() - t);
      t = performance.now();
      await inject();
      injects.push(performance.now() - t);
    }
    if (services.indexes.stats.derived < rounds) throw new Error("the index was not derived");
    return { write: median(writes), inject: median(injects) };
  } finally {
    client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Runs the index-upkeep benchmark and prints its table. @returns the figures per size. */
export async function runIndexBench(): Promise<IndexFigures[]> {
  const figures = [run(1_000, 100), run(10_000, 60)];
  const registry = [await throughRegistry(1_000, 60), await throughRegistry(10_000, 60)];
  console.log("\nInjection index after a one-skill write (zipf text model; medians)");
  row("registered skills", "1,000", "10,000");
  const line = (label: string, pick: (f: IndexFigures) => string) =>
    row(label, ...figures.map(pick));
  line("first inject after an update (derived)", (f) => fmt(f.derivedUpdate));
  line("first inject after an add (derived)", (f) => fmt(f.derivedAdd));
  line("first inject after a delete (derived)", (f) => fmt(f.derivedDelete));
  line("index rebuilt from scratch (baseline)", (f) => fmt(f.rebuild));
  line("→ rebuild / derived update", (f) => `${(f.rebuild / f.derivedUpdate).toFixed(0)}×`);
  line("warm inject, same index", (f) => fmt(f.warmInject));
  row("through the registry, embedded libSQL:");
  row("  update (DB write, snapshot, index derived)", ...registry.map((r) => fmt(r.write)));
  row("  first inject after it", ...registry.map((r) => fmt(r.inject)));
  line("target", () => "≤ 5 ms at 10,000");
  console.log("\nCold instance: scoring core from the shared cache (serialised) vs. built");
  row("registered skills", "1,000", "10,000");
  line("load: decode + index from loaded core", (f) => fmt(f.load));
  line("build from scratch (baseline)", (f) => fmt(f.build));
  line("serialised core size", (f) => mb(f.coreBytes));
  console.log("\nMemory held by the injection index (heap + typed arrays)");
  line("index of a fresh build", (f) => mb(f.memoryBytes));
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runIndexBench().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
