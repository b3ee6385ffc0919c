/**
 * `/metrics` of the Node API (the real entry, `startApiServer`): Prometheus text exposition
 * behind the metrics token (or the management token), with request counts and latencies by
 * route pattern and executions by skill and status.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../workers/src/runtime/node/node.js";
import { ApiClient, tempDir } from "../support/app.js";
import { captureConsole } from "../support/console-capture.js";
import { parsePrometheus, sampleValue } from "../support/prometheus.js";

const MGMT = "metrics-test-management-token";
const METRICS = "metrics-test-scrape-token-0123";

describe("Node API /metrics", () => {
  const tmp = tempDir();
  let server: Awaited<ReturnType<typeof startApiServer>>;
  let api: ApiClient;
  beforeAll(async () => {
    // The start-up line is expected; it is captured, not printed.
    const output = captureConsole();
    try {
      server = await startApiServer({
        DATA_DIR: tmp.dir,
        PORT: "0",
        MGMT_TOKEN: MGMT,
        METRICS_TOKEN: METRICS,
      });
    } finally {
      output.restore();
    }
    expect(output.lines.some((l) => l.includes(`API listening on ${server.url}`))).toBe(true);
    api = new ApiClient(server.url, MGMT);
  });
  afterAll(async () => {
    await server.close();
    tmp.cleanup();
  });

  const scrape = async (token: string | undefined) => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    return fetch(`${server.url}/metrics`, { headers });
  };

  it("refuses a scrape without the metrics or management token", async () => {
    expect((await scrape(undefined)).status).toBe(401);
    expect((await scrape("not-the-metrics-token")).status).toBe(401);
    const key = await api.createKey("metrics-reader");
    const asKey = await scrape(key.key);
    expect(asKey.status).toBe(401);
    expect((await asKey.json()).error.code).toBe("unauthorized");
  });

  it("counts requests by route pattern and executions by skill and status", async () => {
    const installed = await api.post("/api/skills/install", {
      name: "metrics-echo",
      version: "1.0.0",
      handlerCode: "echo-handler",
    });
    expect(installed.status).toBe(201);
    const id = installed.body.skill.id;
    for (let i = 0; i < 3; i++) {
      const run = await api.post("/api/skills/executions", {
        skillName: "metrics-echo",
        input: { i },
      });
      expect(run.body.execution.status).toBe("success");
    }
    const failed = await api.post("/api/skills/executions", {
      skillName: "file_read",
      input: { path: "no-such-file.txt" },
    });
    expect(failed.body.execution).toMatchObject({ status: "error", errorCode: "file_not_found" });
    expect((await api.get(`/api/skills/${id}`)).status).toBe(200);
    expect((await api.get("/api/skills/missing-id")).status).toBe(404);

    const res = await scrape(METRICS);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const samples = parsePrometheus(await res.text());
    const requests = (route: string, method: string, status: string) =>
      sampleValue(samples, "skillgate_http_requests_total", { route, method, status });

    expect(requests("/api/skills/executions", "POST", "200")).toBe(4);
    expect(requests("/api/skills/install", "POST", "201")).toBe(1);
    // Ids never become labels: both reads count under the route pattern.
    expect(requests("/api/skills/:id", "GET", "200")).toBe(1);
    expect(requests("/api/skills/:id", "GET", "404")).toBe(1);
    expect(samples.some((s) => Object.values(s.labels).includes(`/api/skills/${id}`))).toBe(false);
    expect(
      sampleValue(samples, "skillgate_http_request_duration_seconds_count", {
        route: "/api/skills/executions",
        method: "POST",
        status: "200",
      }),
    ).toBe(4);

    expect(
      sampleValue(samples, "skillgate_executions_total", {
        skill: "metrics-echo",
        status: "success",
      }),
    ).toBe(3);
    expect(
      sampleValue(samples, "skillgate_executions_total", { skill: "file_read", status: "error" }),
    ).toBe(1);
    expect(
      sampleValue(samples, "skillgate_execution_duration_seconds_count", {
        skill: "metrics-echo",
        status: "success",
      }),
    ).toBe(3);
    // The client's process metrics come along.
    expect(sampleValue(samples, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
  });

  it("lets the management token scrape too, and counts the scrapes", async () => {
    const first = await scrape(MGMT);
    expect(first.status).toBe(200);
    await first.text();
    const samples = parsePrometheus(await (await scrape(METRICS)).text());
    expect(
      sampleValue(samples, "skillgate_http_requests_total", {
        route: "/metrics",
        method: "GET",
        status: "200",
      }),
    ).toBeGreaterThanOrEqual(1);
  });
});
