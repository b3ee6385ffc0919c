/**
 * The sandbox host's environment variables as a zod schema (docs/configuration.md#sandbox-host):
 * names, defaults, bounds and the rules of each value. config.ts parses the environment with it
 * once and derives the host configuration.
 */
import { isAbsolute } from "node:path";
import { MAX_SANDBOX_TIMEOUT_MS } from "@skillgate/sandbox-protocol";
import { z } from "zod";
import { DEFAULT_LANGUAGE_IMAGES } from "./images.js";

const bool = z
  .union([z.boolean(), z.string()])
  .transform((v) =>
    typeof v === "boolean" ? v : ["1", "true", "yes", "on"].includes(v.trim().toLowerCase()),
  );

const int = (def: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(def);

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const list = (def: string[] = []) =>
  z
    .string()
    .optional()
    .transform((v) =>
      v === undefined
        ? def
        : v
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
    );

/**
 * Longest socket directory in bytes: a socket's path (`<dir>/<32 hex>/proxy.sock`, 44 bytes more)
 * must fit the 108-byte `sun_path` of unix(7) with its terminating NUL.
 */
const MAX_SOCKET_DIR_BYTES = 63;

/** A Docker volume name (the engine's own rule, plus a length bound). */
const VOLUME_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{1,254}$/;

const keyId = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/);
/** A secret must be long enough to resist guessing; shorter ones refuse to start (fail closed). */
const secret = z.string().min(16, "must be at least 16 characters");

/** Container runtimes the host can use (docs/sandbox.md#runtimes). */
export const SANDBOX_RUNTIMES = ["runc", "runsc"] as const;
/** A container runtime: `runc` (Docker's default) or `runsc` (gVisor). */
export type SandboxRuntime = (typeof SANDBOX_RUNTIMES)[number];
const runtime = z.enum(SANDBOX_RUNTIMES);
const runtimeOverride = optionalString.pipe(runtime.optional());

/** Zod schema of the host environment; keys are the variable names. */
export const hostEnvSchema = z.object({
  /** Listen address. */
  SANDBOX_HOST: z.string().default("127.0.0.1"),
  /** Listen port (0 = any free port). */
  SANDBOX_PORT: int(20129, 0, 65535),
  /** Current shared HMAC secret (required). */
  SANDBOX_SECRET: secret,
  SANDBOX_KEY_ID: keyId.default("k1"),
  /** Previous secret, still accepted during a rotation, under its own key id. */
  SANDBOX_SECRET_PREVIOUS: optionalString.pipe(secret.optional()),
  SANDBOX_KEY_ID_PREVIOUS: keyId.default("k0"),
  /** Name of this host on the Docker engine (label value); hosts sharing an engine need distinct names. */
  SANDBOX_INSTANCE: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .default("default"),
  /** Runs executing at once; more wait in the queue. */
  SANDBOX_MAX_CONCURRENCY: int(4, 1, 256),
  /** Runs waiting for a slot; past it the host answers 429 with Retry-After. */
  SANDBOX_MAX_QUEUE: int(16, 0, 10_000),
  /** Longest wait in the queue in ms before a run is refused with 429. */
  SANDBOX_QUEUE_TIMEOUT_MS: int(30_000, 100, 600_000),
  /** Pre-started containers per node/python image (0 = pool off). */
  SANDBOX_POOL_SIZE: int(0, 0, 64),
  SANDBOX_IMAGE_NODE: z.string().default(DEFAULT_LANGUAGE_IMAGES.node),
  SANDBOX_IMAGE_PYTHON: z.string().default(DEFAULT_LANGUAGE_IMAGES.python),
  SANDBOX_IMAGE_SHELL: z.string().default(DEFAULT_LANGUAGE_IMAGES.shell),
  /** Grace between SIGTERM and SIGKILL on timeout, in ms. */
  SANDBOX_KILL_GRACE_MS: int(500, 0, 10_000),
  /** Largest accepted request body in bytes (checked before hashing). */
  SANDBOX_MAX_BODY_BYTES: int(1_048_576, 1024, 16 * 1_048_576),
  /** Interval of the leftover-container sweep in ms. */
  SANDBOX_SWEEP_INTERVAL_MS: int(60_000, 1000, 3_600_000),
  /**
   * Instance names (comma-separated) of hosts that no longer exist: their leftover containers are
   * removed by this host's sweeps too. This host's own name is ignored here.
   */
  SANDBOX_SWEEP_INSTANCES: list(),
  /** Time allowed to pull a missing allowlisted image, in ms. */
  SANDBOX_PULL_TIMEOUT_MS: int(120_000, 1000, 3_600_000),
  /** Variable names a run may pass into its container. */
  SANDBOX_ENV_ALLOWLIST: list(["LANG", "LC_ALL", "TZ"]),
  /** `uid:gid` the code runs as; tmpfs mounts are owned by it. */
  SANDBOX_USER: z
    .string()
    .regex(/^\d+:\d+$/)
    .default("65534:65534"),
  /** Size of /dev/shm in MB. */
  SANDBOX_SHM_MB: int(16, 1, 1024),
  /** Upper bounds a run may ask for: CPU in thousandths, memory in MB. */
  SANDBOX_MAX_CPU_LIMIT: int(1000, 10, 64_000),
  SANDBOX_MAX_MEMORY_MB: int(1024, 16, 65_536),
  /**
   * Container runtime of every run (`runc` or `runsc`, gVisor); the per-kind variables below
   * override it for one kind of run. A runtime other than `runc` must be registered with the
   * Docker engine (`runtimes` in its daemon configuration), or the host refuses to start.
   */
  SANDBOX_RUNTIME: runtime.default("runc"),
  SANDBOX_RUNTIME_NODE: runtimeOverride,
  SANDBOX_RUNTIME_PYTHON: runtimeOverride,
  SANDBOX_RUNTIME_SHELL: runtimeOverride,
  /** Runtime of the browser builtin; default runc whatever SANDBOX_RUNTIME says. */
  SANDBOX_RUNTIME_BROWSER: runtimeOverride,
  /** Processes and threads of a run under runc (the container's pids cgroup limit). */
  SANDBOX_PIDS_LIMIT: int(100, 8, 65_536),
  /**
   * Pids cgroup limit of a container under runsc: gVisor's own processes (sentry, gofer, one
   * ptrace stub per guest process) count against it, and reaching it kills the whole sandbox,
   * so it stays well above what the program may start.
   */
  SANDBOX_RUNSC_PIDS_LIMIT: int(1024, 64, 65_536),
  /**
   * Processes and threads of a run under runsc (RLIMIT_NPROC, enforced by gVisor's kernel: a
   * fork past it fails with EAGAIN).
   */
  SANDBOX_RUNSC_NPROC: int(32, 4, 4096),
  /** Docker engine socket; default: DOCKER_HOST or /var/run/docker.sock. */
  SANDBOX_DOCKER_SOCKET: optionalString,
  /** Bearer token that may read `/metrics`; unset: `/metrics` is not served. */
  METRICS_TOKEN: optionalString.pipe(secret.optional()),
  /** Image of the `browser` builtin (Chromium + Node + playwright-core). */
  SANDBOX_IMAGE_BROWSER: z.string().default("skillgate-local/browser:latest"),
  /** Memory limit of a browser run in MB (Chromium needs a few hundred). */
  SANDBOX_BROWSER_MEMORY_MB: int(768, 128, 65_536),
  /** CPU of a browser run in thousandths of a CPU. */
  SANDBOX_BROWSER_CPU_LIMIT: int(1000, 100, 64_000),
  /**
   * Directory of the egress proxies' Unix sockets (one per browse), absolute. Without
   * `SANDBOX_BROWSER_SOCKET_VOLUME` each browse's subdirectory is bind-mounted into its browser
   * container, so it must be a path of the machine that runs the Docker engine.
   */
  SANDBOX_BROWSER_SOCKET_DIR: optionalString.pipe(
    z
      .string()
      .refine(isAbsolute, "must be an absolute path")
      .refine(
        (dir) => Buffer.byteLength(dir) <= MAX_SOCKET_DIR_BYTES,
        `at most ${MAX_SOCKET_DIR_BYTES} bytes: a Unix socket path is limited to 107`,
      )
      .optional(),
  ),
  /**
   * Named Docker volume mounted at `SANDBOX_BROWSER_SOCKET_DIR` in this host's own container:
   * browser containers then mount that volume by name instead of a host path (a host that runs
   * in a container, docs/sandbox.md#the-browser-builtin).
   */
  SANDBOX_BROWSER_SOCKET_VOLUME: optionalString.pipe(
    z
      .string()
      .regex(
        VOLUME_NAME,
        "must be a Docker volume name: 2-255 of A-Z a-z 0-9 _ . -, starting with a letter or digit",
      )
      .optional(),
  ),
  /**
   * Ports of 127.0.0.1 the egress proxy treats as public (local development and tests only);
   * every other private, loopback or link-local target stays refused.
   */
  SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS: list(),
  SKILLS_MAX_SANDBOX_OUTPUT_CHARS: int(100_000, 1, 50_000_000),
  SKILLS_SANDBOX_TIMEOUT_MS: int(10_000, 100, MAX_SANDBOX_TIMEOUT_MS),
  SKILLS_SANDBOX_NETWORK_ENABLED: bool.default(false),
  SKILLS_ALLOWED_SANDBOX_IMAGES: list(),
  /**
   * OpenTelemetry (docs/sandbox.md#tracing; the standard variables of the OpenTelemetry
   * specification, "OTLP Exporter Configuration"): the OTLP/HTTP base URL (`/v1/traces` is
   * appended), or the traces URL itself; unset, no span is made and no exporter exists.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.pipe(z.string().url().optional()),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalString.pipe(z.string().url().optional()),
  /** Headers of the OTLP export, `name=value` pairs separated by commas (values URL-encoded). */
  OTEL_EXPORTER_OTLP_HEADERS: optionalString,
  OTEL_SERVICE_NAME: z.string().min(1).max(200).default("skillgate-sandbox-host"),
});
