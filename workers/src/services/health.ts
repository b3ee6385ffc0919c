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
}

/** Reports the API's health. */
export class HealthService {
  constructor(private readonly opts: HealthServiceOptions) {}

  /**
   * @param detailed true for management: every check, with errors; false: only `ok` or `down`.
   * @returns `down` (database unreachable, anonymous view only), `ok`, or `degraded` (a check
   *   failed) with details.
   */
  async check(detailed: boolean): Promise<HealthReport> {
    let dbError: string | undefined;
    try {
      await this.opts.database.ping();
    } catch (err) {
      dbError = (err as Error).message;
    }
    if (!detailed) return dbError === undefined ? { status: "ok" } : { status: "down" };
    const details: Record<string, unknown> = {
      runtime: this.opts.runtime ?? "unknown",
      database: dbError === undefined ? { ok: true } : { ok: false, error: dbError },
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
    const status = dbError === undefined && sandboxOk ? "ok" : "degraded";
    return { status, details };
  }
}
