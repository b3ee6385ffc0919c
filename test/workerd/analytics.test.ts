/**
 * Metrics in the Worker (workers/src/runtime/worker/index.ts inside workerd): with an `ANALYTICS` Workers
 * Analytics Engine dataset bound, every answered request and every finished execution writes one
 * data point in the documented layout; without the binding the Worker runs as before. The
 * dataset here records what the Worker writes (the platform's binding has no read side).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../workers/src/runtime/worker/index.js";
import { buildRequest, installBody, readJson } from "./support.js";

interface DataPoint {
  indexes?: string[];
  blobs?: string[];
  doubles?: number[];
}

async function send(
  bindings: Record<string, unknown>,
  method: string,
  path: string,
  body?: unknown,
) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(buildRequest(method, path, { body }), bindings as never, ctx);
  await waitOnExecutionContext(ctx);
  return readJson(res);
}

describe("Workers Analytics Engine metrics", () => {
  it("writes one data point per request and per execution when ANALYTICS is bound", async () => {
    const points: DataPoint[] = [];
    const bindings = { ...env, ANALYTICS: { writeDataPoint: (p: DataPoint) => points.push(p) } };
    const name = `analytics-echo-${crypto.randomUUID().slice(0, 8)}`;
    const installed = await send(bindings, "POST", "/api/skills/install", installBody(name));
    expect(installed.status).toBe(201);
    const run = await send(bindings, "POST", "/api/skills/executions", {
      skillName: name,
      input: { text: "hi" },
    });
    expect(run.body.execution.status).toBe("success");
    expect((await send(bindings, "GET", `/api/skills/${installed.body.skill.id}`)).status).toBe(
      200,
    );

    const requests = points.filter((p) => p.blobs?.[0] === "request");
    expect(requests.map((p) => p.blobs!.slice(1))).toEqual([
      ["POST", "/api/skills/install", "201"],
      ["POST", "/api/skills/executions", "200"],
      ["GET", "/api/skills/:id", "200"],
    ]);
    for (const p of requests) {
      expect(p.indexes).toEqual(["request"]);
      expect(p.doubles![0]).toBeGreaterThanOrEqual(0);
      expect(p.doubles![1]).toBe(Number(p.blobs![3]));
    }
    const executions = points.filter((p) => p.blobs?.[0] === "execution");
    expect(executions).toEqual([
      {
        indexes: ["execution"],
        blobs: ["execution", name, "success", ""],
        doubles: [expect.any(Number)],
      },
    ]);
  });

  it("serves no /metrics endpoint in the Worker", async () => {
    const points: DataPoint[] = [];
    const bindings = { ...env, ANALYTICS: { writeDataPoint: (p: DataPoint) => points.push(p) } };
    const res = await send(bindings, "GET", "/metrics");
    expect(res.status).toBe(404);
    expect(points.map((p) => p.blobs)).toEqual([["request", "GET", "unmatched", "404"]]);
  });
});
