/** The per-key in-process memo (workers/src/services/key-memo.ts). */
import { describe, expect, it } from "vitest";
import { KeyMemo } from "../../workers/src/services/key-memo.js";

describe("KeyMemo", () => {
  it("keeps a read for its time to live, then reads again", async () => {
    let now = 1_000;
    let reads = 0;
    const memo = new KeyMemo<number>(100, 10, () => now);
    const load = async () => ++reads;
    expect(await memo.get("k", load)).toBe(1);
    now += 99;
    expect(await memo.get("k", load)).toBe(1);
    now += 1;
    expect(await memo.get("k", load)).toBe(2);
  });

  it("drops the oldest read past its size, and forgets a key or all at once", async () => {
    let reads = 0;
    const memo = new KeyMemo<string>(60_000, 2, () => 0);
    const load = (k: string) => async () => `${k}${++reads}`;
    await memo.get("a", load("a"));
    await memo.get("b", load("b"));
    await memo.get("c", load("c"));
    expect(await memo.get("b", load("b"))).toBe("b2");
    expect(await memo.get("a", load("a"))).toBe("a4");
    memo.forget("b");
    expect(await memo.get("b", load("b"))).toBe("b5");
    memo.set("c", "set");
    expect(await memo.get("c", load("c"))).toBe("set");
    memo.clear();
    expect(await memo.get("c", load("c"))).toBe("c6");
  });

  it("does not keep a load that a forget overtook", async () => {
    const memo = new KeyMemo<string>(60_000, 10, () => 0);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const pending = memo.get("k", async () => {
      await gate;
      return "old";
    });
    memo.forget("k");
    release();
    expect(await pending).toBe("old");
    expect(await memo.get("k", async () => "new")).toBe("new");
  });
});
