/**
 * Outcomes whose terminal write a full disk refused (docs/execution.md#a-full-disk): kept up to
 * their bound, written once to rows still `running`, oldest first, and kept while the disk is
 * still full.
 */
import { describe, expect, it } from "vitest";
import { DeferredFinishes } from "../../workers/src/skills/execution/deferred-finishes.js";
import type { ExecutionEnd } from "../../workers/src/skills/execution/execution-repository.js";
import type { Execution } from "../../workers/src/skills/types.js";

const end = (n: number): ExecutionEnd => ({
  status: "success",
  output: { n },
  durationMs: n,
  attempts: 1,
});

/** Rows by id; `full` makes every finish fail as SQLite does on a full disk. */
function store(rows: Record<string, Execution["status"]>) {
  const written: string[] = [];
  const state = { full: false };
  return {
    state,
    written,
    async get(id: string) {
      const status = rows[id];
      return status === undefined ? undefined : ({ id, status } as Execution);
    },
    async finish(id: string, e: ExecutionEnd) {
      if (state.full)
        throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
      rows[id] = e.status;
      written.push(id);
      return { id, status: e.status } as Execution;
    },
  };
}

describe("DeferredFinishes", () => {
  it("keeps at most max outcomes; the same row again replaces its outcome", () => {
    const d = new DeferredFinishes(2);
    expect([d.defer("a", end(1)), d.defer("b", end(2)), d.defer("c", end(3))]).toEqual([
      true,
      true,
      false,
    ]);
    expect(d.defer("a", end(4))).toBe(true);
    expect(d.size).toBe(2);
  });

  it("writes only rows still running, each once", async () => {
    const d = new DeferredFinishes();
    const s = store({ a: "running", b: "error", c: "running" });
    d.defer("a", end(1));
    d.defer("b", end(2));
    d.defer("c", end(3));
    d.defer("gone", end(4));
    expect(await d.flush(s)).toBe(2);
    expect(s.written).toEqual(["a", "c"]);
    expect(d.size).toBe(0);
    expect(await d.flush(s)).toBe(0);
  });

  it("keeps what the still-full disk refuses, and writes it later", async () => {
    const d = new DeferredFinishes();
    const s = store({ a: "running", b: "running" });
    d.defer("a", end(1));
    d.defer("b", end(2));
    s.state.full = true;
    expect(await d.flush(s)).toBe(0);
    expect(d.size).toBe(2);
    s.state.full = false;
    expect(await d.flush(s)).toBe(2);
    expect(s.written).toEqual(["a", "b"]);
  });

  it("joins a flush already running instead of writing twice", async () => {
    const d = new DeferredFinishes();
    const s = store({ a: "running" });
    d.defer("a", end(1));
    const [x, y] = await Promise.all([d.flush(s), d.flush(s)]);
    expect([x, y]).toEqual([1, 1]);
    expect(s.written).toEqual(["a"]);
  });
});
