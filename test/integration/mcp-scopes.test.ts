/**
 * Key scopes at the MCP front door, through the official SDK client over real HTTP: each tool needs
 * the scope its REST twin needs (listing skills, reading executions and the Agent Skills catalog
 * `read`, running a skill tool or the execute tool `execute`, enabling a skill `skills:write`). A key without it gets an
 * `isError` result `missing_scope` naming the scope, nothing runs or changes, and `tools/list`
 * leaves out what the key may not call. The management token and a key with every scope keep
 * every tool.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Scope } from "../../workers/src/auth/scopes.js";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";
import { callTool, connectMcp, listAllTools } from "../support/mcp.js";

let t: TestApp;
const clients: Client[] = [];
let owner: { client: Client; id: string };
let skillId: string;

/** A key holding exactly `scopes`, connected over MCP. */
async function scopedClient(name: string, scopes: Scope[]) {
  const res = await t.api.post("/api/keys", { name, scopes });
  expect(res.status).toBe(201);
  expect(res.body.apiKey.scopes).toEqual(scopes);
  const client = await connectMcp(t.url, res.body.key);
  clients.push(client);
  return { client, id: res.body.apiKey.id as string, key: res.body.key as string };
}

const executionCount = async () =>
  Number((await t.client.execute("select count(*) as n from skill_executions")).rows[0]!.n);

const names = async (c: Client) => (await listAllTools(c)).map((x) => x.name).sort();

function expectMissing(r: Awaited<ReturnType<typeof callTool>>, scope: Scope): void {
  expect(r.isError).toBe(true);
  expect(r.structuredContent.error).toMatchObject({ code: "missing_scope", details: { scope } });
  expect((r.content as { text: string }[])[0]!.text).toContain("missing_scope");
}

beforeAll(async () => {
  t = await startTestApp();
  const global = await t.api.post("/api/skills/install", {
    name: "scopedEcho",
    version: "1.0.0",
    description: "Echoes its input",
    handlerCode: "echo-handler",
    schema: { input: { text: { type: "string", required: true } } },
  });
  expect(global.status).toBe(201);
  // A skill owned by a key that may do everything except write skills.
  owner = await scopedClient("owner-no-write", ["inject", "execute", "read"]);
  const own = await t.api.post("/api/skills/install", {
    name: "ownedEcho",
    version: "1.0.0",
    description: "Echoes its input (owned)",
    handlerCode: "echo-handler",
    schema: { input: { text: { type: "string", required: true } } },
    apiKeyId: owner.id,
  });
  expect(own.status).toBe(201);
  skillId = own.body.skill.id;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t?.close();
});

describe("MCP tools and key scopes", () => {
  it("a key without `execute` can neither call a skill tool nor the execute tool, and nothing runs", async () => {
    const { client } = await scopedClient("mcp-read-only", ["read"]);
    const before = await executionCount();
    expectMissing(await callTool(client, "scopedEcho_v1_0_0", { text: "hi" }), "execute");
    expectMissing(
      await callTool(client, "skillgate_skills_execute", {
        skillName: "scopedEcho",
        input: { text: "hi" },
      }),
      "execute",
    );
    // Refused before the name is resolved: an unknown tool name answers the same.
    expectMissing(await callTool(client, "noSuchSkill_v9_9_9", {}), "execute");
    expect(await executionCount()).toBe(before);
    // It still reads: listing skills works.
    const list = await callTool(client, "skillgate_skills_list", { name: "scopedEcho" });
    expect(list.isError).toBeFalsy();
    expect(list.structuredContent.data.map((s: { name: string }) => s.name)).toEqual([
      "scopedEcho",
    ]);
  });

  it("a key without `read` can neither list skills nor read executions, but runs skills", async () => {
    const { client, id } = await scopedClient("mcp-execute-only", ["execute"]);
    expectMissing(await callTool(client, "skillgate_skills_list", {}), "read");
    expectMissing(await callTool(client, "skillgate_skills_executions", {}), "read");
    expectMissing(await callTool(client, "skillgate_agent_skills_list", {}), "read");
    const ran = await callTool(client, "scopedEcho_v1_0_0", { text: "ok" });
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toMatchObject({ status: "success", output: { text: "ok" } });
    const explicit = await callTool(client, "skillgate_skills_execute", {
      skillName: "scopedEcho",
      input: { text: "again" },
    });
    expect(explicit.isError).toBeFalsy();
    expect(explicit.structuredContent.execution).toMatchObject({
      status: "success",
      apiKeyId: id,
      output: { text: "again" },
    });
  });

  it("a key without `skills:write` cannot enable or disable even its own skill; the row is unchanged", async () => {
    const r = await callTool(owner.client, "skillgate_skills_enable", { skillId, enabled: false });
    expectMissing(r, "skills:write");
    const row = await t.client.execute("select mode from skills where id = ?", [skillId]);
    expect(row.rows[0]!.mode).not.toBe("off");
    // The management token holds every scope.
    const mgmt = await connectMcp(t.url, MGMT_TOKEN);
    clients.push(mgmt);
    const off = await callTool(mgmt, "skillgate_skills_enable", { skillId, enabled: false });
    expect(off.isError).toBeFalsy();
    expect(off.structuredContent.skill).toMatchObject({ id: skillId, mode: "off" });
  });

  it("tools/list leaves out the tools a key may not call", async () => {
    const reader = await scopedClient("mcp-list-read", ["read"]);
    const runner = await scopedClient("mcp-list-execute", ["execute"]);
    const full = await scopedClient("mcp-list-all", [
      "inject",
      "execute",
      "read",
      "skills:write",
      "catalog:install",
    ]);
    const readerNames = await names(reader.client);
    expect(readerNames).toContain("skillgate_skills_list");
    expect(readerNames).toContain("skillgate_skills_executions");
    expect(readerNames).not.toContain("skillgate_skills_execute");
    expect(readerNames).not.toContain("skillgate_skills_enable");
    expect(readerNames).not.toContain("scopedEcho_v1_0_0");
    const runnerNames = await names(runner.client);
    expect(runnerNames).toContain("skillgate_skills_execute");
    expect(runnerNames).toContain("scopedEcho_v1_0_0");
    expect(runnerNames).not.toContain("skillgate_skills_list");
    expect(runnerNames).not.toContain("skillgate_skills_enable");
    const fullNames = await names(full.client);
    for (const n of [
      "skillgate_skills_list",
      "skillgate_skills_enable",
      "skillgate_skills_execute",
      "skillgate_skills_executions",
      "scopedEcho_v1_0_0",
    ])
      expect(fullNames).toContain(n);
  });
});
