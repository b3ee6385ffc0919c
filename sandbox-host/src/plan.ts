/**
 * Turns a structurally valid run request into what the runner executes, applying the host's
 * policy: image allowlist, time limit capped at 60 s, network only when the master gate
 * and the request both say so, CPU/memory within the host's bounds, env names on the allowlist.
 */
import { randomUUID } from "node:crypto";
import {
  MAX_SANDBOX_TIMEOUT_MS,
  type SandboxLanguage,
  type SandboxRunKind,
  type SandboxRunRequest,
} from "@skillgate/sandbox-protocol";
import type { HostConfig } from "./config.js";
import type { ContainerSpec, VolumeMount } from "./container.js";
import type { SandboxRuntime } from "./env-schema.js";
import { HostError } from "./errors.js";
import { BASE_ENV, commandFor, resolveImage } from "./images.js";

/** Default CPU: 100 thousandths = 0.1 CPU. */
export const DEFAULT_CPU_LIMIT = 100;
/** Default memory limit in MB (swap equals memory). */
export const DEFAULT_MEMORY_MB = 256;

/** A validated, policy-checked run. Units: ms, thousandths of a CPU, MB. */
export interface RunPlan {
  runId: string;
  /**
   * What the run is for, as metrics label it: its language for `POST /v1/run`, `browser` for a
   * browse (whose driver is a Node program, so its `language` is `node`).
   */
  kind: SandboxRunKind;
  /** Language of the program (picks the warm pool of poolable runs). */
  language: SandboxLanguage;
  image: string;
  cmd: string[];
  env: Record<string, string>;
  network: "none" | "bridge";
  cpuLimit: number;
  memoryMb: number;
  /** The program's time limit, counted from the handover of the program. */
  timeoutMs: number;
  /** Longest wait for a slot (the request's, capped by `SANDBOX_QUEUE_TIMEOUT_MS`). */
  queueTimeoutMs: number;
  /** Program text for stdin (node/python); undefined for shell. */
  input: Buffer | undefined;
  /** Whether a pre-started pooled container is equivalent to a fresh one for this run. */
  poolable: boolean;
  /** Container overrides of special runs (the browser): see {@link ContainerSpec}. */
  readOnlyBinds?: string[];
  readOnlyVolumes?: VolumeMount[];
  /**
   * Processes and threads the program may have (the browser's); default the host's limit of
   * the run's runtime (docs/sandbox.md#limits-per-runtime).
   */
  pidsLimit?: number;
  tmpfsMb?: number;
  /** Container runtime (`SANDBOX_RUNTIME` or the kind's override). */
  runtime: SandboxRuntime;
  /** /dev/shm size in bytes; default the host's. */
  shmBytes?: number;
  /** Per-stream output cap in characters; default the host's. */
  maxOutputChars?: number;
}

/**
 * Applies the host's policy to a request (already checked by `sandboxRunRequestSchema`).
 * @throws HostError 400 `invalid_input` (env name not allowed, CPU/memory out of bounds),
 *   422 `image_not_allowed`.
 */
export function planRun(req: SandboxRunRequest, config: HostConfig): RunPlan {
  const image = resolveImage(req.language, req.image, config.images, config.allowedImages);
  const userEnv = req.env ?? {};
  const refused = Object.keys(userEnv).filter((k) => !config.envAllowlist.has(k));
  if (refused.length > 0) {
    throw new HostError(
      400,
      "invalid_input",
      `Environment variables not allowed: ${refused.join(", ")}`,
    );
  }
  const cpuLimit = req.cpuLimit ?? DEFAULT_CPU_LIMIT;
  if (cpuLimit < 10 || cpuLimit > config.maxCpuLimit) {
    throw new HostError(
      400,
      "invalid_input",
      `cpuLimit must be between 10 and ${config.maxCpuLimit}`,
    );
  }
  const memoryMb = req.memoryLimit ?? DEFAULT_MEMORY_MB;
  if (memoryMb < 16 || memoryMb > config.maxMemoryMb) {
    throw new HostError(
      400,
      "invalid_input",
      `memoryLimit must be between 16 and ${config.maxMemoryMb} MB`,
    );
  }
  const network = config.networkEnabled && req.networkEnabled === true ? "bridge" : "none";
  const timeoutMs = Math.min(
    Math.max(req.timeoutMs ?? config.defaultTimeoutMs, 1),
    MAX_SANDBOX_TIMEOUT_MS,
  );
  const env = { ...BASE_ENV, ...userEnv };
  const runtime = config.runtimes[req.language];
  const poolable =
    req.language !== "shell" &&
    image === config.images[req.language] &&
    Object.keys(userEnv).length === 0 &&
    network === "none" &&
    cpuLimit === DEFAULT_CPU_LIMIT &&
    memoryMb === DEFAULT_MEMORY_MB;
  return {
    runId: req.runId ?? randomUUID(),
    kind: req.language,
    language: req.language,
    image,
    cmd: commandFor(req.language, req.command, req.args, runtime),
    env,
    network,
    cpuLimit,
    memoryMb,
    timeoutMs,
    queueTimeoutMs: Math.min(req.queueTimeoutMs ?? config.queueTimeoutMs, config.queueTimeoutMs),
    input: req.language === "shell" ? undefined : Buffer.from(req.code ?? "", "utf8"),
    poolable,
    runtime,
  };
}

/**
 * Process limits of a plan's container by runtime (docs/sandbox.md#limits-per-runtime). Under
 * runc the pids cgroup limit is the program's limit (a fork past it fails with EAGAIN). Under
 * runsc gVisor's own helper processes count against the cgroup too and reaching it kills the
 * whole sandbox (exit 2, output lost), so the cgroup limit is set high
 * (`SANDBOX_RUNSC_PIDS_LIMIT`, at least twice the program's limit) and the program is held by
 * RLIMIT_NPROC instead, which gVisor's kernel enforces with EAGAIN.
 */
export function processLimits(
  plan: Pick<RunPlan, "runtime" | "pidsLimit">,
  config: HostConfig,
): { pidsLimit: number; nproc?: number } {
  if (plan.runtime === "runc") return { pidsLimit: plan.pidsLimit ?? config.pids.runc };
  const nproc = plan.pidsLimit ?? config.pids.runscNproc;
  return { pidsLimit: Math.max(config.pids.runscCgroup, nproc * 2), nproc };
}

/**
 * The container spec of a plan. The host's instance name labels the container as this host's,
 * `slot` marks it as owned by this process, `runLabel` is the run id (or `pool`).
 */
export function containerSpec(
  plan: RunPlan,
  config: HostConfig,
  slot: string,
  runLabel: string,
): ContainerSpec {
  return {
    image: plan.image,
    cmd: plan.cmd,
    env: plan.env,
    network: plan.network,
    cpuLimit: plan.cpuLimit,
    memoryMb: plan.memoryMb,
    instance: config.instance,
    slot,
    runLabel,
    user: config.user,
    shmBytes: plan.shmBytes ?? config.shmBytes,
    readOnlyBinds: plan.readOnlyBinds,
    readOnlyVolumes: plan.readOnlyVolumes,
    runtime: plan.runtime,
    ...processLimits(plan, config),
    tmpfsMb: plan.tmpfsMb,
  };
}
