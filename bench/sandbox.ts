/**
 * Sandbox benchmark (docs/sandbox.md): median wall time of an `eval_code`-equivalent python `print(6*7)`
 * run through the sandbox host's signed HTTP API, with the warm pool off and on, beside a bare
 * `docker run --rm` of the same image, flags and code, measured interleaved in one run; their
 * ratios; executions per second with 8 concurrent callers; and the `browser` builtin on a local
 * page beside a bare `docker run` of the browser image (bench/browser.ts).
 * Uses the local images (`npm run sandbox:images`). Run: `npx tsx bench/sandbox.ts`.
 * Environment: BENCH_SANDBOX_ROUNDS (default 15), BENCH_SANDBOX_CONCURRENT_RUNS (default 48),
 * BENCH_BROWSER_ROUNDS (default 5); BENCH_SANDBOX_ONLY=runtimes (run directly) measures only the
 * per-runtime comparison and its breakdown of a pooled run.
 */
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import type { SandboxRunRequest } from "@skillgate/sandbox-protocol";
import { type HostConfig, parseHostConfig } from "../sandbox-host/src/config.js";
import { createOptions } from "../sandbox-host/src/container.js";
import {
  type ContainerPhase,
  type HostMetrics,
  noopHostMetrics,
} from "../sandbox-host/src/metrics.js";
import { containerSpec, planRun } from "../sandbox-host/src/plan.js";
import { type SandboxHost, startSandboxHost } from "../sandbox-host/src/server.js";
import { createSandboxClient, type SandboxClient } from "../workers/src/sandbox/client.js";
import { createMultiHostClient } from "../workers/src/sandbox/multi-host.js";
import { type BenchApi, startBenchApi } from "./api.js";
import { type BrowserBenchResult, runBrowserBench, startBenchPage } from "./browser.js";
import { bareDockerRun, dockerRunArgs } from "./docker-run.js";
import { fmt, interleave, median, row } from "./stats.js";

const CODE = "print(6*7)";
const REQUEST: SandboxRunRequest = { language: "python", code: CODE, timeoutMs: 10_000 };
const CONCURRENCY = 8;

const LOCAL_ENV: Record<string, string> = {
  SANDBOX_IMAGE_NODE: "skillgate-local/node:latest",
  SANDBOX_IMAGE_PYTHON: "skillgate-local/python:latest",
  SANDBOX_IMAGE_SHELL: "skillgate-local/busybox:latest",
  SKILLS_ALLOWED_SANDBOX_IMAGES:
    "skillgate-local/node:latest,skillgate-local/python:latest,skillgate-local/busybox:latest",
};

/** Results of {@link runSandboxBench}; times in ms, throughput in executions per second. */
export interface SandboxBenchResult {
  medianMs: {
    bareDockerRun: number;
    hostPoolOff: number;
    hostPoolOn: number;
    apiPoolOff: number;
    apiPoolOn: number;
  };
  ratio: {
    poolOffVsBare: number;
    poolOnVsBare: number;
    apiPoolOffVsBare: number;
    apiPoolOnVsBare: number;
  };
  /** Share of pool-on runs a pre-started container served (0..1). */
  poolHitRate: number;
  executionsPerSecond: {
    poolOff: number;
    poolOn: number;
    apiPoolOff: number;
    apiPoolOn: number;
    /** Through the API over two pool-on hosts on the same engine, twice the callers. */
    apiTwoHosts: number;
  };
  rounds: number;
  /** Bare `docker run`, pool off and pool on per container runtime (runc, runsc). */
  runtimes: RuntimeBenchResult[];
  /** The browser builtin beside a bare `docker run` of its image (bench/browser.ts). */
  browser: BrowserBenchResult;
}

/** `docker run` CLI arguments equivalent to the host's HostConfig for a default python run. */
function pythonRunArgs(config: HostConfig): string[] {
  return dockerRunArgs(
    createOptions(containerSpec(planRun(REQUEST, config), config, "bench", "bench")),
  );
}

/** One bare `docker run`; rejects unless it prints 42. */
function bareRun(args: string[]): Promise<void> {
  return bareDockerRun(args, CODE, (out) => out === "42\n");
}

async function hostRun(
  client: SandboxClient,
  pooledHits?: { hits: number; total: number },
): Promise<void> {
  const r = await client.run(REQUEST);
  if (r.exitCode !== 0 || r.stdout !== "42\n")
    throw new Error(`sandbox run failed: ${JSON.stringify(r)}`);
  if (pooledHits) {
    pooledHits.total++;
    if (r.pooled) pooledHits.hits++;
  }
}

/** One `eval_code` execution end to end through the REST API; rejects unless stdout is 42. */
async function apiRun(api: BenchApi): Promise<void> {
  const { execution } = await api.post("/api/skills/executions", {
    skillName: "eval_code",
    input: { language: "python", code: CODE },
  });
  if (execution.status !== "success" || execution.output?.stdout !== "42\n") {
    throw new Error(`eval_code through the API failed: ${JSON.stringify(execution)}`);
  }
}

/** Starts a sandbox host with the local images and `env`; @returns it, a signing client and its config. */
export async function startHost(
  name: string,
  env: Record<string, string>,
  metrics?: HostMetrics,
): Promise<{ host: SandboxHost; client: SandboxClient; config: HostConfig }> {
  const secret = randomBytes(32).toString("hex");
  const config = parseHostConfig({
    ...LOCAL_ENV,
    SANDBOX_PORT: "0",
    SANDBOX_INSTANCE: `bench-${name}-${process.pid}`,
    SANDBOX_MAX_CONCURRENCY: String(CONCURRENCY),
    SANDBOX_MAX_QUEUE: "64",
    ...env,
    SANDBOX_SECRET: secret,
  });
  const host = await startSandboxHost(config, { log: () => {}, metrics });
  return { host, client: createSandboxClient({ baseUrl: host.url, secret }), config };
}

/** One runtime's figures: medians in ms and ratios to a bare `docker run` of that runtime. */
export interface RuntimeBenchResult {
  runtime: "runc" | "runsc";
  medianMs: { bareDockerRun: number; hostPoolOff: number; hostPoolOn: number };
  ratio: { poolOffVsBare: number; poolOnVsBare: number };
  /**
   * Median ms of each container step of the pool-on runs (metrics.ts `ContainerPhase`): those on
   * the request path (handover, program, output, drain, inspect), and those the host does after
   * the answer (remove, and the replacement's create and start).
   */
  poolOnPhasesMs: Partial<Record<ContainerPhase, number>>;
  /**
   * Median ms of a pool-on run outside its container steps: the signed HTTP exchange, the
   * streamed start acknowledgement, planning, the slot and the pool take.
   */
  poolOnRestMs: number;
  poolHitRate: number;
}

/** Whether the Docker engine lists `runtime` (`docker info`'s runtimes). */
async function engineHas(runtime: string): Promise<boolean> {
  const { DockerodeClient } = await import("../sandbox-host/src/dockerode-client.js");
  return (await DockerodeClient.connect().runtimes()).includes(runtime);
}

/** Steps of a pooled run that lie on its request path, in the order they happen. */
const REQUEST_PATH_PHASES = ["handover", "program", "drain", "inspect"] as const;

/**
 * Bare `docker run`, pool off and pool on for one runtime, interleaved (one of each per round),
 * with the pool-on runs' step breakdown. Before each pool-on run the bench waits, untimed, until
 * the pool is full again, so every pool-on run is served warm and its time holds no wait for the
 * pool; the steps the host does after the answer (remove, the replacement's create and start)
 * are reported apart.
 */
async function runtimeLeg(runtime: "runc" | "runsc", rounds: number): Promise<RuntimeBenchResult> {
  const phases: Partial<Record<ContainerPhase, number[]>> = {};
  let current: Partial<Record<ContainerPhase, number>> | undefined;
  const metrics: HostMetrics = {
    ...noopHostMetrics,
    observeContainerPhase(phase, ms) {
      if (current) current[phase] = (current[phase] ?? 0) + ms;
      else if (phase === "remove" || phase === "create" || phase === "start") {
        phases[phase] ??= [];
        phases[phase].push(ms);
      }
    },
  };
  const off = await startHost(`${runtime}-off`, {
    SANDBOX_RUNTIME: runtime,
    SANDBOX_POOL_SIZE: "0",
  });
  const on = await startHost(
    `${runtime}-on`,
    { SANDBOX_RUNTIME: runtime, SANDBOX_POOL_SIZE: "2" },
    metrics,
  );
  try {
    const image = on.config.images.python;
    const args = pythonRunArgs(off.config);
    await waitForPool(on.host, image, 2);
    await bareRun(args);
    await hostRun(off.client);
    await hostRun(on.client);
    const hits = { hits: 0, total: 0 };
    const samples: { bare: number[]; off: number[]; on: number[] } = { bare: [], off: [], on: [] };
    const rest: number[] = [];
    const timedRun = async (run: () => Promise<void>): Promise<number> => {
      const t0 = performance.now();
      await run();
      return performance.now() - t0;
    };
    for (let r = 0; r < rounds; r++) {
      samples.bare.push(await timedRun(() => bareRun(args)));
      samples.off.push(await timedRun(() => hostRun(off.client)));
      await waitForPool(on.host, image, 2);
      const steps: Partial<Record<ContainerPhase, number>> = {};
      current = steps;
      let total: number;
      try {
        total = await timedRun(() => hostRun(on.client, hits));
      } finally {
        current = undefined;
      }
      samples.on.push(total);
      for (const [phase, ms] of Object.entries(steps) as [ContainerPhase, number][]) {
        phases[phase] ??= [];
        phases[phase].push(ms);
      }
      rest.push(total - REQUEST_PATH_PHASES.reduce((sum, phase) => sum + (steps[phase] ?? 0), 0));
    }
    const bare = median(samples.bare);
    const poolOff = median(samples.off);
    const poolOn = median(samples.on);
    const poolOnPhasesMs: Partial<Record<ContainerPhase, number>> = {};
    for (const [phase, list] of Object.entries(phases) as [ContainerPhase, number[]][])
      poolOnPhasesMs[phase] = median(list);
    return {
      runtime,
      medianMs: { bareDockerRun: bare, hostPoolOff: poolOff, hostPoolOn: poolOn },
      ratio: { poolOffVsBare: poolOff / bare, poolOnVsBare: poolOn / bare },
      poolOnPhasesMs,
      poolOnRestMs: median(rest),
      poolHitRate: hits.total ? hits.hits / hits.total : 0,
    };
  } finally {
    await Promise.all([off.host.close(), on.host.close()]);
  }
}

/**
 * The per-runtime comparison: runc, and runsc (gVisor) when the engine has it, printed side by
 * side with the breakdown of a pooled run. Output: one result per runtime measured.
 */
export async function runRuntimeBench(rounds: number): Promise<RuntimeBenchResult[]> {
  const runtimes: Array<"runc" | "runsc"> = ["runc"];
  if (await engineHas("runsc")) runtimes.push("runsc");
  const results: RuntimeBenchResult[] = [];
  for (const runtime of runtimes) results.push(await runtimeLeg(runtime, rounds));
  const load = (await import("node:os")).loadavg().map((l) => l.toFixed(2));
  console.log(
    `\nSandbox per runtime: python print(6*7), ${rounds} interleaved rounds (median wall time), ` +
      `load average ${load.join(" ")}`,
  );
  row("", ...results.map((r) => r.runtime));
  row(
    "bare `docker run --rm -i` (same flags)",
    ...results.map((r) => fmt(r.medianMs.bareDockerRun)),
  );
  row("host HTTP API, pool off", ...results.map((r) => fmt(r.medianMs.hostPoolOff)));
  row("host HTTP API, pool on", ...results.map((r) => fmt(r.medianMs.hostPoolOn)));
  row("pool off / bare", ...results.map((r) => `${r.ratio.poolOffVsBare.toFixed(2)}x`));
  row(
    "pool on / bare (goal runc <= 0.10x)",
    ...results.map((r) => `${r.ratio.poolOnVsBare.toFixed(2)}x`),
  );
  row("pool hits", ...results.map((r) => `${(r.poolHitRate * 100).toFixed(0)}%`));
  const cell = (r: RuntimeBenchResult, phase: ContainerPhase) =>
    r.poolOnPhasesMs[phase] === undefined ? "-" : fmt(r.poolOnPhasesMs[phase]!);
  console.log("  a pooled run, on the request path (medians of each step):");
  row("  HTTP, signing, start ack, take", ...results.map((r) => fmt(r.poolOnRestMs)));
  row("  handover (ack out → program sent)", ...results.map((r) => cell(r, "handover")));
  row("  program: sent → first output", ...results.map((r) => cell(r, "output")));
  row("  program: sent → exit reported", ...results.map((r) => cell(r, "program")));
  row("  drain (exit → output stream end)", ...results.map((r) => cell(r, "drain")));
  row("  inspect (exit code, OOM flag)", ...results.map((r) => cell(r, "inspect")));
  console.log("  after the answer (off the request path):");
  row("  remove", ...results.map((r) => cell(r, "remove")));
  row("  replacement: create + attach", ...results.map((r) => cell(r, "create")));
  row("  replacement: start", ...results.map((r) => cell(r, "start")));
  if (runtimes.length === 1) row("runsc", "not registered with the engine: not measured");
  return results;
}

async function waitForPool(host: SandboxHost, image: string, size: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await host.health()).pool[image] !== size && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Executions per second of `total` calls of `run` issued by `callers` concurrent callers. */
async function throughput(
  run: () => Promise<void>,
  total: number,
  callers = CONCURRENCY,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < total) {
        next++;
        await run();
      }
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

/**
 * Runs the sandbox benchmark and prints its table. Needs Docker and the local images.
 * @param rounds interleaved rounds (one bare run, one pool-off run, one pool-on run each).
 * @param concurrentRuns runs issued for each throughput figure.
 * @returns medians, ratios, pool hit rate and throughput.
 */
export async function runSandboxBench(
  rounds = Number(process.env.BENCH_SANDBOX_ROUNDS ?? 15),
  concurrentRuns = Number(process.env.BENCH_SANDBOX_CONCURRENT_RUNS ?? 48),
): Promise<SandboxBenchResult> {
  const page = await startBenchPage();
  const off = await startHost("off", {
    SANDBOX_POOL_SIZE: "0",
    SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS: String(page.port),
  });
  const on = await startHost("on", { SANDBOX_POOL_SIZE: String(CONCURRENCY) });
  const apiOff = await startBenchApi({}, { sandbox: off.client });
  const apiOn = await startBenchApi({}, { sandbox: on.client });
  const on2 = await startHost("on2", { SANDBOX_POOL_SIZE: String(CONCURRENCY) });
  const apiTwo = await startBenchApi(
    {},
    {
      sandbox: createMultiHostClient([
        { url: on.host.url, client: on.client },
        { url: on2.host.url, client: on2.client },
      ]),
    },
  );
  try {
    const image = on.config.images.python;
    const args = pythonRunArgs(off.config);
    await waitForPool(on.host, image, CONCURRENCY);
    for (let i = 0; i < 2; i++) {
      await bareRun(args);
      await hostRun(off.client);
      await hostRun(on.client);
      await apiRun(apiOff);
      await apiRun(apiOn);
    }
    await waitForPool(on.host, image, CONCURRENCY);
    const hits = { hits: 0, total: 0 };
    const samples = await interleave(
      {
        bare: () => bareRun(args),
        off: () => hostRun(off.client),
        on: () => hostRun(on.client, hits),
        apiOff: () => apiRun(apiOff),
        apiOn: () => apiRun(apiOn),
      },
      rounds,
      1,
    );
    const bare = median(samples.bare!);
    const poolOff = median(samples.off!);
    const poolOn = median(samples.on!);
    const viaApiOff = median(samples.apiOff!);
    const viaApiOn = median(samples.apiOn!);
    const offRate = await throughput(() => hostRun(off.client), concurrentRuns);
    await waitForPool(on.host, image, CONCURRENCY);
    const onRate = await throughput(() => hostRun(on.client), concurrentRuns);
    const apiOffRate = await throughput(() => apiRun(apiOff), concurrentRuns);
    await waitForPool(on.host, image, CONCURRENCY);
    const apiOnRate = await throughput(() => apiRun(apiOn), concurrentRuns);
    await waitForPool(on.host, image, CONCURRENCY);
    await waitForPool(on2.host, image, CONCURRENCY);
    const apiTwoRate = await throughput(() => apiRun(apiTwo), concurrentRuns * 2, CONCURRENCY * 2);
    const result: SandboxBenchResult = {
      medianMs: {
        bareDockerRun: bare,
        hostPoolOff: poolOff,
        hostPoolOn: poolOn,
        apiPoolOff: viaApiOff,
        apiPoolOn: viaApiOn,
      },
      ratio: {
        poolOffVsBare: poolOff / bare,
        poolOnVsBare: poolOn / bare,
        apiPoolOffVsBare: viaApiOff / bare,
        apiPoolOnVsBare: viaApiOn / bare,
      },
      poolHitRate: hits.total ? hits.hits / hits.total : 0,
      executionsPerSecond: {
        poolOff: offRate,
        poolOn: onRate,
        apiPoolOff: apiOffRate,
        apiPoolOn: apiOnRate,
        apiTwoHosts: apiTwoRate,
      },
      rounds,
      runtimes: [],
      browser: { medianMs: { bareDockerRun: 0, browserSkill: 0 }, ratio: 0, rounds: 0 },
    };
    console.log(
      `\nSandbox: python print(6*7), image ${image}, ${rounds} interleaved rounds (median wall time)`,
    );
    row("bare `docker run --rm -i` (same flags)", fmt(bare), "1.00x");
    row("host HTTP API, pool off", fmt(poolOff), `${result.ratio.poolOffVsBare.toFixed(2)}x`);
    row(
      "host HTTP API, pool on",
      fmt(poolOn),
      `${result.ratio.poolOnVsBare.toFixed(2)}x`,
      `hits ${(result.poolHitRate * 100).toFixed(0)}%`,
    );
    row(
      "eval_code end to end through the API, pool off",
      fmt(viaApiOff),
      `${result.ratio.apiPoolOffVsBare.toFixed(2)}x`,
    );
    row(
      "eval_code end to end through the API, pool on",
      fmt(viaApiOn),
      `${result.ratio.apiPoolOnVsBare.toFixed(2)}x`,
    );
    row("targets", "API pool off ≤ 1.15x", "API pool on ≤ 0.5x");
    row(`throughput via API, ${CONCURRENCY} callers, pool off`, `${apiOffRate.toFixed(1)} exec/s`);
    row(`throughput via API, ${CONCURRENCY} callers, pool on`, `${apiOnRate.toFixed(1)} exec/s`);
    row(
      `throughput via API, two hosts, ${CONCURRENCY * 2} callers`,
      `${apiTwoRate.toFixed(1)} exec/s`,
      "same engine",
    );
    row(`throughput, ${CONCURRENCY} concurrent callers, pool off`, `${offRate.toFixed(1)} exec/s`);
    row(`throughput, ${CONCURRENCY} concurrent callers, pool on`, `${onRate.toFixed(1)} exec/s`);
    result.runtimes = await runRuntimeBench(rounds);
    result.browser = await runBrowserBench(
      off.config,
      off.client,
      page.port,
      Number(process.env.BENCH_BROWSER_ROUNDS ?? 5),
    );
    return result;
  } finally {
    apiOff.close();
    apiOn.close();
    apiTwo.close();
    page.close();
    await Promise.all([off.host.close(), on.host.close(), on2.host.close()]);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rounds = Number(process.env.BENCH_SANDBOX_ROUNDS ?? 15);
  const runs = Number(process.env.BENCH_SANDBOX_CONCURRENT_RUNS ?? 48);
  const work =
    process.env.BENCH_SANDBOX_ONLY === "runtimes"
      ? runRuntimeBench(rounds)
      : runSandboxBench(rounds, runs);
  work.catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
