/**
 * The per-key limiter Durable Object inside workerd (docs/rate-limits.md#the-per-key-limiter-durable-object):
 * the `KEY_LIMITER` binding of wrangler.toml keeps the same contract as the in-process counters
 * (test/unit/short-window-counters.test.ts), every caller on its own connection to the object;
 * and two apps with separate memory (two isolates) hold one key's executions-per-minute limit
 * exactly under concurrent requests.
 */

import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  type DurableObjectNamespaceLike,
  DurableObjectWindows,
} from "../../workers/src/runtime/worker/durable-windows.js";
import { appFor, type WorkerEnv } from "../../workers/src/runtime/worker/worker-app.js";
import { shortWindowContract } from "../support/short-window-contract.js";
import { buildRequest, call, createKey, installBody, readJson } from "./support.js";

const namespace = env.KEY_LIMITER as DurableObjectNamespaceLike;

shortWindowContract(
  "KeyLimiter Durable Object (workerd)",
  () => new DurableObjectWindows(namespace, 5000),
);

describe("Worker entry in workerd: the per-key limiter Durable Object", () => {
  it("answers 400 to a body that is not an operation, and changes nothing", async () => {
    const stub = namespace.get(namespace.idFromName(`bad-${crypto.randomUUID()}`) as never);
    const res = await stub.fetch("https://key-limiter/", { method: "POST", body: '{"op":"take"}' });
    expect(res.status).toBe(400);
  });

  it("two isolates' apps sending at once hold a key to its executions per minute together", async () => {
    const key = await createKey("do-limiter");
    const name = `do-limited-${crypto.randomUUID().slice(0, 8)}`;
    const installed = await call("POST", "/api/skills/install", {
      body: installBody(name, { apiKeyId: key.id }),
    });
    expect(installed.status).toBe(201);
    const put = await call("PUT", `/api/keys/${key.id}/limits`, {
      body: { executionsPerMinute: 4 },
    });
    expect(put.status).toBe(200);
    // Two apps, each with its own in-process memory, as two isolates have.
    const isolateA = appFor({ ...env } as unknown as WorkerEnv);
    const isolateB = appFor({ ...env } as unknown as WorkerEnv);
    expect(isolateA).not.toBe(isolateB);
    // Stay clear of a minute boundary, so that the burst falls in one window.
    const s = new Date().getUTCSeconds();
    if (s >= 55) await new Promise((r) => setTimeout(r, (61 - s) * 1000));
    const send = (app: typeof isolateA) =>
      app.app.fetch(
        buildRequest("POST", "/api/skills/executions", {
          token: key.key,
          body: { skillName: name, input: { text: "hi" } },
        }),
        env,
        createExecutionContext() as never,
      );
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => send(i % 2 ? isolateA : isolateB)),
    );
    const statuses = (await Promise.all(answers.map(readJson))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    const read = await call("GET", `/api/keys/${key.id}`);
    expect(read.body.limits.usage.executionsToday).toBe(4);
    expect(read.body.limits.usage.executionsThisMinute).toBe(4);
  });
});
