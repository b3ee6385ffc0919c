/**
 * Terminal writes that the database refused because its disk was full (docs/execution.md#a-full-disk).
 * The run had ended, so its outcome is kept here, in process memory, and written again by
 * {@link DeferredFinishes.flush} once there is space: the row then says what really happened
 * (its output included) instead of staying `running` until the interrupted-run sweep ends it as
 * `interrupted`. Bounded: past {@link DeferredFinishes.max} outcomes, new ones are not kept, and
 * those rows are left to that sweep. A row that is no longer `running` when the flush comes (the
 * sweep, or another process, ended it) is left as it is: an execution is ended once.
 */
import { isStorageFull } from "../../errors.js";
import type { ExecutionEnd, ExecutionRepository } from "./execution-repository.js";

/** Outcomes kept by default. */
export const DEFAULT_DEFERRED_FINISHES = 1_000;

/** Outcomes waiting for space, by execution id. */
export class DeferredFinishes {
  private readonly pending = new Map<string, ExecutionEnd>();
  private flushing: Promise<number> | undefined;

  /** @param max most outcomes kept at once. */
  constructor(readonly max = DEFAULT_DEFERRED_FINISHES) {}

  /** Outcomes waiting. */
  get size(): number {
    return this.pending.size;
  }

  /** Keeps `end` for the row `id`. @returns false (nothing kept) when already holding `max`. */
  defer(id: string, end: ExecutionEnd): boolean {
    if (!this.pending.has(id) && this.pending.size >= this.max) return false;
    this.pending.set(id, end);
    return true;
  }

  /**
   * Writes the waiting outcomes, oldest first, each to a row that is still `running`; stops at the
   * first write the full disk refuses again (the rest wait for the next flush). One flush at a
   * time: a call while one runs joins it.
   * @returns the outcomes written.
   * @throws the store's errors other than a full disk (that outcome stays waiting).
   */
  flush(store: Pick<ExecutionRepository, "get" | "finish">): Promise<number> {
    if (this.pending.size === 0) return Promise.resolve(0);
    this.flushing ??= this.run(store).finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async run(store: Pick<ExecutionRepository, "get" | "finish">): Promise<number> {
    let written = 0;
    for (const [id, end] of [...this.pending]) {
      try {
        const row = await store.get(id);
        if (row?.status === "running") {
          await store.finish(id, end);
          written++;
        }
        this.pending.delete(id);
      } catch (err) {
        if (isStorageFull(err)) break;
        throw err;
      }
    }
    return written;
  }
}
