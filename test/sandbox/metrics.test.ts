/**
 * `/metrics` of the sandbox host with the Prometheus backend the entry uses: unsigned but behind
 * its own bearer token, absent without one, and real counts after real runs on Docker (outcomes,
 * refusals, pool hits, container step times, queue gauges, requests by route), with a browse of a
 * page served by this test counted as `browser`, not as the Node program its driver is.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrometheusHostMetrics } from "../../sandbox-host/src/prometheus.js";
import { parsePrometheus, sampleValue } from "../support/prometheus.js";
import {
  imageOnEngine,
  LOCAL_IMAGES,
  requireDocker,
  SKIP_DOCKER,
  startTestHost,
  type TestHost,
} from "./helpers.js";

const METRICS_TOKEN = "sandbox-metrics-token-0123456789";
const BROWSER_IMAGE = "skillgate-local/browser:latest";

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe.skipIf(SKIP_DOCKER)("sandbox host /metrics", () => {
  let t: TestHost;
  let site: Server;
  let sitePort: number;
  const scrape = (token?: string) =>
    fetch(`${t.host.url}/metrics`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  beforeAll(async () => {
    await requireDocker();
    if (!(await imageOnEngine(BROWSER_IMAGE)))
      throw new Error(`Image ${BROWSER_IMAGE} is missing; run \`npm run sandbox:images\``);
    site = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<title>Counted</title><p>a page to browse</p>");
    });
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
    sitePort = (site.address() as AddressInfo).port;
    t = await startTestHost(
      "metrics",
      {
        SANDBOX_POOL_SIZE: "1",
        METRICS_TOKEN,
        SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS: String(sitePort),
      },
      { metrics: createPrometheusHostMetrics() },
    );
    const poolFull = async () => (await t.client.health()).pool[LOCAL_IMAGES.python] === 1;
    expect(await waitFor(poolFull, 30_000)).toBe(true);
  });

  afterAll(async () => {
    site?.closeAllConnections();
    site?.close();
    if (!t) return;
    await t.close();
    expect(await t.containers()).toEqual([]);
  });

  it("needs the metrics token (not a signature)", async () => {
    const anon = await scrape();
    expect(anon.status).toBe(401);
    expect((await anon.json()).error.code).toBe("unauthorized");
    expect((await scrape("wrong-token-wrong-token")).status).toBe(401);
    const ok = await scrape(METRICS_TOKEN);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toContain("text/plain");
  });

  it("counts runs by outcome, browses apart, refusals, pool hits and container steps", async () => {
    const pooled = await t.client.run({
      language: "python",
      code: "print(6*7)",
      timeoutMs: 10_000,
    });
    expect(pooled).toMatchObject({ exitCode: 0, pooled: true });
    const failed = await t.client.run({ language: "shell", command: "false", timeoutMs: 10_000 });
    expect(failed.exitCode).toBe(1);
    const slow = await t.client.run({
      language: "shell",
      command: "sleep",
      args: ["30"],
      timeoutMs: 500,
    });
    expect(slow.timedOut).toBe(true);
    await expect(
      t.client.run({ language: "python", code: "print(1)", image: "not-allowed/image:1" }),
    ).rejects.toThrow();
    const page = await t.client.browse({
      url: `http://127.0.0.1:${sitePort}/`,
      timeoutMs: 45_000,
    });
    expect(page).toMatchObject({ status: "ok", title: "Counted" });

    const samples = parsePrometheus(await (await scrape(METRICS_TOKEN)).text());
    const runs = (labels: Record<string, string>) =>
      sampleValue(samples, "skillgate_sandbox_runs_total", labels);
    expect(runs({ language: "python", outcome: "success", pooled: "true" })).toBe(1);
    expect(runs({ language: "shell", outcome: "failure", pooled: "false" })).toBe(1);
    expect(runs({ language: "shell", outcome: "timeout", pooled: "false" })).toBe(1);
    // The browse's driver is a Node program, but it is counted as a browse, never pooled.
    expect(runs({ language: "browser", outcome: "success", pooled: "false" })).toBe(1);
    expect(runs({ language: "node" })).toBeUndefined();
    expect(
      sampleValue(samples, "skillgate_sandbox_run_duration_seconds_count", {
        language: "browser",
        outcome: "success",
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, "skillgate_sandbox_run_duration_seconds_count", {
        language: "shell",
        outcome: "timeout",
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, "skillgate_sandbox_runs_refused_total", { code: "image_not_allowed" }),
    ).toBe(1);
    expect(
      sampleValue(samples, "skillgate_sandbox_pool_takes_total", {
        language: "python",
        result: "hit",
      }),
    ).toBe(1);
    expect(
      samples
        .filter((s) => s.name === "skillgate_sandbox_pool_takes_total")
        .map((s) => s.labels.language),
    ).toEqual(["python"]);
    // Two fresh shell containers and the browser's, plus the pre-started ones of the pool
    // (created and started).
    const phase = (p: string) =>
      sampleValue(samples, "skillgate_sandbox_container_phase_seconds_count", { phase: p })!;
    expect(phase("create")).toBeGreaterThanOrEqual(5);
    expect(phase("start")).toBeGreaterThanOrEqual(5);
    expect(phase("remove")).toBeGreaterThanOrEqual(4);
    expect(sampleValue(samples, "skillgate_sandbox_queue_wait_seconds_count")).toBe(4);
    expect(sampleValue(samples, "skillgate_sandbox_queue_depth")).toBe(0);
    expect(sampleValue(samples, "skillgate_sandbox_runs_running")).toBe(0);
    expect(
      sampleValue(samples, "skillgate_sandbox_pool_ready", { image: LOCAL_IMAGES.python }),
    ).toBeGreaterThanOrEqual(0);
    expect(
      sampleValue(samples, "skillgate_sandbox_http_requests_total", {
        method: "POST",
        route: "/v1/run",
        status: "200",
      }),
    ).toBe(3);
    expect(
      sampleValue(samples, "skillgate_sandbox_http_requests_total", {
        method: "POST",
        route: "/v1/run",
        status: "422",
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, "skillgate_sandbox_http_requests_total", {
        method: "POST",
        route: "/v1/browse",
        status: "200",
      }),
    ).toBe(1);
    expect(sampleValue(samples, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
  });
});

describe.skipIf(SKIP_DOCKER)("sandbox host without a metrics token", () => {
  it("serves no /metrics: an unsigned scrape is refused like any unsigned request", async () => {
    await requireDocker();
    const t = await startTestHost("nometrics", {}, { metrics: createPrometheusHostMetrics() });
    try {
      const res = await fetch(`${t.host.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      expect(res.status).toBe(401);
      expect((await res.json()).error.message).toBe("Request is not signed");
    } finally {
      await t.close();
    }
  });
});
