import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";

const skill = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  version: "1.0.0",
  description: "echo",
  schema: { input: { type: "object", properties: { v: { type: "string" } } } },
  handlerCode: "echo-handler",
  ...extra,
});

describe("API keys, ownership and isolation", () => {
  // A fresh app and database per test: no test depends on another's keys, skills or settings.
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  it("creates a key shown once, stores only its hash, lists and revokes it", async () => {
    const created = await t.api.post("/api/keys", {
      name: "ci",
      expiresAt: "2099-01-01T00:00:00Z",
    });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sg_[A-Za-z0-9_-]{43}$/);
    expect(created.body.apiKey).toMatchObject({
      name: "ci",
      expiresAt: "2099-01-01T00:00:00.000Z",
    });
    const rows = await t.client.execute("select key_hash from api_keys where id = ?", [
      created.body.apiKey.id,
    ]);
    expect(String(rows.rows[0]!.key_hash)).toMatch(/^[0-9a-f]{64}$/);
    expect(String(rows.rows[0]!.key_hash)).not.toContain(created.body.key);
    const list = await t.api.get("/api/keys");
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
    expect(list.body.data.some((k: { id: string }) => k.id === created.body.apiKey.id)).toBe(true);

    const asKey = t.api.as(created.body.key);
    expect((await asKey.get("/api/skills/executions")).status).toBe(200);
    expect((await t.api.delete(`/api/keys/${created.body.apiKey.id}`)).status).toBe(200);
    expect((await asKey.get("/api/skills/executions")).status).toBe(401);
    expect((await t.api.delete("/api/keys/unknown")).status).toBe(404);
  });

  it("refuses an expiry that is not in the future with 400 naming expiresAt, creating nothing", async () => {
    const before = await t.client.execute("select count(*) as n from api_keys");
    const now = new Date();
    for (const expiresAt of [
      "2001-01-01T00:00:00Z",
      new Date(now.getTime() - 60_000).toISOString(),
      "1970-01-01T00:00:00+02:00",
    ]) {
      const res = await t.api.post("/api/keys", { name: "born-expired", expiresAt });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_input");
      expect(res.body.error.details).toEqual([
        { field: "expiresAt", message: "expiresAt must be in the future" },
      ]);
    }
    const after = await t.client.execute("select count(*) as n from api_keys");
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });

  it("revokes once: a second revoke answers 409 already_revoked and keeps the first revokedAt", async () => {
    const key = await t.api.createKey("revoke-twice");
    const first = await t.api.delete(`/api/keys/${key.id}`);
    expect(first.status).toBe(200);
    const revokedAt = first.body.apiKey.revokedAt;
    expect(typeof revokedAt).toBe("string");
    const second = await t.api.delete(`/api/keys/${key.id}`);
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe("already_revoked");
    expect(second.body.error.details.apiKey).toMatchObject({ id: key.id, revokedAt });
    const stored = await t.client.execute("select revoked_at from api_keys where id = ?", [key.id]);
    expect(new Date(Number(stored.rows[0]!.revoked_at)).toISOString()).toBe(revokedAt);
    const listed = (await t.api.get("/api/keys")).body.data.find(
      (k: { id: string }) => k.id === key.id,
    );
    expect(listed.revokedAt).toBe(revokedAt);
    expect((await t.api.as(key.key).get("/api/skills/executions")).status).toBe(401);
  });

  it("key B cannot see or read key A's executions", async () => {
    const a = await t.api.createKey("A");
    const b = await t.api.createKey("B");
    await t.api.post("/api/skills/install", skill("shared-echo"));
    const run = await t.api
      .as(a.key)
      .post("/api/skills/executions", { skillName: "shared-echo", input: { v: "a" } });
    expect(run.body.execution.status).toBe("success");
    const id = run.body.execution.id;

    const bList = await t.api.as(b.key).get("/api/skills/executions");
    expect(bList.body.data.map((e: { id: string }) => e.id)).not.toContain(id);
    expect(bList.body.total).toBe(0);
    const bRead = await t.api.as(b.key).get(`/api/skills/executions/${id}`);
    expect(bRead.status).toBe(404);

    const aRead = await t.api.as(a.key).get(`/api/skills/executions/${id}`);
    expect(aRead.body.execution.id).toBe(id);
    const mgmtOne = await t.api.get(`/api/skills/executions?apiKeyId=${a.id}`);
    expect(mgmtOne.body.data.map((e: { id: string }) => e.id)).toEqual([id]);
  });

  it("a key cannot act for another key (403); management can", async () => {
    const a = await t.api.createKey("A2");
    const b = await t.api.createKey("B2");
    await t.api.post("/api/skills/install", skill("shared-echo"));
    const forB = await t.api
      .as(a.key)
      .post("/api/skills/executions", { skillName: "shared-echo", input: {}, apiKeyId: b.id });
    expect(forB.status).toBe(403);
    const listB = await t.api.as(a.key).get(`/api/skills/executions?apiKeyId=${b.id}`);
    expect(listB.status).toBe(403);
    const byMgmt = await t.api.post("/api/skills/executions", {
      skillName: "shared-echo",
      input: {},
      apiKeyId: b.id,
    });
    expect(byMgmt.body.execution.apiKeyId).toBe(b.id);
  });

  it("a key sees global skills and its own; its own shadows a global one of the same name@version", async () => {
    const a = await t.api.createKey("owner");
    const other = await t.api.createKey("other");
    await t.api.post("/api/skills/install", skill("shadowed", { description: "global" }));
    const own = await t.api.post(
      "/api/skills/install",
      skill("shadowed", { description: "own", apiKeyId: a.id }),
    );
    expect(own.status).toBe(201);
    const runA = await t.api
      .as(a.key)
      .post("/api/skills/executions", { skillName: "shadowed@1.0.0", input: {} });
    expect(runA.body.execution.skillId).toBe(own.body.skill.id);
    const runOther = await t.api
      .as(other.key)
      .post("/api/skills/executions", { skillName: "shadowed@1.0.0", input: {} });
    expect(runOther.body.execution.skillId).not.toBe(own.body.skill.id);
    const privateOnly = await t.api.post(
      "/api/skills/install",
      skill("private-one", { apiKeyId: a.id }),
    );
    expect(privateOnly.status).toBe(201);
    expect(
      (
        await t.api
          .as(other.key)
          .post("/api/skills/executions", { skillName: "private-one", input: {} })
      ).status,
    ).toBe(404);
    expect((await t.api.as(other.key).get(`/api/skills/${privateOnly.body.skill.id}`)).status).toBe(
      404,
    );
    expect((await t.api.as(a.key).get(`/api/skills/${privateOnly.body.skill.id}`)).status).toBe(
      200,
    );
  });

  it("installing for an unknown key is a 400 naming apiKeyId", async () => {
    const res = await t.api.post(
      "/api/skills/install",
      skill("orphan", { apiKeyId: "no-such-key" }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe("apiKeyId");
  });

  it("the master switch blocks every execution with 503, and the registry still loads", async () => {
    expect((await t.api.post("/api/skills/install", skill("shared-echo"))).status).toBe(201);
    const off = await t.api.put("/api/settings", { skillsEnabled: false });
    expect(off.body.settings).toMatchObject({
      skillsEnabled: false,
      activeProvider: "skillsmp",
      skillsmpApiKeySet: false,
    });
    const before = await t.client.execute("select count(*) as n from skill_executions");
    const run = await t.api.post("/api/skills/executions", { skillName: "shared-echo", input: {} });
    expect(run.status).toBe(503);
    expect(run.body.error.message.startsWith("Skills execution is disabled")).toBe(true);
    const after = await t.client.execute("select count(*) as n from skill_executions");
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
    expect((await t.api.get("/api/skills?q=shared-echo")).body.total).toBe(1);
    await t.api.put("/api/settings", { skillsEnabled: true });
    expect(
      (await t.api.post("/api/skills/executions", { skillName: "shared-echo", input: {} })).status,
    ).toBe(200);
  });

  it("settings keep the SkillsMP key write-only", async () => {
    const res = await t.api.put("/api/settings", {
      skillsmpApiKey: "sk-secret-value",
      activeProvider: "skillssh",
    });
    expect(res.body.settings).toEqual({
      skillsEnabled: true,
      activeProvider: "skillssh",
      skillsmpApiKeySet: true,
      defaultLimits: {
        executionsPerMinute: null,
        concurrentSandboxRuns: null,
        dailySandboxSeconds: null,
      },
      approvalWebhookUrl: null,
      approvalWebhookSecretSet: false,
      customSkillExecution: true,
      ranker: "bm25",
    });
    expect(JSON.stringify((await t.api.get("/api/settings")).body)).not.toContain(
      "sk-secret-value",
    );
    expect((await t.api.put("/api/settings", { activeProvider: "nope" })).status).toBe(400);
    expect((await t.api.put("/api/settings", {})).status).toBe(400);
    await t.api.put("/api/settings", { activeProvider: "skillsmp" });
  });
});

describe("key expiry", () => {
  it("a key authenticates until its expiry and is refused (401) from then on", async () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const t = await startTestApp({ deps: { clock: () => now } });
    try {
      const created = await t.api.post("/api/keys", {
        name: "short-lived",
        expiresAt: "2030-01-01T01:00:00Z",
      });
      expect(created.status).toBe(201);
      const asKey = t.api.as(created.body.key);
      expect((await asKey.get("/api/skills/executions")).status).toBe(200);
      now = Date.parse("2030-01-01T01:00:00Z");
      const expired = await asKey.get("/api/skills/executions");
      expect(expired.status).toBe(401);
      expect(expired.body.error.code).toBe("unauthorized");
    } finally {
      await t.close();
    }
  });
});

describe("without a management token", () => {
  it("refuses management calls (fail closed)", async () => {
    const t = await startTestApp({ env: { MGMT_TOKEN: "" } });
    try {
      const res = await t.api.as("").get("/api/skills");
      expect(res.status).toBe(401);
      const guess = await t.api.as("undefined").get("/api/skills");
      expect(guess.status).toBe(401);
    } finally {
      await t.close();
    }
  });
});
