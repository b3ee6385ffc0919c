/**
 * The `EXECUTION_RATE_LIMITER` rate limiting binding inside workerd through the Worker entry
 * (docs/rate-limits.md#the-rate-limiting-binding), with Miniflare's implementation of the binding at
 * {@link BINDING_LIMIT} per 60 s and the default `executionsPerMinute` set to the same value.
 * Executions "of other isolates" are the test's own `limit({ key })` calls on the same binding:
 * the Worker's in-isolate window has not seen them, so only the binding can refuse what follows.
 */
import { env, exports } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { callTool, connectMcp } from "../../support/mcp.js";
import { call, createKey, installBody, ORIGIN } from "../support.js";
import { BINDING_LIMIT } from "./limit.js";

interface RateLimitBinding {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

const binding = env.EXECUTION_RATE_LIMITER as RateLimitBinding;

/** Takes `n` of the binding's tokens for `keyId`, as executions on other isolates would. */
async function spendElsewhere(keyId: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++)
    expect(await binding.limit({ key: keyId })).toEqual({ success: true });
}

/**
 * Waits for the next minute when fewer than 10 s are left in this one: the binding's windows and
 * the Worker's own are both whole UTC minutes, and one test's calls must share a window.
 */
async function freshWindow(): Promise<void> {
  await call("GET", "/api/settings");
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 500));
}

/** A key with its own copy of an `echo-handler` skill named `name`. */
async function keyWithSkill(name: string): Promise<{ key: string; id: string }> {
  const key = await createKey(`binding-${crypto.randomUUID().slice(0, 8)}`);
  const installed = await call("POST", "/api/skills/install", {
    body: installBody(name, { apiKeyId: key.id }),
  });
  expect(installed.status).toBe(201);
  return key;
}

function execute(token: string, skillName: string) {
  return call("POST", "/api/skills/executions", {
    token,
    body: { skillName, input: { text: "hi" } },
  });
}

const refusal = `Rate limit reached for this API key: ${BINDING_LIMIT} executions per minute`;

describe("Worker entry in workerd: the EXECUTION_RATE_LIMITER binding", () => {
  beforeEach(async () => {
    // Every test in this file sets the same default (the value the binding stands for).
    const put = await call("PUT", "/api/settings", {
      body: { defaultLimits: { executionsPerMinute: BINDING_LIMIT } },
    });
    expect(put.status).toBe(200);
    await freshWindow();
  });

  it("refuses a key's execution once its count across isolates reaches the limit, and no other key's", async () => {
    const a = await keyWithSkill("binding-echo");
    const b = await keyWithSkill("binding-echo");
    await spendElsewhere(a.id, BINDING_LIMIT - 1);

    expect((await execute(a.key, "binding-echo")).status).toBe(200);
    const refused = await execute(a.key, "binding-echo");
    expect(refused.status).toBe(429);
    const t = Number(refused.headers.get("retry-after"));
    expect(Number.isInteger(t) && t >= 1 && t <= 60).toBe(true);
    expect(refused.body.error).toEqual({
      code: "rate_limited",
      message: `${refusal}; retry in ${t} s`,
      details: { limit: "executionsPerMinute", value: BINDING_LIMIT, retryAfterS: t },
    });
    expect(refused.headers.get("ratelimit-policy")).toBe(
      `"executions-per-minute";q=${BINDING_LIMIT};w=60`,
    );
    expect(refused.headers.get("ratelimit")).toBe(`"executions-per-minute";r=0;t=${t}`);

    // The refused execution was not recorded, nor counted in the Worker's own window.
    const usage = (await call("GET", `/api/keys/${a.id}`)).body.limits.usage;
    expect(usage).toMatchObject({ executionsToday: 1, executionsThisMinute: 1 });
    const listed = await call("GET", `/api/skills/executions?apiKeyId=${a.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);

    // Another key has its own count on the binding.
    for (let i = 0; i < BINDING_LIMIT; i++) {
      const ok = await execute(b.key, "binding-echo");
      expect(ok.status).toBe(200);
      expect(ok.body.execution.output).toEqual({ text: "hi" });
    }
  });

  it("holds a key with a lower limit of its own to the binding, but not one with a higher limit or none", async () => {
    const low = await keyWithSkill("binding-low");
    const put = await call("PUT", `/api/keys/${low.id}/limits`, {
      body: { executionsPerMinute: BINDING_LIMIT - 1 },
    });
    expect(put.status).toBe(200);
    await spendElsewhere(low.id, BINDING_LIMIT - 1);
    expect((await execute(low.key, "binding-low")).status).toBe(200);
    // One execution in this isolate, under the key's own limit: the binding refuses it.
    const refused = await execute(low.key, "binding-low");
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limited");
    expect(refused.body.error.details).toMatchObject({ value: BINDING_LIMIT - 1 });
    expect(refused.headers.get("ratelimit-policy")).toBe(
      `"executions-per-minute";q=${BINDING_LIMIT - 1};w=60`,
    );

    for (const own of [BINDING_LIMIT + 5, null]) {
      const key = await keyWithSkill("binding-high");
      await call("PUT", `/api/keys/${key.id}/limits`, { body: { executionsPerMinute: own } });
      await spendElsewhere(key.id, BINDING_LIMIT);
      for (let i = 0; i <= BINDING_LIMIT; i++) {
        const ok = await execute(key.key, "binding-high");
        expect(ok.status, `own limit ${own}, execution ${i + 1}`).toBe(200);
      }
    }
  });

  it("never limits executions with the management token", async () => {
    const name = `binding-mgmt-${crypto.randomUUID().slice(0, 8)}`;
    const installed = await call("POST", "/api/skills/install", { body: installBody(name) });
    expect(installed.status).toBe(201);
    for (let i = 0; i <= BINDING_LIMIT + 1; i++) {
      const ok = await call("POST", "/api/skills/executions", {
        body: { skillName: name, input: { text: `m${i}` } },
      });
      expect(ok.status).toBe(200);
      expect(ok.body.execution.output).toEqual({ text: `m${i}` });
    }
  });

  it("gives an MCP tools/call over the binding's limit a tool error", async () => {
    const key = await keyWithSkill("binding-mcp");
    await spendElsewhere(key.id, BINDING_LIMIT);
    const workerFetch = ((input: RequestInfo | URL, init?: RequestInit) =>
      exports.default.fetch(new Request(input, init))) as typeof fetch;
    const client = await connectMcp(ORIGIN, key.key, { fetch: workerFetch });
    try {
      const result = await callTool(client, "binding-mcp_v1_0_0", { text: "x" });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain(refusal);
    } finally {
      await client.close();
    }
    const usage = (await call("GET", `/api/keys/${key.id}`)).body.limits.usage;
    expect(usage.executionsToday).toBe(0);
  });

  it("gives the gateway proxy's call over the binding's limit a tool error, and the turn goes on", async () => {
    // The scripted upstream (../global-setup.ts) calls `workerdEcho_v1_0_0`, then quotes its result.
    const key = await keyWithSkill("workerdEcho");
    await spendElsewhere(key.id, BINDING_LIMIT);
    const res = await exports.default.fetch(
      new Request(`${ORIGIN}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "gpt-test",
          messages: [{ role: "user", content: "echo something" }],
        }),
      }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]!.message.content).toContain(refusal);
    const usage = (await call("GET", `/api/keys/${key.id}`)).body.limits.usage;
    expect(usage.executionsToday).toBe(0);
  });
});
