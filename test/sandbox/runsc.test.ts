/**
 * gVisor as the sandbox runtime (docs/sandbox.md#runtimes), against a real host, real Docker and
 * the engine's `runsc` runtime: `eval_code` (python, node) and `execute_command` run through the
 * API's builtins, and each one proves from inside its container that gVisor's kernel served it.
 * Health and `/metrics` name each kind's runtime. Skipped only when the engine has no runsc and
 * CI_REQUIRE_RUNSC is unset (`.ci/run` sets it, so CI cannot skip).
 */
import type { SandboxRunResult } from "@skillgate/sandbox-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABEL_RUN } from "../../sandbox-host/src/container.js";
import { createPrometheusHostMetrics } from "../../sandbox-host/src/prometheus.js";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { parseConfig } from "../../workers/src/config.js";
import { sandboxClientFromConfig } from "../../workers/src/sandbox/client.js";
import { createSandboxHandlers } from "../../workers/src/skills/builtins/sandbox.js";
import type { HandlerContext, Skill } from "../../workers/src/skills/types.js";
import {
  docker,
  GVISOR_DMESG,
  requireDocker,
  sandboxTestRuntimes,
  startTestHost,
  type TestHost,
} from "./helpers.js";

const HAS_RUNSC = (await sandboxTestRuntimes()).includes("runsc");

const skill = (name: string): Skill => ({
  id: `builtin-${name}`,
  name,
  version: "1.0.0",
  description: "",
  schema: { input: { type: "object" } },
  handlerCode: name,
  handler: null,
  instructions: null,
  enabled: true,
  mode: "auto",
  policy: "hybrid",
  sourceProvider: "builtin",
  sourceRef: null,
  tags: [],
  installCount: 0,
  timeoutMs: null,
  autoUpgrade: null,
  apiKeyId: null,
  createdAt: new Date(0).toISOString(),
  updatedAt: new Date(0).toISOString(),
});

const ctxOf = (name: string): HandlerContext => ({
  apiKeyId: null,
  sessionId: null,
  executionId: `execution-${name}`,
  signal: new AbortController().signal,
  skill: skill(name),
  attempt: 1,
  timeoutMs: 65_000,
});

describe.skipIf(!HAS_RUNSC)("sandbox runs under gVisor (SANDBOX_RUNTIME=runsc)", () => {
  let t: TestHost;
  let handlers: ReturnType<typeof createSandboxHandlers>;
  const metricsToken = "m".repeat(32);

  beforeAll(async () => {
    await requireDocker();
    t = await startTestHost(
      "runsc",
      { SANDBOX_RUNTIME: "runsc", METRICS_TOKEN: metricsToken },
      { metrics: createPrometheusHostMetrics({ defaultMetrics: false }) },
    );
    const config = parseConfig({
      SANDBOX_URL: t.host.url,
      SANDBOX_SECRET: t.secret,
      SANDBOX_KEY_ID: "k1",
    });
    handlers = createSandboxHandlers({
      cache: new MemoryCache(),
      config,
      sandbox: sandboxClientFromConfig(config),
    });
  });

  afterAll(async () => {
    if (!t) return;
    await t.close();
    expect(await t.containers()).toEqual([]);
  });

  it("eval_code python runs in gVisor's kernel (dmesg inside the container)", async () => {
    const out = (await handlers.eval_code!(
      {
        language: "python",
        code: "import subprocess\nprint(subprocess.run(['dmesg'], capture_output=True, text=True).stdout.splitlines()[0])\nprint(6*7)",
      },
      ctxOf("eval_code"),
    )) as SandboxRunResult;
    expect(out).toMatchObject({ exitCode: 0, timedOut: false, oomKilled: false });
    expect(out.stdout).toMatch(GVISOR_DMESG);
    expect(out.stdout.endsWith("42\n")).toBe(true);
  });

  it("eval_code javascript (node) runs in gVisor's kernel (/proc/version and dmesg)", async () => {
    const out = (await handlers.eval_code!(
      {
        language: "javascript",
        code: [
          "const { execFileSync } = require('node:child_process');",
          "console.log(execFileSync('dmesg', { encoding: 'utf8' }).split('\\n')[0]);",
          "console.log(require('node:fs').readFileSync('/proc/version', 'utf8').trim());",
        ].join("\n"),
      },
      ctxOf("eval_code"),
    )) as SandboxRunResult;
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toMatch(GVISOR_DMESG);
    // gVisor reports its own fixed kernel version, not the host's.
    const hostKernel = (await docker.info()) as { KernelVersion?: string };
    expect(out.stdout).not.toContain(String(hostKernel.KernelVersion));
  });

  it("execute_command runs in gVisor's kernel (dmesg as argv)", async () => {
    const out = (await handlers.execute_command!(
      { command: "dmesg" },
      ctxOf("execute_command"),
    )) as SandboxRunResult;
    expect(out.exitCode).toBe(0);
    expect(out.stdout.split("\n")[0]).toMatch(GVISOR_DMESG);
  });

  it("creates its containers with the runsc runtime and the per-runtime process limits", async () => {
    const runId = `runsc-limits-${Date.now()}`;
    const run = t.client.run({
      runId,
      language: "shell",
      command: "sleep",
      args: ["3"],
      timeoutMs: 10_000,
    });
    let inspected: { Runtime?: string; PidsLimit?: number; Ulimits?: unknown } | undefined;
    const deadline = Date.now() + 10_000;
    while (!inspected && Date.now() < deadline) {
      const [c] = (await t.containers()).filter((x) => x.Labels[LABEL_RUN] === runId);
      if (c) inspected = (await docker.getContainer(c.Id).inspect()).HostConfig;
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(inspected).toMatchObject({
      Runtime: "runsc",
      PidsLimit: t.config.pids.runscCgroup,
      Ulimits: [{ Name: "nproc", Soft: t.config.pids.runscNproc, Hard: t.config.pids.runscNproc }],
    });
    expect(await run).toMatchObject({ exitCode: 0, timedOut: false });
  });

  it("health and /metrics name the runtime of each kind's image", async () => {
    const health = await t.client.health();
    expect(health.runtimes).toEqual({
      node: "runsc",
      python: "runsc",
      shell: "runsc",
      browser: "runc",
    });
    const res = await fetch(`${t.host.url}/metrics`, {
      headers: { authorization: `Bearer ${metricsToken}` },
    });
    const text = await res.text();
    expect(text).toContain(
      `skillgate_sandbox_image_runtime_info{kind="python",image="${t.config.images.python}",runtime="runsc"} 1`,
    );
    expect(text).toContain(
      `skillgate_sandbox_image_runtime_info{kind="browser",image="${t.config.browser.image}",runtime="runc"} 1`,
    );
  });
});
