import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ROUTE_SCOPES, SCOPES, type Scope } from "../../workers/src/auth/scopes.js";
import { startTestApp, type TestApp } from "../support/app.js";

/**
 * One request per scoped route. Bodies and queries are deliberately invalid where a valid one
 * would reach a catalog on the internet: the scope check runs before validation, so a key with
 * the scope gets a 400 (or 404), never `missing_scope`.
 */
const CALLS: Array<{ method: string; path: string; body?: unknown; scope: Scope }> = [
  {
    method: "POST",
    path: "/api/skills/inject",
    scope: "inject",
    body: { format: "anthropic", request: { model: "m", max_tokens: 10, messages: [] } },
  },
  { method: "POST", path: "/api/skills/intercept", scope: "inject", body: {} },
  { method: "GET", path: "/api/skills/executions", scope: "read" },
  { method: "GET", path: "/api/skills/executions/unknown-id", scope: "read" },
  {
    method: "POST",
    path: "/api/skills/executions",
    scope: "execute",
    body: { skillName: "echo", input: { v: "x" } },
  },
  { method: "POST", path: "/api/skills/executions/unknown-id/approve", scope: "execute" },
  { method: "POST", path: "/api/skills/executions/unknown-id/reject", scope: "execute" },
  { method: "GET", path: "/api/skills/marketplace?limit=not-a-number", scope: "read" },
  { method: "GET", path: "/api/skills/skillssh?limit=not-a-number", scope: "read" },
  { method: "POST", path: "/api/skills/marketplace/install", scope: "catalog:install", body: {} },
  { method: "POST", path: "/api/skills/skillssh/install", scope: "catalog:install", body: {} },
  { method: "GET", path: "/api/skills", scope: "read" },
  { method: "POST", path: "/api/skills/install", scope: "skills:write", body: {} },
  { method: "GET", path: "/api/skills/unknown-id", scope: "read" },
  { method: "PUT", path: "/api/skills/unknown-id", scope: "skills:write", body: {} },
  { method: "DELETE", path: "/api/skills/unknown-id", scope: "skills:write" },
  { method: "GET", path: "/api/agent-skills", scope: "read" },
  { method: "GET", path: "/api/agent-skills/unknown-id", scope: "read" },
  { method: "POST", path: "/api/routing/observations", scope: "inject", body: {} },
  { method: "GET", path: "/api/routing/recommendation", scope: "read" },
];

describe("API key scopes", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
    await t.api.post("/api/skills/install", {
      name: "echo",
      version: "1.0.0",
      description: "echo",
      schema: { input: { type: "object", properties: { v: { type: "string" } } } },
      handlerCode: "echo-handler",
    });
  });
  afterEach(() => t.close());

  it("a new key holds every scope unless told otherwise; GET /api/keys/{id} shows them", async () => {
    const all = await t.api.post("/api/keys", { name: "all" });
    expect(all.status).toBe(201);
    expect(all.body.apiKey.scopes).toEqual([...SCOPES]);
    const some = await t.api.post("/api/keys", {
      name: "some",
      scopes: ["read", "inject", "read"],
    });
    expect(some.body.apiKey.scopes).toEqual(["inject", "read"]);
    const got = await t.api.get(`/api/keys/${some.body.apiKey.id}`);
    expect(got.status).toBe(200);
    expect(got.body.apiKey).toMatchObject({ id: some.body.apiKey.id, scopes: ["inject", "read"] });
    expect(JSON.stringify(got.body)).not.toContain(some.body.key);
    const stored = await t.client.execute("select scopes from api_keys where id = ?", [
      some.body.apiKey.id,
    ]);
    expect(JSON.parse(String(stored.rows[0]!.scopes))).toEqual(["inject", "read"]);
    expect((await t.api.get("/api/keys/unknown")).status).toBe(404);
    expect((await t.api.as(some.body.key).get(`/api/keys/${some.body.apiKey.id}`)).status).toBe(
      403,
    );
  });

  it("refuses an unknown scope with 400 naming the field, creating nothing", async () => {
    const before = await t.client.execute("select count(*) as n from api_keys");
    const res = await t.api.post("/api/keys", { name: "bad", scopes: ["read", "admin"] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_input");
    expect(res.body.error.details[0].field).toBe("scopes.1");
    const after = await t.client.execute("select count(*) as n from api_keys");
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });

  it("every scoped route is covered by this test", () => {
    const declared = ROUTE_SCOPES.map((r) => `${r.method} ${r.path}`).sort();
    const probed = [
      ...new Set(
        CALLS.map((c) => {
          const path = c.path.split("?")[0]!;
          const param = path.startsWith("/api/agent-skills/") ? "{name}" : "{id}";
          return `${c.method} ${path.replace(/unknown-id/, param)}`;
        }),
      ),
    ].sort();
    expect(probed).toEqual(declared);
  });

  it("every API route either declares a scope or is management-only or anonymous", async () => {
    const exempt = new Set([
      "GET /api/health",
      "POST /api/keys",
      "GET /api/keys",
      "GET /api/keys/{id}",
      "DELETE /api/keys/{id}",
      "PUT /api/keys/{id}/limits",
      "PUT /api/keys/{id}/approval-webhook",
      "PUT /api/keys/{id}/ranker",
      // A key's token usage and budget are the operator's.
      "GET /api/keys/{id}/token-usage",
      "PUT /api/keys/{id}/token-budget",
      "GET /api/settings",
      "PUT /api/settings",
      "POST /api/skills/cache/invalidate",
      "DELETE /api/skills/executions",
      // Installing a SKILL.md file (the CLI's install) is management-only.
      "POST /api/skills/skill-md/install",
      // Custom skills: HTTP-handler secrets and imported MCP servers are management-only.
      "POST /api/skills/{id}/secret/rotate",
      "GET /api/mcp-servers",
      "POST /api/mcp-servers",
      "POST /api/mcp-servers/{id}/refresh",
      "DELETE /api/mcp-servers/{id}",
    ]);
    const doc = await t.api.get("/openapi.json");
    const registered = Object.entries(doc.body.paths as Record<string, object>).flatMap(
      ([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    for (const r of registered) {
      const declared = ROUTE_SCOPES.some((s) => `${s.method} ${s.path}` === r);
      expect(declared || exempt.has(r), r).toBe(true);
    }
    expect(registered.length).toBeGreaterThan(10);
  });

  for (const scope of SCOPES) {
    it(`a key without "${scope}" is refused exactly the ${scope} routes`, async () => {
      const without = await t.api.post("/api/keys", {
        name: `no-${scope}`,
        scopes: SCOPES.filter((s) => s !== scope),
      });
      const only = await t.api.post("/api/keys", { name: `only-${scope}`, scopes: [scope] });
      const lacking = t.api.as(without.body.key);
      const holding = t.api.as(only.body.key);
      for (const call of CALLS) {
        const res = await lacking.request(call.method, call.path, call.body);
        if (call.scope === scope) {
          expect(res.status, `${call.method} ${call.path}`).toBe(403);
          expect(res.body.error.code).toBe("missing_scope");
          expect(res.body.error.details).toEqual({ scope });
          expect(res.body.error.message).toContain(scope);
        } else {
          expect(res.body?.error?.code, `${call.method} ${call.path}`).not.toBe("missing_scope");
        }
        const held = await holding.request(call.method, call.path, call.body);
        if (call.scope === scope) {
          expect(held.body?.error?.code, `${call.method} ${call.path}`).not.toBe("missing_scope");
        } else {
          expect(held.status, `${call.method} ${call.path}`).toBe(403);
          expect(held.body.error.details).toEqual({ scope: call.scope });
        }
      }
    });
  }

  it("a refused execution writes no execution row; the management token holds every scope", async () => {
    const key = await t.api.post("/api/keys", { name: "reader", scopes: ["read"] });
    const res = await t.api
      .as(key.body.key)
      .post("/api/skills/executions", { skillName: "echo", input: { v: "x" } });
    expect(res.status).toBe(403);
    const rows = await t.client.execute("select count(*) as n from skill_executions");
    expect(rows.rows[0]!.n).toBe(0);
    const mgmt = await t.api.post("/api/skills/executions", {
      skillName: "echo",
      input: { v: "x" },
    });
    expect(mgmt.status).toBe(200);
    expect(mgmt.body.execution.status).toBe("success");
  });
});
