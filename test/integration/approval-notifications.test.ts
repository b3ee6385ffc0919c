/**
 * Approval notifications (docs/approval-notifications.md) over real HTTP: a hybrid skill's call
 * creates an execution awaiting approval, and a signed Standard Webhooks message reaches a local
 * receiver that verifies it with the reference `standardwebhooks` library. The outbound guard
 * sees a public address (the test's resolver); the connection is dialled on 127.0.0.1.
 */
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import type { OutboundConnector } from "../../workers/src/outbound/types.js";
import { createNodeConnector } from "../../workers/src/runtime/node/outbound.js";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";
import { type FakeServer, startFakeServer } from "../support/fakes/http.js";

const PUBLIC = "93.184.216.34";
/** Node connector dialling the checked public address on 127.0.0.1 (test only). */
const toLocal: OutboundConnector = (req) =>
  createNodeConnector()({ ...req, addresses: req.addresses?.map(() => "127.0.0.1") ?? null });

const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function receiver(handler: Parameters<typeof startFakeServer>[0]): Promise<FakeServer> {
  const server = await startFakeServer(handler);
  closers.push(() => server.close());
  return server;
}

async function app(env: Record<string, string> = {}, resolvesTo = PUBLIC): Promise<TestApp> {
  const t = await startTestApp({
    env,
    deps: { outbound: { resolve: async () => [resolvesTo], connect: toLocal } },
    services: { notificationBackoffMs: 10 },
  });
  closers.push(() => t.close());
  t.services.executor.registerHandler("approval-probe", async (input) => ({ input }));
  return t;
}

/** Installs a hybrid skill owned by a new key and makes one call through interception. */
async function pendingCall(t: TestApp, input: object) {
  const key = await t.api.createKey(`k-${randomBytes(3).toString("hex")}`);
  const name = `guarded_${randomBytes(3).toString("hex")}`;
  const installed = await t.api.post("/api/skills/install", {
    name,
    version: "1.0.0",
    handlerCode: "approval-probe",
    policy: "hybrid",
    apiKeyId: key.id,
  });
  expect(installed.status).toBe(201);
  const call = async () => {
    const res = await t.api.as(key.key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: {
        id: "chatcmpl-x",
        object: "chat.completion",
        created: 1,
        model: "gpt-4.1",
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: "call_1",
                  type: "function",
                  function: { name: `${name}_v1_0_0`, arguments: JSON.stringify(input) },
                },
              ],
            },
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.toolResults[0].status).toBe("pending_approval");
    return res.body.toolResults[0].executionId as string;
  };
  return { key, skill: installed.body.skill, call };
}

describe("approval notifications", () => {
  it("posts a signed notification to the key's webhook, without holding up the call", async () => {
    const secret = newSecret();
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let arrived: () => void = () => {};
    const arrival = new Promise<void>((r) => (arrived = r));
    const hook = await receiver(async (_req, res) => {
      arrived();
      await held; // answer only once the call has been answered
      res.writeHead(204);
      res.end();
    });
    const t = await app({ PUBLIC_BASE_URL: "https://skills.example.com/" });
    const { key, skill, call } = await pendingCall(t, { text: "x".repeat(2000) });
    const set = await t.api.put(`/api/keys/${key.id}/approval-webhook`, {
      url: `http://hooks.example.com:${hook.port}/approvals?token=abc`,
      secret,
    });
    expect(set.status).toBe(200);
    expect(set.body.apiKey).toMatchObject({
      approvalWebhookUrl: `http://hooks.example.com:${hook.port}/approvals?token=abc`,
      approvalWebhookSecretSet: true,
    });
    expect(JSON.stringify(set.body)).not.toContain(secret);

    const id = await call(); // answered while the receiver still holds its answer
    await arrival;
    release();
    await t.services.approvalNotifier.settled();

    const [req] = hook.requests;
    expect(req?.url).toBe("/approvals?token=abc");
    const verified = new Webhook(secret).verify(req!.body, {
      "webhook-id": String(req!.headers["webhook-id"]),
      "webhook-timestamp": String(req!.headers["webhook-timestamp"]),
      "webhook-signature": String(req!.headers["webhook-signature"]),
    }) as Record<string, any>;
    expect(verified.type).toBe("execution.approval_required");
    expect(verified.data).toMatchObject({
      executionId: id,
      skill: { id: skill.id, name: skill.name, version: "1.0.0" },
      apiKeyId: key.id,
      inputTruncated: true,
      links: {
        execution: `https://skills.example.com/api/skills/executions/${id}`,
        approve: `https://skills.example.com/api/skills/executions/${id}/approve`,
        reject: `https://skills.example.com/api/skills/executions/${id}/reject`,
        dashboard: `https://skills.example.com/dashboard/executions/${id}`,
      },
    });
    expect(verified.data.inputSummary).toHaveLength(500);
    expect(verified.data.inputSummary.startsWith('{"text":"xxx')).toBe(true);

    const ex = await t.api.get(`/api/skills/executions/${id}`);
    expect(ex.body.execution.notifications).toMatchObject([
      {
        webhookId: req!.headers["webhook-id"],
        attempt: 1,
        target: `http://hooks.example.com:${hook.port}/approvals`,
        status: 204,
        ok: true,
        error: null,
      },
    ]);
  });

  it("uses the global webhook for keys without one, with REST paths when no public URL is set", async () => {
    const secret = newSecret();
    const hook = await receiver((_req, res) => {
      res.writeHead(200);
      res.end("ok");
    });
    const t = await app();
    const bad = await t.api.put("/api/settings", {
      approvalWebhookUrl: `http://hooks.example.com:${hook.port}/global`,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_webhook_secret");
    const set = await t.api.put("/api/settings", {
      approvalWebhookUrl: `http://hooks.example.com:${hook.port}/global`,
      approvalWebhookSecret: secret,
    });
    expect(set.status).toBe(200);
    expect(set.body.settings).toMatchObject({ approvalWebhookSecretSet: true });
    expect(JSON.stringify(set.body)).not.toContain(secret);

    const { call } = await pendingCall(t, { text: "short" });
    const id = await call();
    await t.services.approvalNotifier.settled();
    expect(hook.requests).toHaveLength(1);
    const body = new Webhook(secret).verify(hook.requests[0]!.body, {
      "webhook-id": String(hook.requests[0]!.headers["webhook-id"]),
      "webhook-timestamp": String(hook.requests[0]!.headers["webhook-timestamp"]),
      "webhook-signature": String(hook.requests[0]!.headers["webhook-signature"]),
    }) as Record<string, any>;
    expect(body.data).toMatchObject({
      executionId: id,
      inputSummary: '{"text":"short"}',
      inputTruncated: false,
      links: {
        approve: `/api/skills/executions/${id}/approve`,
        reject: `/api/skills/executions/${id}/reject`,
      },
    });
    expect(body.data.links.dashboard).toBeUndefined();
    // A signature made with another secret does not verify.
    expect(() =>
      new Webhook(newSecret()).verify(hook.requests[0]!.body, {
        "webhook-id": String(hook.requests[0]!.headers["webhook-id"]),
        "webhook-timestamp": String(hook.requests[0]!.headers["webhook-timestamp"]),
        "webhook-signature": String(hook.requests[0]!.headers["webhook-signature"]),
      }),
    ).toThrow();
  });

  it("retries a failing receiver with the same webhook id and records every attempt", async () => {
    const hook = await receiver((_req, res) => {
      res.writeHead(500);
      res.end("down");
    });
    const t = await app();
    const { key, call } = await pendingCall(t, { text: "retry" });
    await t.api.put(`/api/keys/${key.id}/approval-webhook`, {
      url: `http://hooks.example.com:${hook.port}/failing`,
      secret: newSecret(),
    });
    const id = await call();
    await t.services.approvalNotifier.settled();
    expect(hook.requests).toHaveLength(3);
    const ids = new Set(hook.requests.map((r) => r.headers["webhook-id"]));
    expect(ids.size).toBe(1);
    const ex = await t.api.as(key.key).get(`/api/skills/executions/${id}`);
    expect(
      ex.body.execution.notifications.map((n: Record<string, unknown>) => [
        n.attempt,
        n.status,
        n.ok,
        n.error,
      ]),
    ).toEqual([
      [1, 500, false, "HTTP 500"],
      [2, 500, false, "HTTP 500"],
      [3, 500, false, "HTTP 500"],
    ]);
    // The execution still waits for its operator.
    expect(ex.body.execution).toMatchObject({ status: "pending", approval: "required" });
    // The dashboard's execution page lists the deliveries.
    const login = await fetch(`${t.url}/dashboard/login`, {
      method: "POST",
      headers: { origin: t.url, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: MGMT_TOKEN }).toString(),
      redirect: "manual",
    });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const page = await fetch(`${t.url}/dashboard/executions/${id}`, { headers: { cookie } });
    const html = await page.text();
    expect(html).toContain('data-field="notifications"');
    expect(html.match(/failed: HTTP 500/g)).toHaveLength(3);
    expect(html).toContain(`http://hooks.example.com:${hook.port}/failing`);
  });

  it("refuses a private target through the outbound guard, and records why", async () => {
    const hook = await receiver((_req, res) => {
      res.writeHead(200);
      res.end();
    });
    // The name passes the set-time check; at delivery it resolves to 127.0.0.1, which is refused.
    const t = await app({}, "127.0.0.1");
    const { key, call } = await pendingCall(t, { text: "private" });
    const set = await t.api.put(`/api/keys/${key.id}/approval-webhook`, {
      url: `http://hooks.example.com:${hook.port}/private`,
      secret: newSecret(),
    });
    expect(set.status).toBe(200);
    const id = await call();
    await t.services.approvalNotifier.settled();
    expect(hook.requests).toHaveLength(0);
    const ex = await t.api.get(`/api/skills/executions/${id}`);
    expect(ex.body.execution.notifications).toHaveLength(3);
    expect(ex.body.execution.notifications[0]).toMatchObject({ ok: false, status: null });
    expect(ex.body.execution.notifications[0].error).toMatch(/127\.0\.0\.1|not a public/);
  });

  it("sends nothing when no webhook is configured, and clears a key's webhook with url null", async () => {
    const hook = await receiver((_req, res) => {
      res.writeHead(200);
      res.end();
    });
    const t = await app();
    const { key, call } = await pendingCall(t, { text: "none" });
    await t.api.put(`/api/keys/${key.id}/approval-webhook`, {
      url: `http://hooks.example.com:${hook.port}/x`,
      secret: newSecret(),
    });
    const cleared = await t.api.put(`/api/keys/${key.id}/approval-webhook`, { url: null });
    expect(cleared.body.apiKey).toMatchObject({
      approvalWebhookUrl: null,
      approvalWebhookSecretSet: false,
    });
    const id = await call();
    await t.services.approvalNotifier.settled();
    expect(hook.requests).toHaveLength(0);
    const ex = await t.api.get(`/api/skills/executions/${id}`);
    expect(ex.body.execution.notifications).toEqual([]);
  });
  it("refuses webhook URLs the outbound guard's literal rules refuse, on a key and globally", async () => {
    const t = await app();
    const key = await t.api.createKey(`k-${randomBytes(3).toString("hex")}`);
    const secret = newSecret();
    const refused = [
      "http://169.254.169.254/latest/meta-data/",
      "http://127.0.0.1:1/",
      "http://localhost:8080/hook",
      "http://0x7f000001/hook",
      "http://[::1]/hook",
      "http://10.0.0.5/hook",
      "https://user:pw@example.com/x",
    ];
    for (const url of refused) {
      const perKey = await t.api.put(`/api/keys/${key.id}/approval-webhook`, { url, secret });
      expect(perKey.status, url).toBe(400);
      expect(perKey.body.error.code, url).toBe("invalid_webhook_url");
      expect(JSON.stringify(perKey.body)).not.toContain("pw@");
      const global = await t.api.put("/api/settings", {
        approvalWebhookUrl: url,
        approvalWebhookSecret: secret,
      });
      expect(global.status, url).toBe(400);
      expect(global.body.error.code, url).toBe("invalid_webhook_url");
      expect(JSON.stringify(global.body)).not.toContain("pw@");
    }
    // Nothing was stored.
    expect((await t.api.get(`/api/keys/${key.id}`)).body.apiKey).toMatchObject({
      approvalWebhookUrl: null,
      approvalWebhookSecretSet: false,
    });
    expect((await t.api.get("/api/settings")).body.settings).toMatchObject({
      approvalWebhookUrl: null,
      approvalWebhookSecretSet: false,
    });
    const listed = await t.api.get("/api/keys");
    expect(JSON.stringify(listed.body)).not.toContain("pw@");
  });

  it("clears the global webhook's secret with approvalWebhookUrl null, as for a key", async () => {
    const t = await app();
    const set = await t.api.put("/api/settings", {
      approvalWebhookUrl: "https://hooks.example.com/global",
      approvalWebhookSecret: newSecret(),
    });
    expect(set.body.settings).toMatchObject({ approvalWebhookSecretSet: true });
    const cleared = await t.api.put("/api/settings", { approvalWebhookUrl: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.settings).toMatchObject({
      approvalWebhookUrl: null,
      approvalWebhookSecretSet: false,
    });
    // A new URL without a secret now needs one.
    const again = await t.api.put("/api/settings", {
      approvalWebhookUrl: "https://hooks.example.com/global",
    });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe("invalid_webhook_secret");
  });

  it("answers 409 api_key_revoked when a revoked key's webhook or limits are set", async () => {
    const t = await app();
    const key = await t.api.createKey(`k-${randomBytes(3).toString("hex")}`);
    expect((await t.api.delete(`/api/keys/${key.id}`)).status).toBe(200);
    const hook = await t.api.put(`/api/keys/${key.id}/approval-webhook`, {
      url: "https://hooks.example.com/x",
      secret: newSecret(),
    });
    expect(hook.status).toBe(409);
    expect(hook.body.error.code).toBe("api_key_revoked");
    const limits = await t.api.put(`/api/keys/${key.id}/limits`, { executionsPerMinute: 5 });
    expect(limits.status).toBe(409);
    expect(limits.body.error.code).toBe("api_key_revoked");
    const read = await t.api.get(`/api/keys/${key.id}`);
    expect(read.body.apiKey.approvalWebhookUrl).toBeNull();
    expect(read.body.limits.overrides).toEqual({});
  });
  it("never shows credentials of a webhook URL stored before URLs were checked", async () => {
    const t = await app();
    const key = await t.api.createKey(`k-${randomBytes(3).toString("hex")}`);
    await t.client.execute({
      sql: "UPDATE api_keys SET approval_webhook_url = ?, approval_webhook_secret = ? WHERE id = ?",
      args: ["https://user:pw@hooks.example.com/x?t=1", newSecret(), key.id],
    });
    const read = await t.api.get(`/api/keys/${key.id}`);
    expect(read.body.apiKey.approvalWebhookUrl).toBe("https://hooks.example.com/x?t=1");
    const listed = await t.api.get("/api/keys");
    expect(JSON.stringify(listed.body)).not.toContain("pw@");
    expect(JSON.stringify(listed.body)).toContain("https://hooks.example.com/x?t=1");
  });
});
