/**
 * The health service (`GET /api/health`, docs/api.md): anonymous callers learn only whether the
 * API can reach its database; management also gets the runtime, the registry size, the
 * registered handlers and the sandbox host's state (with several hosts, each host's).
 */
import type { SandboxClient } from "../sandbox/client.js";
import { isMultiHost } from "../sandbox/multi-host.js";
import type { Executor } from "../skills/execution/executor.js";
import type { SkillRegistry } from "../skills/registry/registry.js";

/** Checks that the database answers. */
export interface DatabaseProbe {
  /** @throws the driver's error when the database cannot be reached. */
  ping(): Promise<void>;
}

/**
 * Free space of the disk that holds the database (the embedded file on Node; absent for a
 * database served over HTTP, whose disk the API cannot see).
 */
export interface StorageProbe {
  /** @returns free bytes available to the process. @throws when the disk cannot be asked. */
  freeBytes(): Promise<number>;
}

/** A health report: `down` only when the database is unreachable (answered with 503). */
export type HealthReport =
  | { status: "down" }
  | { status: "ok" | "degraded"; details?: Record<string, unknown> };

/** What the health service is built from. */
export interface HealthServiceOptions {
  database: DatabaseProbe;
  registry: SkillRegistry;
  executor: Executor;
  /** Absent when no sandbox host is configured. */
  sandbox?: SandboxClient;
  runtime?: "node" | "workerd";
  /** The database's disk (docs/execution.md#a-full-disk); absent: judged from write failures. */
  storage?: StorageProbe;
  /** Below this many free bytes the database counts as not writable (`DATABASE_MIN_FREE_BYTES`). */
  minFreeBytes?: number;
  clock?: () => number;
}

/** How long a write refused for a full disk marks the database not writable, without a probe. */
const FULL_MEMORY_MS = 30_000;

/** Reports the API's health. */
export class HealthService {
  private fullAt: number | null = null;

  constructor(private readonly opts: HealthServiceOptions) {}

  /**
   * Records that a write was refused because the database's disk is full (the app's error
   * handler calls it); without a storage probe, health reports the database not writable for 30 s
   * after it.
   */
  noteStorageFull(): void {
    this.fullAt = (this.opts.clock ?? Date.now)();
  }

  /** Whether writes can land: from the disk's free space, else from a recent refused write. */
  private async writable(): Promise<{ writable: boolean; freeBytes?: number; error?: string }> {
    const { storage } = this.opts;
    const min = this.opts.minFreeBytes ?? 0;
    if (storage) {
      try {
        const freeBytes = await storage.freeBytes();
        if (freeBytes < min) {
          return {
            writable: false,
            freeBytes,
            error: `the database's disk is full: ${freeBytes} bytes free, under the ${min} bytes writes need (DATABASE_MIN_FREE_BYTES)`,
          };
        }
        return { writable: true, freeBytes };
      } catch {
        // The disk cannot be asked: fall back to what writes have shown.
      }
    }
    const now = (this.opts.clock ?? Date.now)();
    if (this.fullAt !== null && now - this.fullAt < FULL_MEMORY_MS)
      return { writable: false, error: "a write was refused: the database's disk is full" };
    return { writable: true };
  }

  /**
   * @param detailed true for management: every check, with errors; false: only the status.
   * @returns `down` (database unreachable, anonymous view only), `ok`, or `degraded` (a check
   *   failed, e.g. the database's disk is full: docs/execution.md#a-full-disk) with details.
   */
  async check(detailed: boolean): Promise<HealthReport> {
    let dbError: string | undefined;
    try {
      await this.opts.database.ping();
    } catch (err) {
      dbError = (err as Error).message;
    }
    const disk = dbError === undefined ? await this.writable() : { writable: false };
    if (!detailed) {
      if (dbError !== undefined) return { status: "down" };
      return { status: disk.writable ? "ok" : "degraded" };
    }
    const details: Record<string, unknown> = {
      runtime: this.opts.runtime ?? "unknown",
      database:
        dbError !== undefined
          ? { ok: false, writable: false, error: dbError }
          : { ok: disk.writable, ...disk },
      registry: await this.opts.registry.snapshot().then(
        (snap) => ({ skills: snap.skills.length }),
        (err: Error) => ({ error: err.message }),
      ),
      handlers: this.opts.executor.handlerNames(),
    };
    let sandboxOk = true;
    if (this.opts.sandbox) {
      try {
        const sandbox = this.opts.sandbox;
        if (isMultiHost(sandbox)) {
          // Several hosts (docs/sandbox.md#several-hosts): each with its state; up when any is.
          const hosts = await sandbox.hosts();
          sandboxOk = hosts.some((h) => h.state === "up");
          details.sandbox = { ok: sandboxOk, hosts };
        } else details.sandbox = { ...(await sandbox.health()), ok: true };
      } catch (err) {
        sandboxOk = false;
        details.sandbox = { ok: false, error: (err as Error).message };
      }
    } else {
      details.sandbox = { ok: false, configured: false };
    }
    const status = dbError === undefined && disk.writable && sandboxOk ? "ok" : "degraded";
    return { status, details };
  }
}
