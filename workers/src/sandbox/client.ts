/**
 * Signing HTTP client for the sandbox host (docs/sandbox.md#protocol).
 * Uses the global `fetch` and WebCrypto only, so it runs in workerd and Node. Every call is bounded
 * by an AbortSignal, so a silent host never hangs a handler. Every request carries the current
 * trace context in W3C `traceparent` / `tracestate` headers when there is one (the proxy's
 * `execute_tool` span; docs/sandbox.md#tracing); they are not signed.
 */
import {
  BROWSE_DEFAULT_TIMEOUT_MS,
  type BrowseRequest,
  type BrowseResult,
  browseResultSchema,
  MAX_SANDBOX_TIMEOUT_MS,
  RUN_STREAM_CONTENT_TYPE,
  type SandboxHealth,
  type SandboxRunRequest,
  type SandboxRunResult,
  sandboxKillResultSchema,
  sandboxRunResultSchema,
} from "@skillgate/sandbox-protocol";
import type { Config } from "../config.js";
import { ExecutionFailure } from "../errors.js";
import { connectionBroken, hostFailure, neverConnected, unavailable } from "./host-failure.js";
import { createMultiHostClient } from "./multi-host.js";
import { readRunStream } from "./run-stream.js";
import { createHostTransport, readJson } from "./transport.js";

export { retryAfterSeconds } from "./host-failure.js";

/**
 * Most kills sent to learn whether a run whose connection failed before the acknowledgement ever
 * started, when each one's own connection breaks (docs/sandbox.md#at-most-once).
 */
export const NEVER_STARTED_PROBES = 3;
/** Pause before the second such kill, in ms; the third waits twice as long. */
const NEVER_STARTED_PAUSE_MS = 100;

/**
 * Signed client for the sandbox host. Every method throws `ExecutionFailure` (workers/src/errors.ts):
 * `sandbox_unavailable` (retryable) when the host cannot be reached or does not answer in time,
 * `sandbox_busy` (retryable) on 429, the host's error code otherwise (unchanged, with the
 * retryable flag of the error registry).
 */
export interface SandboxClient {
  /**
   * Runs one program at most once (docs/sandbox.md#at-most-once); `signal` aborts the HTTP call
   * (the caller also calls `kill(runId)`); `hooks.onStarted` is told which host started it.
   * Besides the failures above: `sandbox_outcome_unknown` (not retryable) when the host was lost
   * after it acknowledged the start. `sandbox_unavailable` is `notStarted` only when the program
   * provably never started (then, and only then, it may be sent again, to any host).
   */
  run(req: SandboxRunRequest, signal?: AbortSignal, hooks?: RunHooks): Promise<SandboxRunResult>;
  /**
   * Runs one browse of the `browser` builtin (docs/sandbox.md#the-browser-builtin); `signal`
   * aborts the HTTP call (the caller also calls `kill(runId)`).
   */
  browse(req: BrowseRequest, signal?: AbortSignal): Promise<BrowseResult>;
  /** Stops a queued or running run (best effort; an unknown or finished run is not an error). */
  kill(runId: string): Promise<void>;
  health(): Promise<SandboxHealth>;
}

/** Where and when a run started, as its host acknowledged it. */
export interface SandboxRunStart {
  /** Origin of the host's base URL (`http://10.0.0.5:20129`). */
  host: string;
  /** The host's container label (`SANDBOX_INSTANCE`). */
  instance: string;
  /** Time the run waited on the host for a slot and a container, in ms. */
  queueWaitMs: number;
}

/** Callbacks of one run. */
export interface RunHooks {
  /** Called once when the host acknowledges the start, before the program is handed over. */
  onStarted?: (start: SandboxRunStart) => void;
  /**
   * Called when the host refused the run with `queue_timeout`: it waited `queueWaitMs` (the wait
   * asked for) for a slot and never started.
   */
  onQueueTimeout?: (refusal: { host: string; queueWaitMs: number }) => void;
}

/** Options of {@link createSandboxClient}. */
export interface SandboxClientOptions {
  /** Host base URL, e.g. `http://127.0.0.1:20129`. */
  baseUrl: string;
  /** Shared HMAC secret (never sent, never logged). */
  secret: string;
  /** Key id the host knows the secret under (default `k1`). */
  keyId?: string;
  /** fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /**
   * Time a run may take beyond its own limit before the client gives up on the host, in ms
   * (container start, kill grace, removal). A safety net for callers without a signal: the
   * executor's signal (its deadline plus a grace) ends a run's call first. Default 45 000.
   */
  runOverheadMs?: number;
  /** Time limit of `kill` and `health` calls, in ms. Default 5 000. */
  controlTimeoutMs?: number;
  /** Limit assumed for a run without `timeoutMs` (the host's default), in ms. Default 10 000. */
  defaultRunTimeoutMs?: number;
  /**
   * Longest wait for a slot on the host, in ms, sent as the run's `queueTimeoutMs` (the host caps
   * it). Default 10 000 (`SANDBOX_QUEUE_WAIT_MS`).
   */
  queueWaitMs?: number;
}

/** Failure codes the client produces besides the host's own error codes. */
export type SandboxFailureCode =
  | "sandbox_unavailable"
  | "sandbox_busy"
  | "sandbox_auth_failed"
  | "sandbox_error"
  | "sandbox_outcome_unknown"
  | "aborted";

function isRunResult(v: unknown): v is SandboxRunResult {
  return sandboxRunResultSchema.safeParse(v).success;
}

/**
 * Creates a {@link SandboxClient}. Every request is signed (`signRequest` of @skillgate/sandbox-protocol). Errors (all
 * `ExecutionFailure`): `sandbox_unavailable` (retryable) when the host is unreachable, does not
 * answer within its bound, or answers 502/503/504; `sandbox_busy` (retryable, `retryAfterS` from
 * the host's Retry-After) on 429, when the program did not run;
 * `sandbox_auth_failed` on 401; `image_unavailable`; `aborted` when the caller's signal fired;
 * otherwise the host's error code (`invalid_input`, `image_not_allowed`, ...).
 * @throws Error at creation when the secret is empty (fail closed).
 */
export function createSandboxClient(opts: SandboxClientOptions): SandboxClient {
  if (!opts.secret) throw new Error("Sandbox client needs a secret (SANDBOX_SECRET)");
  const base = opts.baseUrl.replace(/\/+$/, "");
  const keyId = opts.keyId ?? "k1";
  const doFetch =
    opts.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const runOverheadMs = opts.runOverheadMs ?? 45_000;
  const controlTimeoutMs = opts.controlTimeoutMs ?? 5_000;
  const defaultRunTimeoutMs = opts.defaultRunTimeoutMs ?? 10_000;
  const queueWaitMs = opts.queueWaitMs ?? 10_000;
  const origin = new URL(base).origin;

  const { send, call } = createHostTransport({
    baseUrl: base,
    secret: opts.secret,
    keyId,
    fetch: doFetch,
  });

  /**
   * After a run's connection failed before the host acknowledged the start: true when the program
   * provably never started, i.e. the host answers the kill saying it was still waiting (it now
   * never starts), or nothing listens at the host any more (its process is gone, and a host hands
   * a program over only after its acknowledgement is out). A kill whose own connection breaks
   * learns nothing (a host going away resets the connections it accepted before its port refuses
   * new ones), so it is sent again, at most {@link NEVER_STARTED_PROBES} kills within
   * `controlTimeoutMs` in all; any answer, a silence past the bound, or a last broken connection
   * is final, and only the two proofs above return true.
   */
  async function neverStarted(runId: string): Promise<boolean> {
    const deadline = Date.now() + controlTimeoutMs;
    for (let probe = 1; ; probe++) {
      try {
        const out = sandboxKillResultSchema.safeParse(
          await call(
            "POST",
            `/v1/kill/${encodeURIComponent(runId)}`,
            undefined,
            Math.max(1, deadline - Date.now()),
          ),
        );
        return out.success && out.data.killed && out.data.started === false;
      } catch (err) {
        if (!(err instanceof ExecutionFailure)) return false;
        if (err.notStarted) return true;
        const pause = NEVER_STARTED_PAUSE_MS * probe;
        if (
          !connectionBroken(err.cause) ||
          probe >= NEVER_STARTED_PROBES ||
          Date.now() + pause >= deadline
        )
          return false;
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  /** The failure of a run whose connection failed before the acknowledgement. */
  async function beforeAck(runId: string, reason: string, cause?: unknown) {
    if (await neverStarted(runId))
      return unavailable(`Sandbox host unreachable at ${origin}: ${reason}`, true, cause);
    return outcomeUnknown(reason, cause);
  }

  function outcomeUnknown(reason: string, cause?: unknown): ExecutionFailure {
    return new ExecutionFailure(
      `Sandbox host ${origin} was lost after the program started (${reason}); whether it ran to the end is unknown, and it was not run again`,
      { code: "sandbox_outcome_unknown", retryable: false, cause },
    );
  }

  return {
    async run(
      req: SandboxRunRequest,
      signal?: AbortSignal,
      hooks?: RunHooks,
    ): Promise<SandboxRunResult> {
      if (signal?.aborted)
        throw new ExecutionFailure("Sandbox call was aborted", { code: "aborted" });
      const limit = Math.min(req.timeoutMs ?? defaultRunTimeoutMs, MAX_SANDBOX_TIMEOUT_MS);
      const wait = req.queueTimeoutMs ?? queueWaitMs;
      const body: SandboxRunRequest = {
        ...req,
        runId: req.runId ?? crypto.randomUUID(),
        queueTimeoutMs: wait,
      };
      const runId = body.runId!;
      const timeout = AbortSignal.timeout(limit + wait + runOverheadMs);
      const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let res: Response;
      try {
        res = await send("POST", "/v1/run", body, both, RUN_STREAM_CONTENT_TYPE);
      } catch (err) {
        if (signal?.aborted)
          throw new ExecutionFailure("Sandbox call was aborted", { code: "aborted" });
        const reason = timeout.aborted
          ? "no answer within its bound"
          : err instanceof Error
            ? err.message
            : String(err);
        if (neverConnected(err))
          throw unavailable(`Sandbox host unreachable at ${origin}: ${reason}`, true, err);
        throw await beforeAck(runId, reason, err);
      }
      if (!res.ok) {
        const parsed = await readJson(res).catch(() => null);
        const code = (parsed as { error?: { code?: unknown } } | null)?.error?.code;
        // A gateway between the API and the host may answer for a run the host still holds.
        if ((res.status === 502 || res.status === 504) && typeof code !== "string")
          throw await beforeAck(runId, `HTTP ${res.status} from a gateway`);
        const failure = hostFailure(res.status, parsed, res.headers.get("retry-after"));
        if (failure.code === "queue_timeout")
          hooks?.onQueueTimeout?.({ host: origin, queueWaitMs: wait });
        throw failure;
      }
      const type = res.headers.get("content-type") ?? "";
      if (type.includes(RUN_STREAM_CONTENT_TYPE))
        return readRunStream(res, {
          origin,
          hooks,
          callerSignal: signal,
          timeout,
          beforeAck: (reason, cause) => beforeAck(runId, reason, cause),
          outcomeUnknown,
          kill: () =>
            call("POST", `/v1/kill/${encodeURIComponent(runId)}`, undefined, controlTimeoutMs),
        });
      // A host of an older version answers the result in one JSON body (no acknowledgement).
      const out = await readJson(res).catch(() => null);
      if (!isRunResult(out)) {
        throw new ExecutionFailure("Sandbox host sent a malformed run result", {
          code: "sandbox_error",
        });
      }
      return out;
    },
    async browse(req: BrowseRequest, signal?: AbortSignal): Promise<BrowseResult> {
      const limit = Math.min(req.timeoutMs ?? BROWSE_DEFAULT_TIMEOUT_MS, MAX_SANDBOX_TIMEOUT_MS);
      let answer: unknown;
      try {
        answer = await call("POST", "/v1/browse", req, limit + runOverheadMs, signal);
      } catch (err) {
        // A browse has no start acknowledgement: unless it provably never reached the host (a
        // refused connection) or the host answered, it may have run, so it is not sent again
        // (docs/sandbox.md#at-most-once).
        if (
          err instanceof ExecutionFailure &&
          err.code === "sandbox_unavailable" &&
          !err.notStarted
        )
          throw outcomeUnknown(err.message, err);
        throw err;
      }
      const out = browseResultSchema.safeParse(answer);
      if (!out.success) {
        throw new ExecutionFailure("Sandbox host sent a malformed browse result", {
          code: "sandbox_error",
        });
      }
      return out.data;
    },
    async kill(runId: string): Promise<void> {
      await call("POST", `/v1/kill/${encodeURIComponent(runId)}`, undefined, controlTimeoutMs);
    },
    async health(): Promise<SandboxHealth> {
      return (await call("GET", "/v1/health", undefined, controlTimeoutMs)) as SandboxHealth;
    },
  };
}

/**
 * Builds the client from the API configuration (`SANDBOX_URLS` or `SANDBOX_URL`, `SANDBOX_SECRETS`
 * or `SANDBOX_SECRET`, `SANDBOX_KEY_ID`, `SKILLS_SANDBOX_TIMEOUT_MS`, `SANDBOX_QUEUE_WAIT_MS`;
 * docs/configuration.md).
 * Several URLs give a client that spreads runs over the hosts (multi-host.ts).
 * Output: undefined when no URL or no secret is configured (the sandbox builtins then fail with
 * `sandbox_unavailable`: fail closed).
 * @throws Error when `SANDBOX_SECRETS` is set with a count other than the URLs' (a host must not
 *   silently get another host's secret).
 */
export function sandboxClientFromConfig(
  config: Config,
  fetchImpl?: typeof fetch,
): SandboxClient | undefined {
  const urls =
    config.SANDBOX_URLS.length > 0
      ? config.SANDBOX_URLS
      : config.SANDBOX_URL
        ? [config.SANDBOX_URL]
        : [];
  if (urls.length === 0) return undefined;
  const perHost = config.SANDBOX_SECRETS;
  if (perHost.length > 0 && perHost.length !== urls.length) {
    throw new Error(
      `SANDBOX_SECRETS has ${perHost.length} secret(s) for ${urls.length} sandbox host(s); give one per host, in order, or none (SANDBOX_SECRET for all)`,
    );
  }
  if (perHost.length === 0 && !config.SANDBOX_SECRET) return undefined;
  const clients = urls.map((url, i) => ({
    url,
    client: createSandboxClient({
      baseUrl: url,
      secret: perHost[i] ?? config.SANDBOX_SECRET!,
      keyId: config.SANDBOX_KEY_ID,
      fetch: fetchImpl,
      defaultRunTimeoutMs: config.SKILLS_SANDBOX_TIMEOUT_MS,
      queueWaitMs: config.SANDBOX_QUEUE_WAIT_MS,
    }),
  }));
  if (clients.length === 1 && config.SANDBOX_URLS.length === 0) return clients[0]!.client;
  return createMultiHostClient(clients);
}
