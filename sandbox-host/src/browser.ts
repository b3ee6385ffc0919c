/**
 * The `browser` builtin on the sandbox host (docs/sandbox.md#the-browser-builtin): one browse =
 * one egress proxy on a fresh Unix socket + one hardened container of the browser image without
 * network, with the socket's directory mounted read-only (egress-share.ts: by path, or through a
 * named volume when the host runs in a container); the driver (browser-driver.cjs)
 * runs playwright-core and Chromium in it. The container goes through the runner (queue, time
 * limit, kill, removal) like any run.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import {
  BROWSE_DEFAULT_TIMEOUT_MS,
  BROWSE_MAX_CHARS,
  BROWSE_MAX_SCREENSHOT_BYTES,
  type BrowseRequest,
  type BrowseResult,
  type BrowserAction,
  MAX_SANDBOX_TIMEOUT_MS,
} from "@skillgate/sandbox-protocol";
import { z } from "zod";
import type { HostConfig } from "./config.js";
import { type EgressProxy, startEgressProxy } from "./egress-proxy.js";
import { createEgressDir, EGRESS_SOCKET_NAME, egressMount } from "./egress-share.js";
import {
  approveTarget,
  type EgressResolver,
  EgressUnreachable,
  osResolver,
} from "./egress-target.js";
import { HostError } from "./errors.js";
import { BASE_ENV } from "./images.js";
import type { RunPlan } from "./plan.js";
import type { Runner } from "./runner.js";

/** Time the driver leaves before the container's limit to report on its own, in ms. */
const REPORT_MARGIN_MS = 2_000;

const DRIVER = readFileSync(new URL("./browser-driver.cjs", import.meta.url), "utf8");

/** The driver's answer (the last line of its stdout). */
const driverOutputSchema = z.object({
  status: z.enum(["ok", "error", "timeout"]),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  url: z.string(),
  title: z.string(),
  httpStatus: z.number().int().nullable(),
  extract: z.enum(["text", "html", "screenshot"]),
  text: z.string().optional(),
  html: z.string().optional(),
  screenshot: z.string().optional(),
  truncated: z.boolean(),
});

/** What the driver needs besides its limits. */
export interface DriverInput {
  url: string;
  /** Password of the egress proxy's Basic challenge (user `skillgate`). */
  proxyPassword: string;
  actions: BrowserAction[];
  extract: BrowseResult["extract"];
}

/**
 * The run plan of one browse (kind `browser`, so metrics count it apart from node runs; never
 * pooled): the browser image, `node -` with the driver and its input on stdin,
 * no network, `dir` (this host's path of the directory holding the egress socket, from
 * `createEgressDir`) mounted read-only below /run/skillgate-egress as `egressMount` says, the
 * driver told where the socket is, the host's browser CPU and memory, 512 processes/threads
 * (Chromium is multi-process), 256 MB tmpfs (profile, caches), 64 MB /dev/shm, and an output cap
 * that fits a capped screenshot.
 * The driver's own budget ends {@link REPORT_MARGIN_MS} before `timeoutMs` so that it reports.
 */
export function browserRunPlan(
  config: HostConfig,
  runId: string,
  dir: string,
  timeoutMs: number,
  input: DriverInput,
): RunPlan {
  const mount = egressMount(config, dir);
  const program = {
    ...input,
    egressSocket: mount.socketPath,
    budgetMs: Math.max(1_000, timeoutMs - REPORT_MARGIN_MS),
    maxChars: BROWSE_MAX_CHARS,
    maxScreenshotBytes: BROWSE_MAX_SCREENSHOT_BYTES,
  };
  return {
    runId,
    kind: "browser",
    language: "node",
    image: config.browser.image,
    cmd: ["node", "-"],
    env: { ...BASE_ENV },
    network: "none",
    cpuLimit: config.browser.cpuLimit,
    memoryMb: config.browser.memoryMb,
    timeoutMs,
    queueTimeoutMs: Math.min(config.queueTimeoutMs, timeoutMs),
    input: Buffer.from(`${DRIVER}\nmodule.exports.main(${JSON.stringify(program)});\n`, "utf8"),
    poolable: false,
    readOnlyBinds: mount.readOnlyBinds,
    readOnlyVolumes: mount.readOnlyVolumes,
    pidsLimit: 512,
    runtime: config.runtimes.browser,
    tmpfsMb: 256,
    shmBytes: 64 * 1_048_576,
    maxOutputChars: Math.ceil(BROWSE_MAX_SCREENSHOT_BYTES * 1.4) + BROWSE_MAX_CHARS * 6,
  };
}

/** Options of {@link BrowserService}. */
export interface BrowserServiceDeps {
  runner: Runner;
  config: HostConfig;
  log: (line: string) => void;
  /** Resolver of the egress proxy (default: the OS resolver). */
  resolve?: EgressResolver;
}

/** Runs browses. */
export class BrowserService {
  constructor(private readonly deps: BrowserServiceDeps) {}

  /**
   * Runs one browse. A page URL the egress rules refuse ends with status `error`, code
   * `outbound_blocked`, without starting a container; one whose name does not resolve ends the
   * same way with code `dns_failed` (not a refusal: `blocked` stays empty). A page whose host
   * could not be resolved or connected to later (a redirect) ends with `dns_failed` or
   * `connect_failed` (docs/sandbox.md#the-browser-builtin).
   * Output: {@link BrowseResult} for every browse that was accepted.
   * @throws HostError 400 `invalid_input` (not an absolute http/https URL, credentials in it), and
   *   the runner's errors (409, 429 `busy`, 503 `image_unavailable` / `docker_unavailable`).
   */
  async browse(req: BrowseRequest, signal?: AbortSignal): Promise<BrowseResult> {
    const { config, runner, log } = this.deps;
    const runId = req.runId ?? randomUUID();
    const extract = req.extract ?? "text";
    const timeoutMs = Math.min(
      Math.max(req.timeoutMs ?? BROWSE_DEFAULT_TIMEOUT_MS, 1),
      MAX_SANDBOX_TIMEOUT_MS,
    );
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      throw new HostError(400, "invalid_input", "url: not an absolute URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new HostError(400, "invalid_input", `url: scheme ${url.protocol} is not allowed`);
    if (url.username !== "" || url.password !== "")
      throw new HostError(400, "invalid_input", "url: credentials in the URL are not allowed");
    const blank = {
      runId,
      url: url.href,
      title: "",
      httpStatus: null,
      extract,
      truncated: false,
    } as const;
    const port = url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
    try {
      await approveTarget(
        url.hostname,
        port,
        config.browser.allowLoopbackPorts,
        this.deps.resolve ?? osResolver,
      );
    } catch (err) {
      // A name that does not resolve is not a refusal (docs/outbound.md#failures).
      if (err instanceof EgressUnreachable) {
        return {
          ...blank,
          status: "error",
          error: { code: err.code, message: err.message },
          blocked: [],
          durationMs: 0,
        };
      }
      const reason = (err as Error).message;
      return {
        ...blank,
        status: "error",
        error: { code: "outbound_blocked", message: `Outbound request refused: ${reason}` },
        blocked: [{ target: url.href, reason }],
        durationMs: 0,
      };
    }

    const password = randomBytes(24).toString("hex");
    const dir = await createEgressDir(config);
    let proxy: EgressProxy;
    try {
      proxy = await startEgressProxy({
        socketPath: join(dir, EGRESS_SOCKET_NAME),
        allowLoopbackPorts: config.browser.allowLoopbackPorts,
        resolve: this.deps.resolve,
        log,
        password,
      });
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    try {
      const plan = browserRunPlan(config, runId, dir, timeoutMs, {
        url: url.href,
        proxyPassword: password,
        actions: req.actions ?? [],
        extract,
      });
      const run = await runner.runPlan(plan, signal);
      const blocked = [...proxy.blocked];
      const base = { ...blank, blocked, durationMs: run.durationMs };
      if (run.timedOut)
        return {
          ...base,
          status: "timeout",
          error: { code: "timeout", message: `Browse timed out after ${timeoutMs} ms` },
        };
      if (run.oomKilled)
        return {
          ...base,
          status: "error",
          error: {
            code: "oom_killed",
            message: `Chromium exceeded the memory limit (${plan.memoryMb} MB)`,
          },
        };
      const lastLine = run.stdout.trimEnd().split("\n").pop() ?? "";
      let parsed: z.infer<typeof driverOutputSchema> | undefined;
      try {
        parsed = driverOutputSchema.parse(JSON.parse(lastLine));
      } catch {
        parsed = undefined;
      }
      if (!parsed) {
        const why = run.stderr.trim().split("\n").slice(-3).join(" | ").slice(0, 500);
        log(`browse ${runId}: driver exited ${run.exitCode} without a result: ${why}`);
        return {
          ...base,
          status: "error",
          error: {
            code: "browser_failed",
            message: `The browser ended without a result (exit code ${run.exitCode})`,
          },
        };
      }
      // A page that could not load because its own host was refused, or could not be resolved
      // or connected to, is reported as such (Chromium only says its tunnel failed).
      const tunnelFailed =
        parsed.status === "error" &&
        parsed.error?.code === "navigation_failed" &&
        /ERR_TUNNEL_CONNECTION_FAILED/.test(parsed.error.message);
      const unreachable = proxy.unreachable[0];
      const error =
        tunnelFailed && blocked.length > 0
          ? { code: "outbound_blocked", message: `Outbound request refused: ${blocked[0]!.reason}` }
          : tunnelFailed && unreachable
            ? { code: unreachable.code, message: unreachable.message }
            : parsed.error;
      return { ...base, ...parsed, ...(error ? { error } : {}), runId };
    } finally {
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    }
  }
}
