/**
 * Browser benchmark (docs/sandbox.md#the-browser-builtin), part of `npm run bench -- sandbox`:
 * median wall time of the `browser` builtin loading a local page (served on 127.0.0.1, allowed
 * through `SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS`; pool off: every browse starts a fresh container
 * and Chromium) beside a bare `docker run --rm` of the same image with the same flags and the same
 * driver loading an inline `data:` page (container + Chromium start, no proxy, no HTTP API),
 * measured interleaved. Uses the local images (`npm run sandbox:images`).
 * Environment: BENCH_BROWSER_ROUNDS (default 5).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { browserRunPlan } from "../sandbox-host/src/browser.js";
import type { HostConfig } from "../sandbox-host/src/config.js";
import { createOptions } from "../sandbox-host/src/container.js";
import { containerSpec } from "../sandbox-host/src/plan.js";
import { parseConfig } from "../workers/src/config.js";
import { createBrowserHandlers } from "../workers/src/skills/builtins/browser.js";
import type { BuiltinEnv } from "../workers/src/skills/builtins/types.js";
import type { HandlerContext, Skill } from "../workers/src/skills/types.js";
import { bareDockerRun, dockerRunArgs } from "./docker-run.js";
import { fmt, interleave, median, row } from "./stats.js";

const PAGE = "<title>Bench</title><p>Hello from the benchmark page</p>";

/** Results of {@link runBrowserBench}; times in ms. */
export interface BrowserBenchResult {
  medianMs: { bareDockerRun: number; browserSkill: number };
  ratio: number;
  rounds: number;
}

/** `docker run` arguments equal to the host's create options of a browse, and its stdin. */
function bareArgs(config: HostConfig, dir: string): { args: string[]; stdin: Buffer } {
  const plan = browserRunPlan(config, "bench", dir, 30_000, {
    url: `data:text/html,${encodeURIComponent(PAGE)}`,
    proxyPassword: "unused",
    actions: [],
    extract: "text",
  });
  const args = dockerRunArgs(createOptions(containerSpec(plan, config, "bench", "bench")));
  return { args, stdin: plan.input ?? Buffer.alloc(0) };
}

/** One bare `docker run`; rejects unless the driver reports the page's text. */
function bareRun(args: string[], stdin: Buffer): Promise<void> {
  return bareDockerRun(args, stdin, (out) => out.includes("Hello from the benchmark page"));
}

/**
 * Runs the browser benchmark against a started host and prints its rows.
 * @param config the host's configuration (its browser image and limits).
 * @param sandbox a client of that host (`SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS` must include
 *   `pagePort`).
 * @param pagePort port of the page server, from {@link startBenchPage}.
 */
export async function runBrowserBench(
  config: HostConfig,
  sandbox: BuiltinEnv["sandbox"],
  pagePort: number,
  rounds = 5,
): Promise<BrowserBenchResult> {
  const handler = createBrowserHandlers({ config: parseConfig({}), sandbox } as BuiltinEnv)
    .browser!;
  const ctx = (): HandlerContext => ({
    apiKeyId: null,
    sessionId: null,
    executionId: "bench",
    signal: new AbortController().signal,
    skill: { name: "browser" } as Skill,
    attempt: 1,
    timeoutMs: 30_000,
  });
  const skillRun = async () => {
    const out = (await handler({ url: `http://127.0.0.1:${pagePort}/` }, ctx())) as {
      text?: string;
    };
    if (!out.text?.includes("Hello from the benchmark page"))
      throw new Error(`browser skill failed: ${JSON.stringify(out)}`);
  };
  const dir = await mkdtemp(join(tmpdir(), "skillgate-bench-"));
  try {
    const { args, stdin } = bareArgs(config, dir);
    await bareRun(args, stdin);
    await skillRun();
    const samples = await interleave(
      { bare: () => bareRun(args, stdin), skill: skillRun },
      rounds,
      1,
    );
    const bare = median(samples.bare!);
    const skill = median(samples.skill!);
    console.log(
      `\nBrowser: a local page, image ${config.browser.image}, ${rounds} interleaved rounds (median wall time)`,
    );
    row("bare `docker run --rm -i` (same flags, data: page)", fmt(bare), "1.00x");
    row("browser skill via the host, pool off", fmt(skill), `${(skill / bare).toFixed(2)}x`);
    return { medianMs: { bareDockerRun: bare, browserSkill: skill }, ratio: skill / bare, rounds };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Serves the benchmark page on 127.0.0.1 (a free port). Output: the port and a closer. */
export async function startBenchPage(): Promise<{ port: number; close: () => void }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(PAGE);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
