/**
 * The multi-host client's rules against local HTTP servers speaking the sandbox host's wire format:
 * a run moves to another host only when it did not start (connection refused, 429), never after a
 * dropped answer; a failed host is marked down and comes back through its health endpoint.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ExecutionFailure } from "../../workers/src/errors.js";
import { createSandboxClient } from "../../workers/src/sandbox/client.js";
import {
  combineImagesPresent,
  createMultiHostClient,
} from "../../workers/src/sandbox/multi-host.js";

type Mode = "ok" | "busy" | "drop";

interface FakeHost {
  url: string;
  runs: number;
  mode: Mode;
  running: number;
  /** `imagesPresent` of its health; absent like a host of an older version. */
  imagesPresent?: Record<string, boolean | null>;
  server: Server;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
});

async function fakeHost(
  mode: Mode,
  running = 0,
  imagesPresent?: Record<string, boolean | null>,
): Promise<FakeHost> {
  const host = { url: "", runs: 0, mode, running, imagesPresent } as FakeHost;
  host.server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(value));
      };
      if (req.method === "GET" && req.url === "/v1/health") {
        return json(200, {
          ok: true,
          docker: true,
          running: host.running,
          queued: 0,
          maxConcurrency: 4,
          maxQueue: 16,
          pool: {},
          images: { node: "n", python: "p", shell: "s", browser: "b" },
          ...(host.imagesPresent ? { imagesPresent: host.imagesPresent } : {}),
          instance: "fake",
        });
      }
      if (req.url === "/v1/run" || req.url === "/v1/browse") host.runs += 1;
      if (host.mode === "busy")
        return json(429, { error: { code: "busy", message: "full" } }, { "retry-after": "1" });
      if (host.mode === "drop") return req.socket.destroy();
      const { runId } = JSON.parse(body) as { runId?: string };
      json(200, {
        runId: runId ?? "r",
        exitCode: 0,
        signal: null,
        stdout: host.url,
        stderr: "",
        stdoutTruncated: false,
        stderrTruncated: false,
        truncated: false,
        timedOut: false,
        oomKilled: false,
        durationMs: 1,
        image: "n",
        pooled: false,
      });
    });
  });
  servers.push(host.server);
  await new Promise<void>((r) => host.server.listen(0, "127.0.0.1", () => r()));
  host.url = `http://127.0.0.1:${(host.server.address() as AddressInfo).port}`;
  return host;
}

/** A URL on which nothing listens (a port that was just freed). */
async function deadUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

const entry = (url: string) => ({
  url,
  client: createSandboxClient({ baseUrl: url, secret: "s" }),
});
const req = { language: "node" as const, code: "1", runId: "run-1" };

describe("multi-host sandbox client", () => {
  it("prefers the less loaded host", async () => {
    const loaded = await fakeHost("ok", 4);
    const idle = await fakeHost("ok", 0);
    const client = createMultiHostClient([entry(loaded.url), entry(idle.url)]);
    for (let i = 0; i < 4; i++) expect((await client.run(req)).stdout).toBe(idle.url);
    expect(loaded.runs).toBe(0);
  });

  it("moves a run refused with 429 to the other host; the run happens once", async () => {
    const busy = await fakeHost("busy");
    const free = await fakeHost("ok", 3);
    const client = createMultiHostClient([entry(busy.url), entry(free.url)]);
    const result = await client.run(req);
    expect(result.stdout).toBe(free.url);
    expect(busy.runs + free.runs).toBe(2);
    expect(free.runs).toBe(1);
  });

  it("sends nothing to a host that refuses connections, and marks it down", async () => {
    const dead = await deadUrl();
    const alive = await fakeHost("ok", 3);
    const client = createMultiHostClient([entry(dead), entry(alive.url)], { backoffMs: 60_000 });
    // Its health probe is refused too, so the run never reaches it: it goes to the live host.
    const result = await client.run(req);
    expect(result.stdout).toBe(alive.url);
    const hosts = await client.hosts();
    expect(hosts[0]).toMatchObject({ url: dead, state: "down" });
    expect(hosts[1]).toMatchObject({ url: alive.url, state: "up" });
  });

  it("never sends a browse again after its answer was lost, nor lets it be retried", async () => {
    const dropping = await fakeHost("drop");
    const other = await fakeHost("ok", 3);
    const client = createMultiHostClient([entry(dropping.url), entry(other.url)]);
    const err = await client.browse({ url: "https://example.org/", runId: "browse-1" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ExecutionFailure);
    expect((err as ExecutionFailure).code).toBe("sandbox_outcome_unknown");
    expect((err as ExecutionFailure).retryable).toBe(false);
    expect(dropping.runs).toBe(1);
    expect(other.runs).toBe(0);
  });

  it("moves a browse whose host refuses the connection to the other host", async () => {
    const other = await fakeHost("busy");
    const client = createMultiHostClient([entry(await deadUrl()), entry(other.url)]);
    const err = await client.browse({ url: "https://example.org/", runId: "browse-2" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(other.runs).toBe(1);
    expect((err as ExecutionFailure).code).toBe("sandbox_busy");
  });

  it("never sends a run again after its answer was lost (it may have started)", async () => {
    const dropping = await fakeHost("drop");
    const other = await fakeHost("ok", 3);
    const client = createMultiHostClient([entry(dropping.url), entry(other.url)]);
    const err = await client.run(req).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ExecutionFailure);
    expect((err as ExecutionFailure).code).toBe("sandbox_outcome_unknown");
    expect((err as ExecutionFailure).retryable).toBe(false);
    expect((err as ExecutionFailure).notStarted).toBe(false);
    expect(dropping.runs).toBe(1);
    expect(other.runs).toBe(0);
  });

  it("a down host whose back-off ended is probed and used again", async () => {
    const flaky = await fakeHost("drop");
    const client = createMultiHostClient([entry(flaky.url)], { backoffMs: 1, healthMaxAgeMs: 0 });
    await expect(client.run(req)).rejects.toBeInstanceOf(ExecutionFailure);
    expect((await client.hosts())[0]!.state).toBe("up");
    flaky.mode = "ok";
    expect((await client.run(req)).stdout).toBe(flaky.url);
  });

  it("a run refused at connection by the only host left fails as not started", async () => {
    const dead = await deadUrl();
    const client = createMultiHostClient([entry(dead)]);
    const err = (await client.run(req).catch((e: unknown) => e)) as ExecutionFailure;
    expect(err.code).toBe("sandbox_unavailable");
    expect(err.notStarted).toBe(true);
  });

  it("combines image presence over the hosts: absent anywhere wins, then unknown", async () => {
    const full = { node: true, python: true, shell: true, browser: true };
    const a = await fakeHost("ok", 0, full);
    const b = await fakeHost("ok", 0, { ...full, browser: false, shell: null });
    const old = await fakeHost("ok", 0);
    const client = createMultiHostClient([entry(a.url), entry(b.url), entry(old.url)]);
    const health = await client.health();
    expect(health.images.browser).toBe("b");
    // The older host reports nothing, so whatever no host lacks is unknown.
    expect(health.imagesPresent).toEqual({ node: null, python: null, shell: null, browser: false });
    const hosts = await client.hosts();
    expect(hosts[1]!.health?.imagesPresent).toEqual({ ...full, browser: false, shell: null });
    expect(hosts[2]!.health?.imagesPresent).toBeUndefined();
  });

  it("reports every image present when every host holds it; nothing when no host says", () => {
    const base = {
      ok: true,
      docker: true,
      running: 0,
      queued: 0,
      maxConcurrency: 1,
      maxQueue: 0,
      pool: {},
      images: { node: "n", python: "p", shell: "s" },
    };
    const full = { node: true, python: true, shell: true, browser: true };
    expect(
      combineImagesPresent([
        { ...base, imagesPresent: full },
        { ...base, imagesPresent: full },
      ]),
    ).toEqual({ imagesPresent: full });
    expect(combineImagesPresent([base, base])).toEqual({});
    expect(combineImagesPresent([])).toEqual({});
  });
});
