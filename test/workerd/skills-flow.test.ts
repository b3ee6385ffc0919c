/**
 * The REST flow inside workerd through the Worker entry (workers/src/runtime/worker/index.ts): install → list →
 * execute through `echo-handler`, API keys, error envelopes, and fail-closed configuration. The
 * database is a real libSQL engine reached over HTTP (test Hrana server).
 */

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../workers/src/runtime/worker/index.js";
import { captureConsole } from "../support/console-capture.js";
import { buildRequest, call, createKey, directDb, installBody, readJson } from "./support.js";

/** Calls the default export directly with a modified copy of the bindings. */
async function callWithEnv(
  bindings: Record<string, unknown>,
  method: string,
  path: string,
  token?: string | null,
) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(buildRequest(method, path, { token }), bindings as never, ctx);
  await waitOnExecutionContext(ctx);
  return readJson(res);
}

describe("Worker entry in workerd: install, list, execute", () => {
  it("runs the README install example end to end through echo-handler as an API key", async () => {
    const key = await createKey("workerd-example");
    const installed = await call("POST", "/api/skills/install", {
      body: installBody("reverse-text", { apiKeyId: key.id }),
    });
    expect(installed.status).toBe(201);
    expect(installed.body.skill).toMatchObject({
      name: "reverse-text",
      version: "1.0.0",
      mode: "on",
      enabled: true,
      apiKeyId: key.id,
    });

    const duplicate = await call("POST", "/api/skills/install", {
      body: installBody("reverse-text", { apiKeyId: key.id }),
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error.code).toBe("skill_exists");

    const list = await call("GET", "/api/skills?q=reverse-text");
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, page: 1, limit: 50, totalPages: 1 });
    expect(list.body.data[0].id).toBe(installed.body.skill.id);

    const run = await call("POST", "/api/skills/executions", {
      token: key.key,
      body: { skillName: "reverse-text", input: { text: "hello from workerd" } },
    });
    expect(run.status).toBe(200);
    expect(run.body.execution).toMatchObject({
      skillId: installed.body.skill.id,
      skillName: "reverse-text",
      version: "1.0.0",
      status: "success",
      input: { text: "hello from workerd" },
      output: { text: "hello from workerd" },
      attempts: 1,
    });
    expect(run.body.execution.durationMs).toBeGreaterThanOrEqual(0);

    const again = await call("GET", `/api/skills/executions/${run.body.execution.id}`, {
      token: key.key,
    });
    expect(again.status).toBe(200);
    expect(again.body.execution.output).toEqual({ text: "hello from workerd" });
    const rows = await directDb().execute({
      sql: "select status, api_key_id from skill_executions where id = ?",
      args: [run.body.execution.id],
    });
    expect(rows.rows.map((r) => [r.status, r.api_key_id])).toEqual([["success", key.id]]);
  });

  it("lets a new API key run a global skill (apiKeyId left out) and keeps other keys' skills hidden", async () => {
    const global = await call("POST", "/api/skills/install", {
      body: installBody("workerd-global-echo"),
    });
    expect(global.status).toBe(201);
    expect(global.body.skill.apiKeyId).toBeNull();
    const owner = await createKey("workerd-owner");
    const other = await createKey("workerd-other");
    await call("POST", "/api/skills/install", {
      body: installBody("workerd-private-echo", { apiKeyId: owner.id }),
    });

    const run = await call("POST", "/api/skills/executions", {
      token: other.key,
      body: { skillName: "workerd-global-echo@^1.0.0", input: { text: "shared" } },
    });
    expect(run.status).toBe(200);
    expect(run.body.execution).toMatchObject({
      status: "success",
      output: { text: "shared" },
      version: "1.0.0",
    });

    const hidden = await call("POST", "/api/skills/executions", {
      token: other.key,
      body: { skillName: "workerd-private-echo", input: { text: "x" } },
    });
    expect(hidden.status).toBe(404);
    const mine = await call("POST", "/api/skills/executions", {
      token: owner.key,
      body: { skillName: "workerd-private-echo", input: { text: "mine" } },
    });
    expect(mine.body.execution.output).toEqual({ text: "mine" });
  });

  it("answers malformed JSON and invalid input with 400 and writes nothing", async () => {
    const db = directDb();
    const count = async (table: string) =>
      Number((await db.execute(`select count(*) as n from ${table}`)).rows[0]!.n);
    const skillsBefore = await count("skills");
    const malformed = await call("POST", "/api/skills/install", { body: "{" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_json");
    const badVersion = await call("POST", "/api/skills/install", {
      body: installBody("workerd-bad", { version: "1.0" }),
    });
    expect(badVersion.status).toBe(400);
    expect(JSON.stringify(badVersion.body.error)).toContain("version");
    expect(await count("skills")).toBe(skillsBefore);

    const executionsBefore = await count("skill_executions");
    const malformedRun = await call("POST", "/api/skills/executions", { body: '{"skillName":' });
    expect(malformedRun.status).toBe(400);
    expect(malformedRun.body.error.code).toBe("invalid_json");
    const unknown = await call("POST", "/api/skills/executions", {
      body: { skillName: "workerd-no-such", input: {} },
    });
    expect(unknown.status).toBe(404);
    expect(await count("skill_executions")).toBe(executionsBefore);
  });

  it("answers 503 misconfigured when LIBSQL_URL is missing", async () => {
    // The operator's log names the missing binding; the client's answer does not.
    const output = captureConsole();
    let res: Awaited<ReturnType<typeof callWithEnv>>;
    try {
      res = await callWithEnv({ ...env, LIBSQL_URL: "" }, "GET", "/api/skills");
    } finally {
      output.restore();
    }
    expect(output.lines.some((l) => l.includes("LIBSQL_URL is not configured"))).toBe(true);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      error: { code: "misconfigured", message: "The service is not configured" },
    });
    const quiet = captureConsole();
    const health = await callWithEnv(
      { ...env, LIBSQL_URL: undefined },
      "GET",
      "/api/health",
      null,
    ).finally(() => quiet.restore());
    expect(health.status).toBe(503);
    expect(health.body.error.code).toBe("misconfigured");
  });

  it("refuses management calls when no MGMT_TOKEN is bound, while API keys keep working", async () => {
    const key = await createKey("workerd-no-mgmt");
    await call("POST", "/api/skills/install", { body: installBody("workerd-no-mgmt-echo") });
    const bindings = { ...env, MGMT_TOKEN: undefined };
    const list = await callWithEnv(bindings, "GET", "/api/skills", env.MGMT_TOKEN);
    expect(list.status).toBe(401);
    expect(list.body.error.code).toBe("unauthorized");
    const keys = await callWithEnv(bindings, "GET", "/api/keys", env.MGMT_TOKEN);
    expect(keys.status).toBe(401);
    const health = await callWithEnv(bindings, "GET", "/api/health", null);
    expect(health.body).toEqual({ status: "ok" });

    const ctx = createExecutionContext();
    const request = buildRequest("POST", "/api/skills/executions", {
      token: key.key,
      body: { skillName: "workerd-no-mgmt-echo", input: { text: "still works" } },
    });
    const run = await readJson(await worker.fetch(request, bindings as never, ctx));
    await waitOnExecutionContext(ctx);
    expect(run.status).toBe(200);
    expect(run.body.execution.output).toEqual({ text: "still works" });
  });
});

describe("Worker entry in workerd: schema patterns run in linear time", () => {
  it("validates ^(a+)+$ with the linear-time engine and refuses a lookahead at install", async () => {
    const name = `workerd-pattern-${Date.now()}`;
    const installed = await call("POST", "/api/skills/install", {
      body: installBody(name, {
        schema: {
          input: { type: "object", properties: { text: { type: "string", pattern: "^(a+)+$" } } },
        },
      }),
    });
    expect(installed.status).toBe(201);
    const evil = await call("POST", "/api/skills/executions", {
      body: { skillName: name, input: { text: `${"a".repeat(30)}!` } },
    });
    expect(evil.status).toBe(400);
    expect(evil.body.error).toMatchObject({
      code: "invalid_skill_input",
      details: [{ field: "input.text", message: "String does not match pattern." }],
    });
    const fine = await call("POST", "/api/skills/executions", {
      body: { skillName: name, input: { text: "aaa" } },
    });
    expect(fine.body.execution.output).toEqual({ text: "aaa" });

    const refused = await call("POST", "/api/skills/install", {
      body: installBody(`${name}-lookahead`, {
        schema: {
          input: { type: "object", properties: { text: { type: "string", pattern: "(?=a)a" } } },
        },
      }),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("invalid_schema_pattern");
    expect(refused.body.error.details[0].field).toBe("schema.input.properties.text.pattern");
  });
});
