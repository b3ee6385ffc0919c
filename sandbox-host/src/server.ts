/**
 * HTTP API of the sandbox host (Hono on @hono/node-server); the shapes, signing and error codes
 * are those of @skillgate/sandbox-protocol.
 *
 * Every route requires a signed request (auth.ts; headers `X-Skillgate-Key-Id`,
 * `X-Skillgate-Timestamp` (ms), `X-Skillgate-Nonce`, `X-Skillgate-Signature`); failures answer
 * 401 before anything is parsed or run, unknown paths included.
 *
 * - `POST /v1/run` — body `SandboxRunRequest` JSON → 200 `SandboxRunResult` JSON for every run
 *   that started (whatever its exit code, timeout or OOM). `timeoutMs` counts from the handover
 *   of the program; the wait for a slot is bounded apart by `queueTimeoutMs`. Errors: 400 `invalid_json` / `invalid_input`,
 *   409 `run_exists` / `killed` (killed while queued), 413 `body_too_large`,
 *   422 `image_not_allowed`, 429 `busy` with `Retry-After` (seconds) when the queue is full,
 *   429 `queue_timeout` when no slot came free within the run's queue wait (the program never
 *   started), 503 `image_unavailable` /
 *   `docker_unavailable` / `shutting_down`. With tracing configured, each run is a `sandbox.run`
 *   span, child of the request's W3C `traceparent` (tracing.ts, docs/sandbox.md#tracing).
 * - `POST /v1/browse` — body `BrowseRequest` JSON → 200 `BrowseResult` JSON for every browse
 *   that was accepted (ok, error or timeout; browser.ts); errors as `/v1/run`, with
 *   400 `invalid_input` for a URL that is not absolute http(s) or carries credentials.
 * - `POST /v1/kill/{runId}` — kills a queued or running run (SIGKILL) → 200 `{ killed: boolean }`
 *   (false: unknown or already finished).
 * - `GET /v1/health` → 200 `SandboxHealth` (`docker` false when the engine does not answer;
 *   `images` includes the browser's, `imagesPresent` says which the engine holds: image-presence.ts).
 * - `GET /metrics` → Prometheus text exposition (metrics.ts, prometheus.ts), the one route that
 *   is not signed: it needs `Authorization: Bearer <METRICS_TOKEN>` instead, and exists only when
 *   `METRICS_TOKEN` is set and the host was started with a pull-based metrics backend.
 *
 * Error body: `{ error: { code, message } }`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import {
  browseRequestSchema,
  RUN_ID_PATTERN,
  RUN_STREAM_CONTENT_TYPE,
  type SandboxHealth,
  type SandboxRunKind,
  sandboxRunRequestSchema,
} from "@skillgate/sandbox-protocol";
import { type Context, Hono } from "hono";
import { matchedRoutes } from "hono/route";
import { type AuthVariables, NonceStore, signatureAuth } from "./auth.js";
import { BrowserService } from "./browser.js";
import type { HostConfig } from "./config.js";
import type { DockerClient } from "./docker-client.js";
import { DockerodeClient } from "./dockerode-client.js";
import { checkEgressShare } from "./egress-share.js";
import { HostError } from "./errors.js";
import { ImagePresence, type ImagePresenceOptions } from "./image-presence.js";
import { ImageStore } from "./images.js";
import { Limiter } from "./limiter.js";
import { type HostMetrics, noopHostMetrics } from "./metrics.js";
import { WarmPool } from "./pool.js";
import { streamedRun } from "./run-stream.js";
import { type OnRunStart, Runner } from "./runner.js";
import { checkRuntimes } from "./runtimes.js";
import { createHostTracing, type HostTracing, traceRun } from "./tracing.js";

/** Optional collaborators, for tests and embedding. */
export interface SandboxHostOptions {
  /** Docker engine seam; default dockerode on `SANDBOX_DOCKER_SOCKET` or the engine's defaults. */
  docker?: DockerClient;
  /** Log sink (one line per event; never receives secrets). Default: stderr. */
  log?: (line: string) => void;
  /** Clock for signature checks, ms since the epoch. */
  now?: () => number;
  /** Metrics backend (main.ts: Prometheus); default: nothing is recorded. */
  metrics?: HostMetrics;
  /** Caching of the image presence health reports (default: checked at most every 30 s). */
  imagePresence?: ImagePresenceOptions;
}

/** A started host. */
export interface SandboxHost {
  /** Base URL, e.g. `http://127.0.0.1:20129`. */
  url: string;
  port: number;
  runner: Runner;
  /** The host's tracing (docs/sandbox.md#tracing); null without an OTLP endpoint. */
  tracing: HostTracing | null;
  /** Current health (same as `GET /v1/health`). */
  health(): Promise<SandboxHealth>;
  /**
   * Stops listening, kills every run, removes pooled containers and leftovers, and exports the
   * spans still buffered.
   */
  close(): Promise<void>;
}

/** First line of an error's message, for the log. */
function reasonOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "";
}

async function dockerReachable(docker: DockerClient): Promise<boolean> {
  try {
    await Promise.race([
      docker.ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 2000).unref()),
    ]);
    return true;
  } catch {
    return false;
  }
}

/** The route pattern that answered `c`, or `unmatched`. */
function routeOf(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--)
    if (routes[i]!.method !== "ALL") return routes[i]!.path;
  return "unmatched";
}

const sha256 = (s: string) => createHash("sha256").update(s).digest();

/** True when the request carries `Authorization: Bearer <token>` (constant-time comparison). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  return presented !== undefined && timingSafeEqual(sha256(presented), sha256(token));
}

/** Builds the Hono app over a runner (no listening, no timers). */
export function createHostApp(
  config: HostConfig,
  runner: Runner,
  health: () => Promise<SandboxHealth>,
  opts: {
    now?: () => number;
    log: (line: string) => void;
    metrics?: HostMetrics;
    /** Serves `POST /v1/browse`; default: a service over `runner`. */
    browser?: BrowserService;
    /** The `sandbox.run` spans (tracing.ts); default null: none. */
    tracing?: HostTracing | null;
  },
): Hono<{ Variables: AuthVariables }> {
  const browser = opts.browser ?? new BrowserService({ runner, config, log: opts.log });
  const tracing = opts.tracing ?? null;
  const app = new Hono<{ Variables: AuthVariables }>();
  const metrics = opts.metrics ?? noopHostMetrics;
  app.use("*", async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      metrics.observeRequest({
        method: c.req.method,
        route: routeOf(c),
        status: c.res.status,
        durationMs: performance.now() - started,
      });
    }
  });
  const { scrape } = metrics;
  const metricsToken = config.metricsToken;
  if (scrape && metricsToken) {
    // Registered before the signature check, which would refuse an unsigned scrape.
    app.get("/metrics", async (c) => {
      if (!bearerMatches(c.req.header("authorization"), metricsToken))
        throw new HostError(401, "unauthorized", "Send Authorization: Bearer <metrics token>");
      const { contentType, body } = await scrape();
      return c.body(body, 200, { "content-type": contentType, "cache-control": "no-store" });
    });
  }
  app.use(
    "*",
    signatureAuth({
      keys: config.keys,
      maxBodyBytes: config.maxBodyBytes,
      nonces: new NonceStore(),
      now: opts.now,
    }),
  );
  app.post("/v1/run", async (c) => {
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(c.var.body));
    } catch {
      throw new HostError(400, "invalid_json", "Request body is not valid JSON");
    }
    const parsed = sandboxRunRequestSchema.safeParse(json);
    if (!parsed.success) {
      const fields = parsed.error.issues.map(
        (i) => `${i.path.join(".") || "(body)"}: ${i.message}`,
      );
      throw new HostError(400, "invalid_input", `Invalid run request: ${fields.join("; ")}`);
    }
    const req = parsed.data;
    const signal = c.req.raw.signal;
    const run = (onStart?: OnRunStart) =>
      traceRun(tracing, c.req.raw.headers, req, config, () => runner.run(req, signal, onStart));
    const accept = c.req.header("accept") ?? "";
    if (!accept.includes(RUN_STREAM_CONTENT_TYPE)) return c.json(await run());
    return streamedRun(run, (runId) => runner.kill(runId), config.instance);
  });
  app.post("/v1/browse", async (c) => {
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(c.var.body));
    } catch {
      throw new HostError(400, "invalid_json", "Request body is not valid JSON");
    }
    const parsed = browseRequestSchema.safeParse(json);
    if (!parsed.success) {
      const fields = parsed.error.issues.map(
        (i) => `${i.path.join(".") || "(body)"}: ${i.message}`,
      );
      throw new HostError(400, "invalid_input", `Invalid browse request: ${fields.join("; ")}`);
    }
    return c.json(await browser.browse(parsed.data, c.req.raw.signal));
  });
  app.post("/v1/kill/:runId", (c) => {
    const runId = c.req.param("runId");
    if (!RUN_ID_PATTERN.test(runId)) throw new HostError(400, "invalid_input", "Invalid run id");
    const { known, started } = runner.kill(runId);
    return c.json(known ? { killed: true, started } : { killed: false });
  });
  app.get("/v1/health", async (c) => c.json(await health()));
  const answer = (c: Context, err: HostError) => {
    if (err.retryAfterS !== undefined) c.header("Retry-After", String(err.retryAfterS));
    return c.json({ error: { code: err.code, message: err.message } }, err.status);
  };
  app.notFound((c) => answer(c, new HostError(404, "not_found")));
  app.onError((err, c) => {
    if (err instanceof HostError) {
      if (err.cause !== undefined) opts.log(`${err.code}: ${err.message} (${reasonOf(err.cause)})`);
      return answer(c, err);
    }
    opts.log(`internal error: ${reasonOf(err)}`);
    return answer(c, new HostError(500, "internal_error"));
  });
  return app;
}

/**
 * Starts the host: removes this instance's leftover containers, fills the warm pool, listens on
 * `config.host:config.port` (port 0 picks a free one), sweeps leftovers every
 * `config.sweepIntervalMs`. Output: {@link SandboxHost}.
 * @throws Error when the port cannot be bound, or when a configured browser socket volume is not
 * usable (egress-share.ts `checkEgressShare`: directory not writable, no such volume). A Docker
 * engine that is down at start-up is logged and reported by health; runs then fail with 503.
 */
export async function startSandboxHost(
  config: HostConfig,
  opts: SandboxHostOptions = {},
): Promise<SandboxHost> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`[sandbox-host] ${line}\n`));
  const docker = opts.docker ?? DockerodeClient.connect(config.dockerSocket);
  const reachableAtStart = await dockerReachable(docker);
  // A runtime the engine lacks would fail every run of its kind: refuse to start instead.
  if (reachableAtStart) await checkRuntimes(config, docker);
  await checkEgressShare(config, docker, log);
  const owned = new Set<string>();
  const metrics = opts.metrics ?? noopHostMetrics;
  const limiter = new Limiter(config.maxConcurrency, config.maxQueue, config.queueTimeoutMs);
  const pool = new WarmPool(docker, config, owned, log, metrics);
  const images = new ImageStore(docker, config.pullTimeoutMs, log);
  const runner = new Runner({ docker, config, images, limiter, pool, owned, metrics });
  const kindImages = { ...config.images, browser: config.browser.image };
  const runtimes = { ...config.runtimes };
  metrics.watch({
    images: () =>
      (Object.keys(kindImages) as SandboxRunKind[]).map((kind) => ({
        kind,
        image: kindImages[kind],
        runtime: runtimes[kind],
      })),
    running: () => limiter.running,
    queued: () => limiter.queued,
    poolReady: () => pool.sizes(),
  });

  const presence = new ImagePresence(docker, kindImages, opts.imagePresence);
  const health = async (): Promise<SandboxHealth> => {
    const [reachable, present] = await Promise.all([dockerReachable(docker), presence.snapshot()]);
    return {
      ok: reachable,
      docker: reachable,
      running: limiter.running,
      queued: limiter.queued,
      maxConcurrency: limiter.maxConcurrency,
      maxQueue: limiter.maxQueue,
      pool: pool.sizes(),
      images: { ...kindImages },
      runtimes: { ...runtimes },
      imagesPresent: present.present,
      imagesCheckedAt:
        present.checkedAt === null ? null : new Date(present.checkedAt).toISOString(),
      instance: config.instance,
    };
  };

  const sweep = async (when: string) => {
    try {
      const removed = await runner.sweep();
      if (removed > 0) log(`removed ${removed} leftover container(s) (${when})`);
    } catch (err) {
      log(`leftover sweep failed (${when}): ${(err as Error).message}`);
    }
  };
  if (!reachableAtStart)
    log(
      "Docker engine is not reachable; runs will fail until it is (its container runtimes were not checked)",
    );
  await sweep("start-up");
  void presence.refresh();
  pool.start();

  const tracing = createHostTracing(config.tracing);
  const app = createHostApp(config, runner, health, { now: opts.now, log, metrics, tracing });
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port });
  await new Promise<void>((resolve, reject) => {
    if (server.listening) resolve();
    server.once("listening", () => resolve());
    server.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  const timer = setInterval(() => void sweep("periodic"), config.sweepIntervalMs);
  timer.unref();
  const hostPart = config.host.includes(":") ? `[${config.host}]` : config.host;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      clearInterval(timer);
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await runner.killAll(true);
      await pool.close();
      await sweep("shutdown");
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await stopped;
      // An unreachable collector must not hold the shutdown: the export is best effort.
      await tracing
        ?.shutdown()
        .catch((err: unknown) => log(`span export failed: ${reasonOf(err)}`));
    })();
    return closing;
  };
  return { url: `http://${hostPart}:${port}`, port, runner, tracing, health, close };
}
