/**
 * Signing HTTP client for the sandbox host (docs/sandbox.md#protocol).
 * Uses the global `fetch` and WebCrypto only, so it runs in workerd and Node. Every call is bounded
 * by an AbortSignal, so a silent host never hangs a handler.
 */
import {
  BROWSE_DEFAULT_TIMEOUT_MS,
  type BrowseRequest,
  type BrowseResult,
  browseResultSchema,
  isSandboxErrorCode,
  MAX_SANDBOX_TIMEOUT_MS,
  SANDBOX_ERROR_CODES,
  type SandboxHealth,
  type SandboxRunRequest,
  type SandboxRunResult,
  sandboxRunResultSchema,
  signRequest,
} from "@skillgate/sandbox-protocol";
import type { Config } from "../config.js";
import { ExecutionFailure } from "../errors.js";
import { createMultiHostClient } from "./multi-host.js";

/**
 * Signed client for the sandbox host. Every method throws `ExecutionFailure` (workers/src/errors.ts):
 * `sandbox_unavailable` (retryable) when the host cannot be reached or does not answer in time,
 * `sandbox_busy` (retryable) on 429, the host's error code otherwise (unchanged, with the
 * retryable flag of the error registry).
 */
export interface SandboxClient {
  /** Runs one program; `signal` aborts the HTTP call (the caller also calls `kill(runId)`). */
  run(req: SandboxRunRequest, signal?: AbortSignal): Promise<SandboxRunResult>;
  /**
   * Runs one browse of the `browser` builtin (docs/sandbox.md#the-browser-builtin); `signal`
   * aborts the HTTP call (the caller also calls `kill(runId)`).
   */
  browse(req: BrowseRequest, signal?: AbortSignal): Promise<BrowseResult>;
  /** Stops a queued or running run (best effort; an unknown or finished run is not an error). */
  kill(runId: string): Promise<void>;
  health(): Promise<SandboxHealth>;
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
}

/** Failure codes the client produces besides the host's own error codes. */
export type SandboxFailureCode =
  | "sandbox_unavailable"
  | "sandbox_busy"
  | "sandbox_auth_failed"
  | "sandbox_error"
  | "aborted";

function unavailable(message: string, notStarted = false, cause?: unknown): ExecutionFailure {
  return new ExecutionFailure(message, {
    code: "sandbox_unavailable",
    retryable: true,
    notStarted,
    cause,
  });
}

/** Connection errors (Node's fetch) raised before a request reached the host. */
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** True when a fetch error says the connection was never made (so nothing was sent). */
function neverConnected(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === "string" && NOT_CONNECTED.has(cause.code);
}

/**
 * Seconds of a `Retry-After` header (delay-seconds or an HTTP-date, RFC 9110 §10.2.3), at least
 * 1; undefined when absent or unreadable.
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.max(1, Number(text));
  if (!/^[A-Za-z]{3}, /.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(1, Math.ceil((at - now) / 1000));
}

/**
 * Maps a non-2xx answer of the host to an ExecutionFailure: 429 → `sandbox_busy` (retryable, with
 * the host's Retry-After), 401 → `sandbox_auth_failed` (the API's signature was refused), a code
 * of the host's registry → that code as is, with the registry's retryable flag (e.g. 503
 * `docker_unavailable`, `shutting_down`, `image_unavailable`); without one, 502/503/504 →
 * `sandbox_unavailable` (retryable) and anything else → `sandbox_error`.
 */
function hostFailure(status: number, body: unknown, retryAfter: string | null): ExecutionFailure {
  const err = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof err?.code === "string" ? err.code : "";
  const detail = typeof err?.message === "string" ? err.message : `HTTP ${status}`;
  if (status === 429) {
    const after = retryAfterSeconds(retryAfter);
    const hint = after === undefined ? "" : ` (retry after ${after} s)`;
    return new ExecutionFailure(
      `Sandbox host is busy: no slot was free and the program did not run${hint}`,
      { code: "sandbox_busy", retryable: true, retryAfterS: after, notStarted: true },
    );
  }
  if (status === 401) {
    return new ExecutionFailure(
      `Sandbox host rejected the request signature (${detail}); check SANDBOX_SECRET and SANDBOX_KEY_ID`,
      { code: "sandbox_auth_failed" },
    );
  }
  if (isSandboxErrorCode(code)) {
    const { retryable } = SANDBOX_ERROR_CODES[code];
    const message =
      status === 503 ? `Sandbox host unavailable: ${detail}` : `Sandbox host error: ${detail}`;
    return new ExecutionFailure(code === "image_unavailable" ? detail : message, {
      code,
      retryable,
    });
  }
  if (status === 502 || status === 503 || status === 504) {
    return unavailable(`Sandbox host unavailable: ${detail}`);
  }
  return new ExecutionFailure(`Sandbox host error: ${detail}`, { code: code || "sandbox_error" });
}

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

  async function call(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    boundMs: number,
    callerSignal?: AbortSignal,
  ): Promise<unknown> {
    if (callerSignal?.aborted)
      throw new ExecutionFailure("Sandbox call was aborted", { code: "aborted" });
    const text = body === undefined ? "" : JSON.stringify(body);
    const url = `${base}${path}`;
    const headers: Record<string, string> = await signRequest({
      secret: opts.secret,
      keyId,
      method,
      url,
      body: text,
    });
    if (body !== undefined) headers["content-type"] = "application/json";
    const timeout = AbortSignal.timeout(boundMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    let res: Response;
    let parsed: unknown;
    try {
      res = await doFetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : text,
        signal,
      });
      const raw = await res.text();
      try {
        parsed = raw === "" ? null : JSON.parse(raw);
      } catch {
        parsed = null;
      }
    } catch (err) {
      if (callerSignal?.aborted)
        throw new ExecutionFailure("Sandbox call was aborted", { code: "aborted" });
      if (timeout.aborted) throw unavailable(`Sandbox host did not answer within ${boundMs} ms`);
      const reason = err instanceof Error ? err.message : String(err);
      throw unavailable(
        `Sandbox host unreachable at ${new URL(base).origin}: ${reason}`,
        neverConnected(err),
        err,
      );
    }
    if (!res.ok) throw hostFailure(res.status, parsed, res.headers.get("retry-after"));
    return parsed;
  }

  return {
    async run(req: SandboxRunRequest, signal?: AbortSignal): Promise<SandboxRunResult> {
      const limit = Math.min(req.timeoutMs ?? defaultRunTimeoutMs, MAX_SANDBOX_TIMEOUT_MS);
      const out = await call("POST", "/v1/run", req, limit + runOverheadMs, signal);
      if (!isRunResult(out)) {
        throw new ExecutionFailure("Sandbox host sent a malformed run result", {
          code: "sandbox_error",
        });
      }
      return out;
    },
    async browse(req: BrowseRequest, signal?: AbortSignal): Promise<BrowseResult> {
      const limit = Math.min(req.timeoutMs ?? BROWSE_DEFAULT_TIMEOUT_MS, MAX_SANDBOX_TIMEOUT_MS);
      const out = browseResultSchema.safeParse(
        await call("POST", "/v1/browse", req, limit + runOverheadMs, signal),
      );
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
 * or `SANDBOX_SECRET`, `SANDBOX_KEY_ID`, `SKILLS_SANDBOX_TIMEOUT_MS`; docs/configuration.md).
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
    }),
  }));
  if (clients.length === 1 && config.SANDBOX_URLS.length === 0) return clients[0]!.client;
  return createMultiHostClient(clients);
}
