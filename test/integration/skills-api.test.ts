import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ApiClient, startTestApp, type TestApp } from "../support/app.js";

const example = {
  name: "reverse-text",
  version: "1.0.0",
  description: "Reverses a string",
  schema: {
    input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    output: { type: "object", properties: { text: { type: "string" } } },
  },
  handlerCode: "echo-handler",
};

async function countRows(t: TestApp, table: string): Promise<number> {
  const rs = await t.client.execute(`select count(*) as n from ${table}`);
  return Number(rs.rows[0]!.n);
}

describe("skills REST API", () => {
  // A fresh app and database per test: counts and names never depend on other tests.
  let t: TestApp;
  let api: ApiClient;
  beforeEach(async () => {
    t = await startTestApp();
    api = t.api;
  });
  afterEach(() => t.close());

  it("runs the README install example end to end through echo-handler", async () => {
    const key = await api.createKey("example");
    const installed = await api.post("/api/skills/install", { ...example, apiKeyId: key.id });
    expect(installed.status).toBe(201);
    expect(installed.body.skill).toMatchObject({
      name: "reverse-text",
      version: "1.0.0",
      mode: "on",
      policy: "auto",
      apiKeyId: key.id,
    });

    const list = await api.get("/api/skills?q=reverse");
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, page: 1, limit: 50, totalPages: 1 });
    expect(list.body.data[0].id).toBe(installed.body.skill.id);

    const run = await api
      .as(key.key)
      .post("/api/skills/executions", { skillName: "reverse-text", input: { text: "hello" } });
    expect(run.status).toBe(200);
    expect(run.body.execution).toMatchObject({
      skillName: "reverse-text",
      version: "1.0.0",
      status: "success",
      output: { text: "hello" },
      attempts: 1,
      apiKeyId: key.id,
    });
    expect(typeof run.body.execution.durationMs).toBe("number");
  });

  it("installs a global skill when apiKeyId is left out", async () => {
    const res = await api.post("/api/skills/install", { ...example, name: "global-echo" });
    expect(res.status).toBe(201);
    expect(res.body.skill.apiKeyId).toBeNull();
    const run = await api.post("/api/skills/executions", {
      skillName: "global-echo@1.0.0",
      input: { text: "x" },
    });
    expect(run.body.execution.output).toEqual({ text: "x" });
  });

  it("normalises a shorthand input schema on install", async () => {
    const res = await api.post("/api/skills/install", {
      ...example,
      name: "weather",
      schema: { input: { city: "string", days: { type: "integer", required: true } } },
    });
    expect(res.status).toBe(201);
    expect(res.body.skill.schema.input).toEqual({
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" } },
      required: ["days"],
    });
  });

  it("a bad version is a 400 naming the field, and nothing is written", async () => {
    const before = await countRows(t, "skills");
    const res = await api.post("/api/skills/install", {
      ...example,
      name: "bad-version",
      version: "1.0",
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_input");
    expect(JSON.stringify(res.body.error)).toContain("version");
    expect(await countRows(t, "skills")).toBe(before);
  });

  it("PUT on an unknown id is a 404 and malformed JSON is a 400", async () => {
    const before = await countRows(t, "skills");
    const put = await api.put("/api/skills/00000000-0000-0000-0000-000000000000", { mode: "off" });
    expect(put.status).toBe(404);
    expect(put.body.error.code).toBe("skill_not_found");
    const malformed = await api.request("POST", "/api/skills/install", "{");
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_json");
    const malformedPut = await api.request("PUT", "/api/skills/whatever", "{");
    expect(malformedPut.status).toBe(400);
    expect(await countRows(t, "skills")).toBe(before);
  });

  it("rejects builtin names, duplicates, unknown handlers and bad names", async () => {
    const dup = await api.post("/api/skills/install", { ...example, name: "dup-skill" });
    expect(dup.status).toBe(201);
    const again = await api.post("/api/skills/install", { ...example, name: "dup-skill" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("skill_exists");
    const badName = await api.post("/api/skills/install", { ...example, name: "has space" });
    expect(badName.status).toBe(400);
    expect(badName.body.error.details[0].field).toBe("name");
    const noHandler = await api.post("/api/skills/install", {
      ...example,
      name: "nohandler",
      handlerCode: "missing",
    });
    expect(noHandler.status).toBe(400);
    expect(noHandler.body.error.details[0].field).toBe("handlerCode");
    const unknownField = await api.post("/api/skills/install", {
      ...example,
      name: "extra",
      bogus: 1,
    });
    expect(unknownField.status).toBe(400);
  });

  it("keeps enabled and mode consistent on update", async () => {
    const { body } = await api.post("/api/skills/install", {
      ...example,
      name: "toggle",
      mode: "auto",
    });
    const id = body.skill.id;
    const off = await api.put(`/api/skills/${id}`, { enabled: false });
    expect(off.body.skill).toMatchObject({ enabled: false, mode: "off" });
    const on = await api.put(`/api/skills/${id}`, { enabled: true });
    expect(on.body.skill).toMatchObject({ enabled: true, mode: "on" });
    const contradictory = await api.put(`/api/skills/${id}`, { enabled: true, mode: "off" });
    expect(contradictory.status).toBe(400);
    const empty = await api.put(`/api/skills/${id}`, {});
    expect(empty.status).toBe(400);
    const edit = await api.put(`/api/skills/${id}`, {
      mode: "auto",
      policy: "hybrid",
      tags: ["text"],
      timeoutMs: 5000,
      description: "d",
    });
    expect(edit.body.skill).toMatchObject({
      mode: "auto",
      enabled: true,
      policy: "hybrid",
      tags: ["text"],
      timeoutMs: 5000,
      description: "d",
    });
    const read = await api.get(`/api/skills/${id}`);
    expect(read.body.skill.policy).toBe("hybrid");
  });

  it("a skill with mode off cannot be executed and writes no execution row", async () => {
    const { body } = await api.post("/api/skills/install", {
      ...example,
      name: "sleepy",
      mode: "off",
    });
    expect(body.skill.enabled).toBe(false);
    const before = await countRows(t, "skill_executions");
    const run = await api.post("/api/skills/executions", {
      skillName: "sleepy",
      input: { text: "x" },
    });
    expect(run.status).toBe(409);
    expect(run.body.error.code).toBe("skill_disabled");
    expect(run.body.error.message).toMatch(/disabled/);
    expect(await countRows(t, "skill_executions")).toBe(before);
  });

  it("answers 404 for an unknown skill and 400 for invalid input, writing nothing", async () => {
    expect(
      (await api.post("/api/skills/install", { ...example, name: "global-echo" })).status,
    ).toBe(201);
    const before = await countRows(t, "skill_executions");
    const unknown = await api.post("/api/skills/executions", {
      skillName: "no-such-skill",
      input: {},
    });
    expect(unknown.status).toBe(404);
    const invalid = await api.post("/api/skills/executions", {
      skillName: "global-echo",
      input: { text: 42 },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe("invalid_skill_input");
    expect(invalid.body.error.details[0].field).toBe("input.text");
    expect(await countRows(t, "skill_executions")).toBe(before);
  });

  it("deletes a skill (204) and then answers 404", async () => {
    const { body } = await api.post("/api/skills/install", { ...example, name: "short-lived" });
    const del = await api.delete(`/api/skills/${body.skill.id}`);
    expect(del.status).toBe(204);
    const again = await api.delete(`/api/skills/${body.skill.id}`);
    expect(again.status).toBe(404);
    const run = await api.post("/api/skills/executions", {
      skillName: "short-lived",
      input: { text: "x" },
    });
    expect(run.status).toBe(404);
  });

  it("filters and paginates the list", async () => {
    for (let i = 0; i < 5; i++)
      await api.post("/api/skills/install", {
        ...example,
        name: `page-${i}`,
        mode: i % 2 ? "auto" : "on",
        tags: ["paging"],
      });
    const page = await api.get("/api/skills?q=paging&limit=2&page=2");
    expect(page.body).toMatchObject({ total: 5, page: 2, limit: 2, totalPages: 3 });
    expect(page.body.data.map((s: { name: string }) => s.name)).toEqual(["page-2", "page-3"]);
    const auto = await api.get("/api/skills?q=paging&mode=auto");
    expect(auto.body.total).toBe(2);
    const big = await api.get("/api/skills?limit=1000");
    expect(big.body.limit).toBe(200);
    const builtin = await api.get("/api/skills?source=local&q=page-");
    expect(builtin.body.total).toBe(5);
    const bad = await api.get("/api/skills?page=0");
    expect(bad.status).toBe(400);
  });

  it("management routes: 401 without valid credentials, 403 management_required for an API key", async () => {
    const own = await startTestApp();
    try {
      const mgmt = own.api;
      const key = await mgmt.createKey("limited");
      expect((await mgmt.as(undefined).get("/api/skills")).status).toBe(401);
      expect((await mgmt.as("wrong-token").get("/api/skills")).status).toBe(401);
      const installed = await mgmt.post("/api/skills/install", example);
      const id = installed.body.skill.id;
      const keysBefore = (await mgmt.get("/api/keys")).body.data.length;
      const asKey = mgmt.as(key.key);
      const attempts = [
        await asKey.get("/api/skills"),
        await asKey.post("/api/skills/install", { ...example, name: "by-a-key" }),
        await asKey.put(`/api/skills/${id}`, { mode: "off" }),
        await asKey.delete(`/api/skills/${id}`),
        await asKey.post("/api/skills/cache/invalidate"),
        await asKey.get("/api/settings"),
        await asKey.put("/api/settings", { skillsEnabled: false }),
        await asKey.get("/api/keys"),
        await asKey.post("/api/keys", { name: "x" }),
        await asKey.delete(`/api/keys/${key.id}`),
      ];
      for (const res of attempts) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("management_required");
      }
      expect((await mgmt.get(`/api/skills/${id}`)).body.skill.mode).toBe("on");
      expect((await mgmt.get("/api/skills?q=by-a-key")).body.total).toBe(0);
      expect((await mgmt.get("/api/settings")).body.settings.skillsEnabled).toBe(true);
      const keysAfter = (await mgmt.get("/api/keys")).body.data;
      expect(keysAfter.length).toBe(keysBefore);
      expect(keysAfter.find((k: { id: string }) => k.id === key.id).revokedAt).toBeNull();
    } finally {
      await own.close();
    }
  });

  it("health answers anonymously with status only, details for management", async () => {
    const anon = await api.as(undefined).get("/api/health");
    expect(anon.status).toBe(200);
    expect(anon.body).toEqual({ status: "ok" });
    const mgmt = await api.get("/api/health");
    expect(mgmt.body.details.database).toMatchObject({ ok: true, writable: true });
    expect(mgmt.body.details.handlers).toContain("echo-handler");
  });

  it("serves an OpenAPI document generated from the route schemas", async () => {
    const doc = await api.as(undefined).get("/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.1.0");
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        "/api/skills",
        "/api/skills/install",
        "/api/skills/executions",
        "/api/keys",
      ]),
    );
    expect(doc.body.components.schemas.Skill.properties.mode.enum).toEqual(["on", "off", "auto"]);
  });
});
