/**
 * What the sandbox host tells an operator, on a real host (real HTTP, signed client, Prometheus
 * backend) over a stand-in engine (test/support/stand-in-engine.ts): health names every image the
 * host runs — the languages' and the browser's — and says which ones the engine holds, from a
 * cached check that a hung engine cannot stall; browses are counted under their own run label,
 * apart from node runs, and never touch the warm pool. The same paths run against real Docker in
 * test/sandbox (builtins.test.ts, metrics.test.ts).
 */
import { sandboxHealthSchema } from "@skillgate/sandbox-protocol";
import { afterEach, describe, expect, it } from "vitest";
import { type HostConfig, parseHostConfig } from "../../sandbox-host/src/config.js";
import { ImagePresence } from "../../sandbox-host/src/image-presence.js";
import { createPrometheusHostMetrics } from "../../sandbox-host/src/prometheus.js";
import {
  type SandboxHost,
  type SandboxHostOptions,
  startSandboxHost,
} from "../../sandbox-host/src/server.js";
import { createSandboxClient, type SandboxClient } from "../../workers/src/sandbox/client.js";
import { parsePrometheus, sampleValue } from "../support/prometheus.js";
import { StandInEngine } from "../support/stand-in-engine.js";

const SECRET = "unit-test-secret-0123456789abcdef";
const METRICS_TOKEN = "unit-metrics-token-0123456789";
const BROWSER_IMAGE = "skillgate-local/browser:latest";

/** A stand-in engine that counts image inspections, and can leave them unanswered. */
class CountingEngine extends StandInEngine {
  inspections = 0;
  /** While set, image inspections never answer (an engine that hangs). */
  hang = false;

  override imageExists(image: string): Promise<boolean> {
    this.inspections += 1;
    if (this.hang) return new Promise(() => {});
    return super.imageExists(image);
  }
}

const hosts: SandboxHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

async function start(
  engine: StandInEngine,
  env: Record<string, string> = {},
  opts: Omit<SandboxHostOptions, "docker" | "log"> = {},
): Promise<{ host: SandboxHost; config: HostConfig; client: SandboxClient }> {
  const config = parseHostConfig({
    SANDBOX_SECRET: SECRET,
    SANDBOX_HOST: "127.0.0.1",
    SANDBOX_PORT: "0",
    SANDBOX_INSTANCE: `unit-obs-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    ...env,
  });
  const host = await startSandboxHost(config, { ...opts, docker: engine, log: () => {} });
  hosts.push(host);
  const client = createSandboxClient({
    baseUrl: host.url,
    secret: SECRET,
    keyId: config.keys.keys().next().value,
  });
  return { host, config, client };
}

describe("sandbox host health: images", () => {
  it("names the browser image and says which images the engine holds", async () => {
    const engine = new CountingEngine();
    engine.images.add("node:22-alpine");
    engine.images.add("python:3.12-alpine");
    engine.images.add(BROWSER_IMAGE);
    const { client } = await start(engine, {}, { imagePresence: { waitMs: 10_000 } });
    const health = await client.health();
    expect(sandboxHealthSchema.parse(health)).toEqual(health);
    expect(health.images).toEqual({
      node: "node:22-alpine",
      python: "python:3.12-alpine",
      shell: "alpine:3.20",
      browser: BROWSER_IMAGE,
    });
    expect(health.imagesPresent).toEqual({
      node: true,
      python: true,
      shell: false,
      browser: true,
    });
    expect(Number.isNaN(Date.parse(health.imagesCheckedAt ?? ""))).toBe(false);
  });

  it("names a configured browser image in its normalised form", async () => {
    const engine = new CountingEngine();
    const { client } = await start(
      engine,
      { SANDBOX_IMAGE_BROWSER: "docker.io/acme/chromium" },
      { imagePresence: { waitMs: 10_000 } },
    );
    const health = await client.health();
    expect(health.images.browser).toBe("acme/chromium:latest");
    expect(health.imagesPresent?.browser).toBe(false);
  });

  it("serves a cached check until it is older than its maximum age", async () => {
    const engine = new CountingEngine();
    let now = 1_000_000;
    const { client } = await start(
      engine,
      {},
      { imagePresence: { waitMs: 10_000, maxAgeMs: 30_000, now: () => now } },
    );
    const first = await client.health();
    expect(first.imagesPresent?.browser).toBe(false);
    const inspections = engine.inspections;
    engine.images.add(BROWSER_IMAGE);
    now += 29_999;
    const cached = await client.health();
    expect(cached.imagesPresent?.browser).toBe(false);
    expect(cached.imagesCheckedAt).toBe(first.imagesCheckedAt);
    expect(engine.inspections).toBe(inspections);
    now += 1;
    const fresh = await client.health();
    expect(fresh.imagesPresent?.browser).toBe(true);
    expect(fresh.imagesCheckedAt).toBe(new Date(now).toISOString());
    expect(engine.inspections).toBe(inspections + 4);
  });

  it("reports presence as unknown while the engine is down", async () => {
    const engine = new CountingEngine();
    engine.images.add(BROWSER_IMAGE);
    const { client } = await start(engine, {}, { imagePresence: { waitMs: 10_000, maxAgeMs: 0 } });
    expect((await client.health()).imagesPresent?.browser).toBe(true);
    engine.down = true;
    const health = await client.health();
    expect(health).toMatchObject({ ok: false, docker: false });
    expect(health.imagesPresent).toEqual({ node: null, python: null, shell: null, browser: null });
  });

  it("answers without presence when the engine never answers an inspection", async () => {
    const engine = new CountingEngine();
    engine.hang = true;
    const { client } = await start(engine, {}, { imagePresence: { waitMs: 20 } });
    const health = await client.health();
    expect(health.docker).toBe(true);
    expect(health.imagesPresent).toEqual({ node: null, python: null, shell: null, browser: null });
    expect(health.imagesCheckedAt).toBeNull();
    // The hung check is not started again for every health call.
    const inspections = engine.inspections;
    await client.health();
    expect(engine.inspections).toBe(inspections);
  });
});

describe("ImagePresence", () => {
  it("inspects an image shared by several kinds once per check", async () => {
    const engine = new CountingEngine();
    engine.images.add("skillgate-local/node:latest");
    const presence = new ImagePresence(engine, {
      node: "skillgate-local/node:latest",
      browser: "skillgate-local/node:latest",
      shell: "alpine:3.20",
    });
    expect((await presence.snapshot()).present).toEqual({
      node: true,
      browser: true,
      shell: false,
    });
    expect(engine.inspections).toBe(2);
  });

  it("joins a check already running instead of starting another", async () => {
    const engine = new CountingEngine();
    const presence = new ImagePresence(engine, { node: "node:22-alpine" });
    await Promise.all([presence.refresh(), presence.refresh(), presence.snapshot()]);
    expect(engine.inspections).toBe(1);
  });
});

describe("sandbox host metrics: browses", () => {
  it("counts a browse under language browser, unpooled, and leaves the node pool alone", async () => {
    const engine = new CountingEngine();
    for (const image of ["node:22-alpine", "python:3.12-alpine", "alpine:3.20", BROWSER_IMAGE])
      engine.images.add(image);
    const metrics = createPrometheusHostMetrics({ defaultMetrics: false });
    const { host, client } = await start(
      engine,
      { SANDBOX_POOL_SIZE: "1", METRICS_TOKEN, SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS: "8080" },
      { metrics },
    );
    const browserImages: string[] = [];
    engine.program = async (io) => {
      const image = io.options.Image ?? "";
      const input = await io.stdin;
      if (image === BROWSER_IMAGE) {
        browserImages.push(image);
        io.stdout(
          `${JSON.stringify({
            status: "ok",
            url: "http://127.0.0.1:8080/",
            title: "Local page",
            httpStatus: 200,
            extract: "text",
            text: "hello",
            truncated: false,
          })}\n`,
        );
      } else io.stdout(input);
      io.exit(0);
    };

    const browse = await client.browse({ url: "http://127.0.0.1:8080/", timeoutMs: 10_000 });
    expect(browse).toMatchObject({ status: "ok", title: "Local page", text: "hello" });
    expect(browserImages).toEqual([BROWSER_IMAGE]);
    const run = await client.run({ language: "node", code: "1", timeoutMs: 10_000 });
    expect(run.exitCode).toBe(0);

    const res = await fetch(`${host.url}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const samples = parsePrometheus(await res.text());
    const runs = (labels: Record<string, string>) =>
      sampleValue(samples, "skillgate_sandbox_runs_total", labels);
    expect(runs({ language: "browser", outcome: "success", pooled: "false" })).toBe(1);
    expect(runs({ language: "browser", pooled: "true" })).toBeUndefined();
    // The node run is the only node one: the browse's Node driver is not counted as node.
    expect(runs({ language: "node", outcome: "success" })).toBe(1);
    expect(
      sampleValue(samples, "skillgate_sandbox_run_duration_seconds_count", {
        language: "browser",
        outcome: "success",
      }),
    ).toBe(1);
    // Only the node run asked the pool; the browse never did.
    const takes = samples.filter((s) => s.name === "skillgate_sandbox_pool_takes_total");
    expect(takes.map((s) => s.labels.language)).toEqual(["node"]);
    expect(takes.reduce((n, s) => n + s.value, 0)).toBe(1);
  });
});
