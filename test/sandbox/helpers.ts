/**
 * Shared helpers of the sandbox tests: a real sandbox host started in-process on 127.0.0.1 with
 * the local images (`npm run sandbox:images`), a signing client, raw signed requests and a view of
 * the labelled containers on the Docker engine. Docker is required: the tests fail when it is
 * unreachable, unless SKILLGATE_SKIP_DOCKER=1 is set explicitly.
 */
import { randomBytes } from "node:crypto";
import { signRequest } from "@skillgate/sandbox-protocol";
import Docker from "dockerode";
import { type HostConfig, parseHostConfig } from "../../sandbox-host/src/config.js";
import { LABEL_SANDBOX } from "../../sandbox-host/src/container.js";
import {
  type SandboxHost,
  type SandboxHostOptions,
  startSandboxHost,
} from "../../sandbox-host/src/server.js";
import { createSandboxClient, type SandboxClient } from "../../workers/src/sandbox/client.js";

/** True only when the tester opted out of Docker explicitly. */
export const SKIP_DOCKER = process.env.SKILLGATE_SKIP_DOCKER === "1";

/** The local images built by sandbox-host/images/build.sh. */
export const LOCAL_IMAGES = {
  node: "skillgate-local/node:latest",
  python: "skillgate-local/python:latest",
  shell: "skillgate-local/busybox:latest",
} as const;

/** Host environment pointing the language map and the allowlist at the local images. */
export const LOCAL_IMAGE_ENV: Record<string, string> = {
  SANDBOX_IMAGE_NODE: LOCAL_IMAGES.node,
  SANDBOX_IMAGE_PYTHON: LOCAL_IMAGES.python,
  SANDBOX_IMAGE_SHELL: LOCAL_IMAGES.shell,
  SKILLS_ALLOWED_SANDBOX_IMAGES: Object.values(LOCAL_IMAGES).join(","),
};

/** Docker engine client of the tests (DOCKER_HOST or the default socket). */
export const docker = new Docker();

/**
 * Fails (throws) unless the Docker engine answers and the local images exist; call in `beforeAll`.
 */
export async function requireDocker(): Promise<void> {
  try {
    await docker.ping();
  } catch (err) {
    throw new Error(
      `Docker engine unreachable (${(err as Error).message}); start dockerd, or set SKILLGATE_SKIP_DOCKER=1 to skip the sandbox tests`,
    );
  }
  for (const image of Object.values(LOCAL_IMAGES)) {
    try {
      await docker.getImage(image).inspect();
    } catch {
      throw new Error(`Image ${image} is missing; run \`npm run sandbox:images\``);
    }
  }
}

/** Whether the Docker engine holds `image`, asked of the engine itself. */
export async function imageOnEngine(image: string): Promise<boolean> {
  return docker
    .getImage(image)
    .inspect()
    .then(
      () => true,
      () => false,
    );
}

/** A host started for a test file, with its secret and a signing client. */
export interface TestHost {
  host: SandboxHost;
  config: HostConfig;
  secret: string;
  client: SandboxClient;
  /** Containers labelled with this host's instance name (running or not). */
  containers(): Promise<Docker.ContainerInfo[]>;
  close(): Promise<void>;
}

/** A random secret of 64 hex chars. */
export function newSecret(): string {
  return randomBytes(32).toString("hex");
}

/**
 * Starts a host on 127.0.0.1 (free port) with the local images and a unique instance name.
 * `env` overrides or adds host variables (e.g. `SANDBOX_POOL_SIZE`); `opts` adds collaborators
 * (e.g. a metrics backend).
 */
export async function startTestHost(
  name: string,
  env: Record<string, string> = {},
  opts: Omit<SandboxHostOptions, "log"> = {},
): Promise<TestHost> {
  const secret = env.SANDBOX_SECRET ?? newSecret();
  const instance = `test-${name}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const config = parseHostConfig({
    SANDBOX_HOST: "127.0.0.1",
    SANDBOX_PORT: "0",
    SANDBOX_INSTANCE: instance,
    ...LOCAL_IMAGE_ENV,
    ...env,
    SANDBOX_SECRET: secret,
  });
  const host = await startSandboxHost(config, { ...opts, log: () => {} });
  const client = createSandboxClient({
    baseUrl: host.url,
    secret,
    keyId: config.keys.keys().next().value,
  });
  const containers = () =>
    docker.listContainers({
      all: true,
      filters: JSON.stringify({ label: [`${LABEL_SANDBOX}=${instance}`] }),
    });
  return { host, config, secret, client, containers, close: () => host.close() };
}

/** Every container carrying the sandbox label, whatever the instance. */
export function allLabelledContainers(): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: JSON.stringify({ label: [LABEL_SANDBOX] }) });
}

/** Options of {@link signedFetch}: what to sign, and what to send instead (to tamper). */
export interface SignedFetchOptions {
  method?: "GET" | "POST";
  body?: string;
  secret: string;
  keyId?: string;
  timestamp?: number;
  nonce?: string;
  /** Send this body instead of the signed one. */
  sendBody?: string;
  /** Send to this path instead of the signed one. */
  sendPath?: string;
  /** Headers to drop or replace after signing. */
  headers?: Record<string, string | null>;
}

/** Sends a request signed per @skillgate/sandbox-protocol, optionally tampered. Output: status, JSON body, headers. */
export async function signedFetch(
  baseUrl: string,
  path: string,
  opts: SignedFetchOptions,
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const method = opts.method ?? (opts.body === undefined ? "GET" : "POST");
  const signed = await signRequest({
    secret: opts.secret,
    keyId: opts.keyId ?? "k1",
    method,
    url: path,
    body: opts.body ?? "",
    timestamp: opts.timestamp,
    nonce: opts.nonce,
  });
  const headers: Record<string, string> = { ...signed, "content-type": "application/json" };
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v === null) delete headers[k];
    else headers[k] = v;
  }
  const body = opts.sendBody ?? opts.body;
  const res = await fetch(`${baseUrl}${opts.sendPath ?? path}`, {
    method,
    headers,
    body: method === "GET" ? undefined : body,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/**
 * Set by `.ci/run` (which registers gVisor with the engine): the runsc legs of the sandbox suites
 * must run, so a missing runtime fails them instead of skipping them.
 */
export const REQUIRE_RUNSC = process.env.CI_REQUIRE_RUNSC === "1";

/** Whether the Docker engine lists `runtime` among its container runtimes (`docker info`). */
export async function runtimeRegistered(runtime: string): Promise<boolean> {
  try {
    const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
    return Object.hasOwn(info.Runtimes ?? {}, runtime);
  } catch {
    return false;
  }
}

/**
 * The container runtimes the sandbox suites run under: runc always, runsc (gVisor) when the
 * engine has it registered. With {@link REQUIRE_RUNSC} a missing runsc throws (the file fails).
 */
export async function sandboxTestRuntimes(): Promise<Array<"runc" | "runsc">> {
  if (SKIP_DOCKER) return ["runc"];
  if (await runtimeRegistered("runsc")) return ["runc", "runsc"];
  if (REQUIRE_RUNSC)
    throw new Error(
      "CI_REQUIRE_RUNSC=1 but the Docker engine has no runsc runtime; register gVisor in the daemon configuration (see docs/sandbox.md#installing-gvisor)",
    );
  return ["runc"];
}

/** Whether the kernel that served a container was gVisor's: its `dmesg` starts with this line. */
export const GVISOR_DMESG = /Starting gVisor/;
