/**
 * Sandbox host configuration, parsed once from environment variables with the zod schema of
 * env-schema.ts (the variables and their defaults: docs/configuration.md#sandbox-host), then
 * passed down as a {@link HostConfig} of derived, validated values. Nothing else in the host
 * reads `process.env`.
 */
import type { SandboxRunKind } from "@skillgate/sandbox-protocol";
import { hostEnvSchema, type SandboxRuntime } from "./env-schema.js";
import { DEFAULT_ALLOWED_IMAGES, normalizeImage } from "./images.js";

/** Where the host's spans go (docs/sandbox.md#tracing). */
export interface HostTracingConfig {
  /** The OTLP/HTTP traces URL (`<endpoint>/v1/traces`, or the traces endpoint as it is). */
  url: string;
  /** Headers of every export (e.g. `authorization` of a hosted backend); never logged. */
  headers: Record<string, string>;
  /** `service.name` of the host's spans. */
  serviceName: string;
}

/**
 * Parses `OTEL_EXPORTER_OTLP_HEADERS` (`name=value` pairs separated by commas, values
 * URL-encoded, as the OpenTelemetry specification's "OTLP Exporter Configuration" says); a pair
 * without `=` is skipped, a value that does not decode is kept as written.
 */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).trim();
    const raw = pair.slice(eq + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // Kept as written.
    }
    if (name) out[name] = value;
  }
  return out;
}

/** Parsed host configuration (derived, validated values; units in the field names/docs). */
export interface HostConfig {
  host: string;
  port: number;
  /** Label value that marks this host's containers (leftover sweeps touch only these). */
  instance: string;
  /** Accepted secrets by key id; the current key id first. */
  keys: Map<string, string>;
  maxConcurrency: number;
  maxQueue: number;
  queueTimeoutMs: number;
  poolSize: number;
  /** Normalised image per language. */
  images: { node: string; python: string; shell: string };
  /** Normalised allowlist: the default images plus `SKILLS_ALLOWED_SANDBOX_IMAGES`. */
  allowedImages: Set<string>;
  killGraceMs: number;
  maxBodyBytes: number;
  sweepIntervalMs: number;
  /** Other instance names whose containers the sweeps remove (hosts that no longer exist). */
  sweepInstances: string[];
  pullTimeoutMs: number;
  envAllowlist: Set<string>;
  user: string;
  shmBytes: number;
  maxCpuLimit: number;
  maxMemoryMb: number;
  dockerSocket?: string;
  /** Container runtime of each kind of run (docs/sandbox.md#runtimes). */
  runtimes: Record<SandboxRunKind, SandboxRuntime>;
  /** Process limits per runtime (docs/sandbox.md#limits-per-runtime). */
  pids: {
    /** Pids cgroup limit of a runc container (processes and threads of the program). */
    runc: number;
    /** Pids cgroup limit of a runsc container (gVisor's own processes included). */
    runscCgroup: number;
    /** RLIMIT_NPROC of the program in a runsc container (enforced by gVisor). */
    runscNproc: number;
  };
  /** Bearer token of `GET /metrics`; undefined: no metrics endpoint (fail closed). */
  metricsToken?: string;
  maxOutputChars: number;
  defaultTimeoutMs: number;
  networkEnabled: boolean;
  /** OTLP export of the host's spans; undefined: no tracing (docs/sandbox.md#tracing). */
  tracing?: HostTracingConfig;
  /** The `browser` builtin's runs (docs/sandbox.md#the-browser-builtin). */
  browser: {
    /** Normalised image. */
    image: string;
    memoryMb: number;
    cpuLimit: number;
    /** Directory of the per-browse egress proxy sockets; undefined: the OS temp dir. */
    socketDir?: string;
    /**
     * Named volume that holds `socketDir` (this host runs in a container and mounts it there);
     * undefined: browse directories are bind-mounted by path.
     */
    socketVolume?: string;
    /** 127.0.0.1 ports treated as public by the egress proxy. */
    allowLoopbackPorts: Set<number>;
  };
}

/** A configuration problem; the message names the variables, never their values. */
export class HostConfigError extends Error {
  override name = "HostConfigError";
}

/**
 * Parses the host configuration from a flat record (normally `process.env`).
 * @throws HostConfigError when the secret is missing or short (the host never starts without
 * one), a variable is invalid, or a language image is not on the allowlist.
 */
export function parseHostConfig(source: Record<string, string | undefined>): HostConfig {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(hostEnvSchema.shape)) {
    const value = source[key];
    if (typeof value === "string" && value.trim() !== "") picked[key] = value;
  }
  const parsed = hostEnvSchema.safeParse(picked);
  if (!parsed.success) {
    const names = parsed.error.issues.map((i) => `${i.path.join(".")} (${i.message})`);
    throw new HostConfigError(`Invalid sandbox host configuration: ${names.join(", ")}`);
  }
  const env = parsed.data;
  const keys = new Map<string, string>([[env.SANDBOX_KEY_ID, env.SANDBOX_SECRET]]);
  if (env.SANDBOX_SECRET_PREVIOUS) {
    if (env.SANDBOX_KEY_ID_PREVIOUS === env.SANDBOX_KEY_ID) {
      throw new HostConfigError("SANDBOX_KEY_ID_PREVIOUS must differ from SANDBOX_KEY_ID");
    }
    keys.set(env.SANDBOX_KEY_ID_PREVIOUS, env.SANDBOX_SECRET_PREVIOUS);
  }
  const ports = env.SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS.map(Number);
  if (ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535)) {
    throw new HostConfigError(
      "Invalid sandbox host configuration: SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS (ports 1-65535)",
    );
  }
  if (env.SANDBOX_BROWSER_SOCKET_VOLUME && !env.SANDBOX_BROWSER_SOCKET_DIR) {
    throw new HostConfigError(
      "Invalid sandbox host configuration: SANDBOX_BROWSER_SOCKET_VOLUME needs SANDBOX_BROWSER_SOCKET_DIR (where this host's container mounts that volume)",
    );
  }
  let browserImage: string;
  let images: HostConfig["images"];
  let allowedImages: Set<string>;
  try {
    allowedImages = new Set(
      [...DEFAULT_ALLOWED_IMAGES, ...env.SKILLS_ALLOWED_SANDBOX_IMAGES].map(normalizeImage),
    );
    images = {
      node: normalizeImage(env.SANDBOX_IMAGE_NODE),
      python: normalizeImage(env.SANDBOX_IMAGE_PYTHON),
      shell: normalizeImage(env.SANDBOX_IMAGE_SHELL),
    };
    browserImage = normalizeImage(env.SANDBOX_IMAGE_BROWSER);
  } catch (err) {
    throw new HostConfigError(`Invalid sandbox image: ${(err as Error).message}`);
  }
  const tracesUrl =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`
      : undefined);
  for (const [language, image] of Object.entries(images)) {
    if (!allowedImages.has(image)) {
      throw new HostConfigError(
        `SANDBOX_IMAGE_${language.toUpperCase()} (${image}) is not on the allowlist; add it to SKILLS_ALLOWED_SANDBOX_IMAGES`,
      );
    }
  }
  return {
    host: env.SANDBOX_HOST,
    port: env.SANDBOX_PORT,
    instance: env.SANDBOX_INSTANCE,
    keys,
    maxConcurrency: env.SANDBOX_MAX_CONCURRENCY,
    maxQueue: env.SANDBOX_MAX_QUEUE,
    queueTimeoutMs: env.SANDBOX_QUEUE_TIMEOUT_MS,
    poolSize: env.SANDBOX_POOL_SIZE,
    images,
    allowedImages,
    killGraceMs: env.SANDBOX_KILL_GRACE_MS,
    maxBodyBytes: env.SANDBOX_MAX_BODY_BYTES,
    sweepIntervalMs: env.SANDBOX_SWEEP_INTERVAL_MS,
    sweepInstances: [...new Set(env.SANDBOX_SWEEP_INSTANCES)].filter(
      (name) => name !== env.SANDBOX_INSTANCE,
    ),
    pullTimeoutMs: env.SANDBOX_PULL_TIMEOUT_MS,
    envAllowlist: new Set(env.SANDBOX_ENV_ALLOWLIST),
    user: env.SANDBOX_USER,
    shmBytes: env.SANDBOX_SHM_MB * 1_048_576,
    maxCpuLimit: env.SANDBOX_MAX_CPU_LIMIT,
    maxMemoryMb: env.SANDBOX_MAX_MEMORY_MB,
    dockerSocket: env.SANDBOX_DOCKER_SOCKET,
    runtimes: {
      node: env.SANDBOX_RUNTIME_NODE ?? env.SANDBOX_RUNTIME,
      python: env.SANDBOX_RUNTIME_PYTHON ?? env.SANDBOX_RUNTIME,
      shell: env.SANDBOX_RUNTIME_SHELL ?? env.SANDBOX_RUNTIME,
      browser: env.SANDBOX_RUNTIME_BROWSER ?? "runc",
    },
    pids: {
      runc: env.SANDBOX_PIDS_LIMIT,
      runscCgroup: env.SANDBOX_RUNSC_PIDS_LIMIT,
      runscNproc: Math.min(env.SANDBOX_RUNSC_NPROC, env.SANDBOX_RUNSC_PIDS_LIMIT),
    },
    metricsToken: env.METRICS_TOKEN,
    maxOutputChars: env.SKILLS_MAX_SANDBOX_OUTPUT_CHARS,
    defaultTimeoutMs: env.SKILLS_SANDBOX_TIMEOUT_MS,
    networkEnabled: env.SKILLS_SANDBOX_NETWORK_ENABLED,
    tracing: tracesUrl
      ? {
          url: tracesUrl,
          headers: parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
          serviceName: env.OTEL_SERVICE_NAME,
        }
      : undefined,
    browser: {
      image: browserImage,
      memoryMb: Math.min(env.SANDBOX_BROWSER_MEMORY_MB, env.SANDBOX_MAX_MEMORY_MB),
      cpuLimit: Math.min(env.SANDBOX_BROWSER_CPU_LIMIT, env.SANDBOX_MAX_CPU_LIMIT),
      socketDir: env.SANDBOX_BROWSER_SOCKET_DIR,
      socketVolume: env.SANDBOX_BROWSER_SOCKET_VOLUME,
      allowLoopbackPorts: new Set(ports),
    },
  };
}
