/**
 * Several sandbox hosts behind one {@link SandboxClient} (docs/sandbox.md#several-hosts). Each run
 * goes to the least-loaded healthy host, judged from the hosts' signed `GET /v1/health` (running,
 * queued, maxConcurrency) plus the runs this client has in flight on each. A host that fails or
 * times out is marked down with an exponential back-off and probed again through its health
 * endpoint when the back-off ends. A run moves to another host only when it provably did not
 * start on the first (connection refused, 429 busy or queue timeout, or a connection lost before
 * the host acknowledged the start and then confirmed by the host or by its absence): the same code
 * never runs twice (docs/sandbox.md#at-most-once). Uses
 * timers of the platform only through `Date.now`-style clocks, so it works in workerd and Node.
 */
import type {
  BrowseRequest,
  BrowseResult,
  SandboxHealth,
  SandboxRunKind,
  SandboxRunRequest,
  SandboxRunResult,
} from "@skillgate/sandbox-protocol";
import { ExecutionFailure } from "../errors.js";
import type { RunHooks, SandboxClient } from "./client.js";

/** One configured host. */
export interface HostEntry {
  /** Base URL (shown in health; never carries a secret). */
  url: string;
  client: SandboxClient;
}

/** What `GET /api/health` shows of one host. */
export interface HostStatus {
  url: string;
  state: "up" | "down" | "unknown";
  /** Runs this API instance has in flight on the host. */
  inflight: number;
  /** Consecutive failures (0 when up). */
  failures: number;
  /** When a down host is probed again (ISO-8601), null when up. */
  downUntil: string | null;
  /** Last error seen, null after a success. */
  lastError: string | null;
  /** The host's last health answer, null before the first. */
  health: SandboxHealth | null;
}

/** Options of {@link createMultiHostClient}. */
export interface MultiHostOptions {
  /** Age after which a host's health is refreshed, in ms (default 2 000). */
  healthMaxAgeMs?: number;
  /** First back-off of a failed host, in ms (default 1 000); doubles per failure. */
  backoffMs?: number;
  /** Longest back-off, in ms (default 30 000). */
  maxBackoffMs?: number;
  /** Clock in ms since the epoch. */
  clock?: () => number;
}

interface HostState extends HostEntry {
  inflight: number;
  failures: number;
  downUntil: number;
  lastError: string | null;
  health: SandboxHealth | null;
  healthAt: number;
  probing: Promise<void> | null;
}

/** A {@link SandboxClient} over several hosts, with their states for the health route. */
export interface MultiHostClient extends SandboxClient {
  /** Every host with its state, in configuration order (probes hosts whose health is stale). */
  hosts(): Promise<HostStatus[]>;
}

/**
 * Creates the client. @param hosts at least one host.
 * @throws Error when `hosts` is empty.
 */
export function createMultiHostClient(
  hosts: readonly HostEntry[],
  opts: MultiHostOptions = {},
): MultiHostClient {
  if (hosts.length === 0) throw new Error("createMultiHostClient needs at least one host");
  const clock = opts.clock ?? Date.now;
  const maxAge = opts.healthMaxAgeMs ?? 2_000;
  const backoff = opts.backoffMs ?? 1_000;
  const maxBackoff = opts.maxBackoffMs ?? 30_000;
  const states: HostState[] = hosts.map((h) => ({
    ...h,
    inflight: 0,
    failures: 0,
    downUntil: 0,
    lastError: null,
    health: null,
    healthAt: 0,
    probing: null,
  }));
  const runHosts = new Map<string, HostState>();
  let turn = 0;

  const markDown = (s: HostState, err: unknown) => {
    s.failures += 1;
    s.lastError = err instanceof Error ? err.message : String(err);
    s.downUntil = clock() + Math.min(maxBackoff, backoff * 2 ** (s.failures - 1));
  };
  const markUp = (s: HostState) => {
    s.failures = 0;
    s.downUntil = 0;
    s.lastError = null;
  };
  const isDown = (s: HostState) => s.failures > 0;

  /** Refreshes one host's health (one probe at a time per host). */
  const probe = (s: HostState): Promise<void> => {
    s.probing ??= s.client
      .health()
      .then(
        (h) => {
          s.health = h;
          s.healthAt = clock();
          if (h.ok) markUp(s);
          else markDown(s, new Error("host reports its Docker engine unavailable"));
        },
        (err: unknown) => {
          s.healthAt = clock();
          markDown(s, err);
        },
      )
      .finally(() => {
        s.probing = null;
      });
    return s.probing;
  };

  const load = (s: HostState) => {
    const h = s.health;
    const capacity = Math.max(1, h?.maxConcurrency ?? 1);
    return Math.max(s.inflight, (h?.running ?? 0) + (h?.queued ?? 0)) / capacity;
  };

  /** Hosts to try, best first: healthy ones by load, then down ones by the end of their back-off. */
  const candidates = async (): Promise<HostState[]> => {
    const now = clock();
    const unknown = states.filter((s) => s.health === null && !isDown(s));
    if (unknown.length > 0) await Promise.all(unknown.map(probe));
    for (const s of states) {
      const due = isDown(s) ? s.downUntil <= now : now - s.healthAt > maxAge;
      if (due) void probe(s);
    }
    const up = states.filter((s) => !isDown(s));
    const start = turn++ % states.length;
    const order = (s: HostState) => (states.indexOf(s) - start + states.length) % states.length;
    up.sort((a, b) => load(a) - load(b) || order(a) - order(b));
    const down = states.filter(isDown).sort((a, b) => a.downUntil - b.downUntil);
    // With no healthy host left, a down one is still tried: refusal is cheap and safe to retry.
    return up.length > 0 ? up : down;
  };

  /**
   * Sends one run (or browse) to the best host; moves to the next only when it certainly did not
   * start (see the module comment).
   */
  async function onHost<T>(
    runId: string | undefined,
    signal: AbortSignal | undefined,
    call: (client: SandboxClient) => Promise<T>,
  ): Promise<T> {
    const tried = new Set<HostState>();
    let last: unknown;
    for (;;) {
      const next = (await candidates()).find((s) => !tried.has(s));
      if (!next) break;
      tried.add(next);
      next.inflight += 1;
      if (runId) runHosts.set(runId, next);
      try {
        const result = await call(next.client);
        markUp(next);
        return result;
      } catch (err) {
        last = err;
        const failure = err instanceof ExecutionFailure ? err : undefined;
        if (failure?.code === "sandbox_unavailable" || failure?.code === "sandbox_outcome_unknown")
          markDown(next, err);
        if (!failure?.notStarted || signal?.aborted) throw err;
      } finally {
        next.inflight -= 1;
        if (runId && runHosts.get(runId) === next) runHosts.delete(runId);
      }
    }
    throw (
      last ??
      new ExecutionFailure("No sandbox host is configured", {
        code: "sandbox_unavailable",
        retryable: true,
      })
    );
  }

  return {
    run(req: SandboxRunRequest, signal?: AbortSignal, hooks?: RunHooks): Promise<SandboxRunResult> {
      return onHost(req.runId, signal, (client) => client.run(req, signal, hooks));
    },
    browse(req: BrowseRequest, signal?: AbortSignal): Promise<BrowseResult> {
      return onHost(req.runId, signal, (client) => client.browse(req, signal));
    },
    async kill(runId: string): Promise<void> {
      const s = runHosts.get(runId);
      if (s) await s.client.kill(runId);
    },
    /**
     * Sums the healthy hosts' capacity; `ok` when at least one host is up; `imagesPresent`
     * combined over the healthy hosts ({@link combineImagesPresent}).
     */
    async health(): Promise<SandboxHealth> {
      const list = await this.hosts();
      const up = list.filter((h) => h.state === "up" && h.health);
      const first = up[0]?.health ?? list.find((h) => h.health)?.health;
      const pool: Record<string, number> = {};
      for (const h of up)
        for (const [image, n] of Object.entries(h.health!.pool))
          pool[image] = (pool[image] ?? 0) + n;
      return {
        ok: up.length > 0,
        docker: up.some((h) => h.health!.docker),
        running: up.reduce((n, h) => n + h.health!.running, 0),
        queued: up.reduce((n, h) => n + h.health!.queued, 0),
        maxConcurrency: Math.max(
          1,
          up.reduce((n, h) => n + h.health!.maxConcurrency, 0),
        ),
        maxQueue: up.reduce((n, h) => n + h.health!.maxQueue, 0),
        pool,
        images: first?.images ?? { node: "", python: "", shell: "" },
        // Runtimes can differ per host: this is the first healthy host's; `hosts` lists each.
        ...(first?.runtimes ? { runtimes: first.runtimes } : {}),
        ...combineImagesPresent(up.map((h) => h.health!)),
      };
    },
    async hosts(): Promise<HostStatus[]> {
      const now = clock();
      await Promise.all(
        states
          .filter((s) => s.health === null || now - s.healthAt > maxAge || isDown(s))
          .map(probe),
      );
      return states.map((s) => ({
        url: s.url,
        state: isDown(s) ? "down" : s.health ? "up" : "unknown",
        inflight: s.inflight,
        failures: s.failures,
        downUntil: isDown(s) ? new Date(s.downUntil).toISOString() : null,
        lastError: s.lastError,
        health: s.health,
      }));
    },
  };
}

/**
 * Image presence over several hosts, by kind: `false` when any host lacks the image, `true` when
 * every host holds it, `null` when none lacks it but some could not tell (or are of an older
 * version, without the field). Output: `{ imagesPresent }`, or `{}` when no host reports presence.
 */
export function combineImagesPresent(
  healths: readonly SandboxHealth[],
): Pick<SandboxHealth, "imagesPresent"> {
  const reported = healths.filter((h) => h.imagesPresent !== undefined);
  if (reported.length === 0) return {};
  const kinds = new Set(
    reported.flatMap((h) => Object.keys(h.imagesPresent!)),
  ) as Set<SandboxRunKind>;
  const imagesPresent: NonNullable<SandboxHealth["imagesPresent"]> = {};
  for (const kind of kinds) {
    const values = healths.map((h) => h.imagesPresent?.[kind] ?? null);
    imagesPresent[kind] = values.includes(false) ? false : values.includes(null) ? null : true;
  }
  return { imagesPresent };
}

/** True when `client` spreads runs over several hosts (and can list them). */
export function isMultiHost(client: SandboxClient): client is MultiHostClient {
  return typeof (client as Partial<MultiHostClient>).hosts === "function";
}
