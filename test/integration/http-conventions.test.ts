/**
 * HTTP conventions of the API: the OpenAPI document a client generator can use (operationIds,
 * tags, security per operation), the status-code rules (405 with Allow, paginated key list),
 * and CORS (off by default; configured origins get preflight answers before authentication).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
}

describe("OpenAPI document", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("names every operation uniquely, tags it with a declared tag and states its security", async () => {
    const doc = (await t.api.as(undefined).get("/openapi.json")).body;
    const declaredTags = new Set(doc.tags.map((tag: { name: string }) => tag.name));
    const schemes = Object.keys(doc.components.securitySchemes).sort();
    expect(schemes).toEqual(["apiKey", "managementToken"]);
    expect(doc.servers).toEqual([expect.objectContaining({ url: "/" })]);
    expect(doc.info.license.name).toBeTruthy();

    const operations: [string, Operation][] = Object.entries(
      doc.paths as Record<string, Record<string, Operation>>,
    ).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]): [string, Operation] => [`${method} ${path}`, op]),
    );
    expect(operations.length).toBeGreaterThan(20);
    const ids = operations.map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(operations.length);
    for (const [name, op] of operations) {
      expect(op.operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.tags?.length, name).toBe(1);
      expect(declaredTags.has(op.tags![0]), name).toBe(true);
      expect(op.security?.length, name).toBeGreaterThan(0);
      for (const requirement of op.security!)
        for (const scheme of Object.keys(requirement)) expect(schemes, name).toContain(scheme);
    }
    const byId = new Map(operations.map(([name, op]) => [op.operationId, { name, op }]));
    expect(byId.get("deleteSkill")?.name).toBe("delete /api/skills/{id}");
    expect(byId.get("listSkills")?.op.security).toEqual([{ managementToken: [] }]);
    expect(byId.get("executeSkill")?.op.security).toEqual([
      { apiKey: [] },
      { managementToken: [] },
    ]);
    // Anonymous health checks are allowed: an empty requirement makes the token optional.
    expect(byId.get("getHealth")?.op.security).toContainEqual({});
    expect(Object.keys(byId.get("executeSkill")!.op.responses)).toContain("200");
    expect(Object.keys(byId.get("installSkill")!.op.responses)).toContain("201");
  });
});

describe("status-code rules", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("answers 405 with an Allow header for a method a known path does not support", async () => {
    const res = await t.api.request("PATCH", "/api/skills/some-id", { enabled: false });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("DELETE, GET, HEAD, PUT");
    expect(res.body.error.code).toBe("method_not_allowed");
    const keys = await t.api.request("PUT", "/api/keys");
    expect(keys.status).toBe(405);
    expect(keys.headers.get("allow")).toBe("GET, HEAD, POST");
    // Unknown paths stay 404; without credentials the answer is 401 before any routing hint.
    expect((await t.api.get("/api/nothing-here")).status).toBe(404);
    expect((await t.api.as(undefined).request("PATCH", "/api/skills/some-id")).status).toBe(401);
  });

  it("pages the key list with page and limit, newest first", async () => {
    // Its own app: other tests of this group create keys too, in any order.
    const own = await startTestApp();
    try {
      const names = ["page-a", "page-b", "page-c"];
      const ids: string[] = [];
      for (const name of names) ids.push((await own.api.createKey(name)).id);
      const first = await own.api.get("/api/keys?page=1&limit=2");
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ total: 3, page: 1, limit: 2, totalPages: 2 });
      const second = await own.api.get("/api/keys?page=2&limit=2");
      const listed = [...first.body.data, ...second.body.data].map((k: { id: string }) => k.id);
      expect(new Set(listed)).toEqual(new Set(ids));
      expect(first.body.data).toHaveLength(2);
      expect(second.body.data).toHaveLength(1);
      expect((await own.api.get("/api/keys?limit=0")).status).toBe(400);
    } finally {
      await own.close();
    }
  });

  it("keeps the documented answers of creates and deletes", async () => {
    const key = await t.api.createKey("status-codes");
    const install = await t.api.post("/api/skills/install", {
      name: "status-echo",
      version: "1.0.0",
      handlerCode: "echo-handler",
    });
    expect(install.status).toBe(201);
    // Executing answers 200 with the finished execution, whatever its status.
    const run = await t.api.post("/api/skills/executions", {
      skillName: "status-echo",
      input: { a: 1 },
    });
    expect(run.status).toBe(200);
    expect(run.body.execution.status).toBe("success");
    // A revoke keeps the record and returns it; a skill delete removes it and returns nothing.
    const revoke = await t.api.delete(`/api/keys/${key.id}`);
    expect(revoke.status).toBe(200);
    expect(revoke.body.apiKey.revokedAt).not.toBeNull();
    const del = await t.api.delete(`/api/skills/${install.body.skill.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeNull();
  });
});

describe("CORS", () => {
  const preflight = (base: string, origin: string) =>
    fetch(`${base}/api/skills/executions`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });

  it("sends no CORS headers by default", async () => {
    const t = await startTestApp();
    try {
      const res = await preflight(t.url, "https://app.example.com");
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      const get = await fetch(`${t.url}/api/health`, {
        headers: { origin: "https://app.example.com" },
      });
      expect(get.status).toBe(200);
      expect(get.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await t.close();
    }
  });

  it("answers preflights of allowed origins before authentication and tags real answers", async () => {
    const t = await startTestApp({
      env: { CORS_ALLOWED_ORIGINS: "https://app.example.com, http://localhost:5173" },
    });
    try {
      const res = await preflight(t.url, "https://app.example.com");
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
      expect(res.headers.get("access-control-allow-methods")).toContain("POST");
      expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain(
        "authorization",
      );
      expect(res.headers.get("access-control-max-age")).toBe("600");
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();

      const other = await preflight(t.url, "https://evil.example.net");
      expect(other.headers.get("access-control-allow-origin")).toBeNull();

      const list = await fetch(`${t.url}/api/skills/executions`, {
        headers: { origin: "http://localhost:5173", authorization: `Bearer ${t.api.token}` },
      });
      expect(list.status).toBe(200);
      expect(list.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
      expect(list.headers.get("vary")).toContain("Origin");
      // The real request still needs credentials.
      const anon = await fetch(`${t.url}/api/skills/executions`, {
        headers: { origin: "http://localhost:5173" },
      });
      expect(anon.status).toBe(401);
      expect(anon.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    } finally {
      await t.close();
    }
  });

  it("refuses a malformed origin list at start-up", async () => {
    await expect(
      startTestApp({ env: { CORS_ALLOWED_ORIGINS: "https://app.example.com/path" } }),
    ).rejects.toThrow(/CORS_ALLOWED_ORIGINS/);
  });
});
