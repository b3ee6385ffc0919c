/**
 * The health service (`GET /api/health`, docs/api.md#health): anonymous callers learn only the
 * status (`down` when the database cannot be reached, `degraded` when its disk is full or a
 * configured sandbox host is unreachable, has no Docker engine or lacks an image); management
 * also gets the runtime, the registry size, the registered handlers, the sandbox host's state
 * (with several hosts, each host's) and one reason per failing component.
 */
import type { SandboxHealth } from "@skillgate/sandbox-protocol";
import { describeDatabaseError } from "../database-error.js";
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

/**
 * How long a sandbox host that could not be reached is not asked again: health answers the
 * remembered failure meanwhile, so a burst of health checks does not wait on a dead host each
 * time (docs/api.md#health).
 */
export const SANDBOX_FAILURE_MEMORY_MS = 3_000;

/**
 * Why one sandbox host's own health answer is not healthy (docs/api.md#health): the engine does not
 * answer, or an image of `images` is missing from the engine (`imagesPresent` false).
 * @returns one reason per problem; empty when the host is fine.
 */
export function sandboxProblems(h: SandboxHealth): string[] {
  const reasons: string[] = [];
  if (!h.docker) reasons.push("the sandbox host's Docker engine does not answer");
  for (const [kind, present] of Object.entries(h.imagesPresent ?? {})) {
    if (present !== false) continue;
    const image = (h.images as Record<string, string | undefined>)[kind];
    reasons.push(`sandbox image for ${kind} is missing${image ? `: ${image}` : ""}`);
  }
  if (reasons.length === 0 && h.ok === false) reasons.push("the sandbox host reports not ok");
  return reasons;
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
      dbError = describeDatabaseError(err);
    }
    const disk = dbError === undefined ? await this.writable() : { writable: false };
    if (!detailed) {
      if (dbError !== undefined) return { status: "down" };
      if (!disk.writable) return { status: "degraded" };
      return { status: (await this.sandboxState()).ok ? "ok" : "degraded" };
    }
    const reasons: { component: string; reason: string }[] = [];
    if (dbError !== undefined) reasons.push({ component: "database", reason: dbError });
    else if (!disk.writable && disk.error)
      reasons.push({ component: "database", reason: disk.error });
    const details: Record<string, unknown> = {
      runtime: this.opts.runtime ?? "unknown",
      database:
        dbError !== undefined
          ? { ok: false, writable: false, error: dbError }
          : { ok: disk.writable, ...disk },
      registry: await this.opts.registry.snapshot().then(
        (snap) => ({ skills: snap.skills.length }),
        (err: unknown) => {
          const error = describeDatabaseError(err);
          reasons.push({ component: "registry", reason: error });
          return { error };
        },
      ),
      handlers: this.opts.executor.handlerNames(),
    };
    const sandbox = await this.sandboxState();
    details.sandbox = sandbox.details;
    for (const reason of sandbox.reasons) reasons.push({ component: "sandbox", reason });
    const status =
      dbError === undefined &&
      disk.writable &&
      sandbox.ok &&
      !("error" in (details.registry as object))
        ? "ok"
        : "degraded";
    if (reasons.length > 0) details.reasons = reasons;
    return { status, details };
  }

  private sandboxMemo: { at: number; state: SandboxState } | null = null;

  /**
   * The sandbox component: not configured (fine: code and shell skills then fail with
   * `sandbox_unavailable`, reported as `configured: false` without any call), or each host's
   * answer judged by {@link sandboxProblems}. A failed probe is remembered for
   * {@link SANDBOX_FAILURE_MEMORY_MS}.
   */
  private async sandboxState(): Promise<SandboxState> {
    const sandbox = this.opts.sandbox;
    if (!sandbox) return { ok: true, reasons: [], details: { ok: true, configured: false } };
    const now = (this.opts.clock ?? Date.now)();
    const memo = this.sandboxMemo;
    if (memo && now - memo.at < SANDBOX_FAILURE_MEMORY_MS) return memo.state;
    let state: SandboxState;
    try {
      if (isMultiHost(sandbox)) {
        // Several hosts (docs/sandbox.md#several-hosts): each with its state; up when any is.
        const hosts = await sandbox.hosts();
        const reasons: string[] = [];
        let usable = 0;
        for (const h of hosts) {
          const problems =
            h.state !== "up"
              ? [`sandbox host ${h.url} is ${h.state}`]
              : h.health
                ? sandboxProblems(h.health)
                : [];
          if (problems.length === 0) usable++;
          reasons.push(...problems.map((p) => (p.includes(h.url) ? p : `${h.url}: ${p}`)));
        }
        // The component serves while one host does; any host's problem still degrades health.
        state = {
          ok: reasons.length === 0,
          reasons,
          details: { ok: usable > 0, hosts, ...(reasons.length ? { reasons } : {}) },
        };
      } else {
        const health = await sandbox.health();
        const reasons = sandboxProblems(health);
        state = {
          ok: reasons.length === 0,
          reasons,
          details: { ...health, ok: reasons.length === 0, ...(reasons.length ? { reasons } : {}) },
        };
      }
    } catch (err) {
      const reason = `the sandbox host cannot be reached: ${(err as Error).message}`;
      state = {
        ok: false,
        reasons: [reason],
        details: { ok: false, error: (err as Error).message },
      };
    }
    // Several hosts keep their own back-off per host (docs/sandbox.md#several-hosts).
    this.sandboxMemo = state.ok || isMultiHost(sandbox) ? null : { at: now, state };
    return state;
  }
}

/** The sandbox component of a health report. */
interface SandboxState {
  ok: boolean;
  reasons: string[];
  details: Record<string, unknown>;
}
