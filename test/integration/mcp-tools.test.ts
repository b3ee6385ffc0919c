/**
 * MCP tools through the official SDK client over real HTTP: each management tool, skill tools
 * under each executor policy (auto runs, manual refuses, hybrid waits for approval), argument
 * names mapped back, isolation between two keys, `isError` results on bad input, and `tools/list`
 * following registry changes without a restart.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";
import { callTool, connectMcp, listAllTools } from "../support/mcp.js";

let t: TestApp;
let keyA: { key: string; id: string };
let keyB: { key: string; id: string };
let a: Client;
let b: Client;
let mgmt: Client;
const ids: Record<string, string> = {};

async function install(body: Record<string, unknown>): Promise<string> {
  const res = await t.api.post("/api/skills/install", {
    description: `Echoes its input (${body.name})`,
    handlerCode: "echo-handler",
    schema: { input: { text: { type: "string", required: true } } },
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body.skill.id;
}

const names = async (c: Client) => (await listAllTools(c)).map((x) => x.name);
const executionCount = async (apiKeyId: string) =>
  Number(
    (
      await t.client.execute({
        sql: "select count(*) as n from skill_executions where api_key_id = ?",
        args: [apiKeyId],
      })
    ).rows[0]!.n,
  );

beforeAll(async () => {
  t = await startTestApp();
  keyA = await t.api.createKey("mcp-a");
  keyB = await t.api.createKey("mcp-b");
  ids.autoA = await install({ name: "autoEcho", version: "1.0.0", apiKeyId: keyA.id });
  ids.manualA = await install({
    name: "handsOff",
    version: "1.0.0",
    policy: "manual",
    apiKeyId: keyA.id,
  });
  ids.hybridA = await install({
    name: "approveMe",
    version: "1.0.0",
    policy: "hybrid",
    apiKeyId: keyA.id,
  });
  ids.bracketsA = await install({
    name: "pager",
    version: "1.0.0",
    apiKeyId: keyA.id,
    schema: {
      input: {
        type: "object",
        properties: { "page[size]": { type: "integer" } },
        required: ["page[size]"],
      },
    },
  });
  ids.secretB = await install({ name: "secretOfB", version: "1.0.0", apiKeyId: keyB.id });
  ids.global = await install({ name: "globalEcho", version: "1.0.0", mode: "auto" });
  ids.sleepyA = await install({
    name: "sleepyEcho",
    version: "1.0.0",
    mode: "off",
    apiKeyId: keyA.id,
  });
  a = await connectMcp(t.url, keyA.key);
  b = await connectMcp(t.url, keyB.key);
  mgmt = await connectMcp(t.url, MGMT_TOKEN);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close(), mgmt?.close()]);
  await t?.close();
});

describe("MCP skill tools: interception's policies", () => {
  it("runs an auto skill and returns its output as structuredContent and text", async () => {
    const r = await callTool(a, "autoEcho_v1_0_0", { text: "hi" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      status: "success",
      skill: "autoEcho@1.0.0",
      output: { text: "hi" },
    });
    expect(JSON.parse((r.content as { text: string }[])[0]!.text)).toEqual({ text: "hi" });
    const row = await t.api
      .as(keyA.key)
      .get(`/api/skills/executions/${r.structuredContent.executionId}`);
    expect(row.body.execution).toMatchObject({
      status: "success",
      apiKeyId: keyA.id,
      output: { text: "hi" },
    });
  });

  it("refuses a manual skill with an error result that asks for an explicit execution, recording nothing", async () => {
    const before = await executionCount(keyA.id);
    const r = await callTool(a, "handsOff_v1_0_0", { text: "hi" });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toContain("explicit execution");
    expect(r.structuredContent.executionId).toBeNull();
    expect(await executionCount(keyA.id)).toBe(before);
  });

  it("answers a hybrid skill with pending approval and the execution id; approving runs it", async () => {
    const r = await callTool(a, "approveMe_v1_0_0", { text: "later" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.status).toBe("pending_approval");
    const id = r.structuredContent.executionId as string;
    expect((r.content as { text: string }[])[0]!.text).toContain(id);
    const pending = await t.api.as(keyA.key).get(`/api/skills/executions/${id}`);
    expect(pending.body.execution).toMatchObject({ status: "pending", approval: "required" });
    const approved = await t.api.as(keyA.key).post(`/api/skills/executions/${id}/approve`);
    expect(approved.body.execution).toMatchObject({ status: "success", output: { text: "later" } });
  });

  it("returns isError for input the skill's schema rejects, and records nothing", async () => {
    const before = await executionCount(keyA.id);
    const r = await callTool(a, "autoEcho_v1_0_0", { text: 42 });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.status).toBe("error");
    expect(r.structuredContent.error).toMatch(/text/);
    expect(await executionCount(keyA.id)).toBe(before);
  });

  it("maps provider-safe argument names back to the skill's own before it runs", async () => {
    const tool = (await listAllTools(a)).find((x) => x.name === "pager_v1_0_0")!;
    expect(tool.inputSchema.properties).toHaveProperty("page_size");
    expect(tool.inputSchema.required).toEqual(["page_size"]);
    const r = await callTool(a, "pager_v1_0_0", { page_size: 25 });
    expect(r.structuredContent.output).toEqual({ "page[size]": 25 });
  });

  it("keeps each key to its own skills: B neither lists nor runs A's tools", async () => {
    const bNames = await names(b);
    expect(bNames).toContain("secretOfB_v1_0_0");
    expect(bNames).toContain("globalEcho_v1_0_0");
    expect(bNames).not.toContain("autoEcho_v1_0_0");
    await expect(callTool(b, "autoEcho_v1_0_0", { text: "x" })).rejects.toThrow(/Unknown tool/);
    await expect(callTool(b, "autoEcho@1.0.0", { text: "x" })).rejects.toThrow(/Unknown tool/);
    expect(await names(a)).not.toContain("secretOfB_v1_0_0");
    // Management sees global skills only among the skill tools.
    const mNames = await names(mgmt);
    expect(mNames).toContain("globalEcho_v1_0_0");
    expect(mNames).not.toContain("secretOfB_v1_0_0");
  });

  it("follows registry changes without a restart: install, disable, delete", async () => {
    expect(await names(a)).not.toContain("lateComer_v1_0_0");
    const id = await install({ name: "lateComer", version: "1.0.0", apiKeyId: keyA.id });
    expect(await names(a)).toContain("lateComer_v1_0_0");
    expect(
      (await callTool(a, "lateComer_v1_0_0", { text: "new" })).structuredContent.output,
    ).toEqual({ text: "new" });
    expect((await t.api.put(`/api/skills/${id}`, { enabled: false })).status).toBe(200);
    expect(await names(a)).not.toContain("lateComer_v1_0_0");
    const off = await callTool(a, "lateComer_v1_0_0", { text: "x" });
    expect(off.isError).toBe(true);
    expect(off.structuredContent.error).toContain("disabled");
    expect((await t.api.delete(`/api/skills/${id}`)).status).toBe(204);
    await expect(callTool(a, "lateComer_v1_0_0", {})).rejects.toThrow(/Unknown tool/);
  });
});

describe("MCP management tools", () => {
  it("skills_list: a key sees global and own skills, filtered by name substring and enabled", async () => {
    const all = await callTool(a, "skillgate_skills_list", { limit: 200 });
    const listed = all.structuredContent.data.map((s: { name: string }) => s.name);
    expect(listed).toEqual(expect.arrayContaining(["autoEcho", "globalEcho", "file_read"]));
    expect(listed).not.toContain("secretOfB");
    const byName = await callTool(a, "skillgate_skills_list", { name: "ECHO" });
    expect(byName.structuredContent.data.map((s: { name: string }) => s.name).sort()).toEqual([
      "autoEcho",
      "globalEcho",
      "sleepyEcho",
    ]);
    const disabled = await callTool(a, "skillgate_skills_list", {
      enabled: false,
      name: "echo",
    });
    expect(disabled.structuredContent.data.map((s: { name: string }) => s.name)).toEqual([
      "sleepyEcho",
    ]);
    expect(disabled.structuredContent).toMatchObject({
      total: 1,
      page: 1,
      limit: 50,
      totalPages: 1,
    });
    const other = await callTool(a, "skillgate_skills_list", { apiKeyId: keyB.id });
    expect(other.isError).toBe(true);
    expect(other.structuredContent.error.code).toBe("forbidden_api_key");
    const owned = await callTool(mgmt, "skillgate_skills_list", { apiKeyId: keyB.id });
    expect(owned.structuredContent.data.map((s: { name: string }) => s.name)).toEqual([
      "secretOfB",
    ]);
  });

  it("skills_enable: a key toggles its own skill, not a global or another key's one", async () => {
    const off = await callTool(a, "skillgate_skills_enable", {
      skillId: ids.autoA,
      enabled: false,
    });
    expect(off.structuredContent.skill).toMatchObject({
      id: ids.autoA,
      enabled: false,
      mode: "off",
    });
    expect(await names(a)).not.toContain("autoEcho_v1_0_0");
    const on = await callTool(a, "skillgate_skills_enable", { skillId: ids.autoA, enabled: true });
    expect(on.structuredContent.skill).toMatchObject({ enabled: true, mode: "on" });
    const global = await callTool(a, "skillgate_skills_enable", {
      skillId: ids.global,
      enabled: false,
    });
    expect(global.isError).toBe(true);
    expect(global.structuredContent.error.code).toBe("management_required");
    const foreign = await callTool(a, "skillgate_skills_enable", {
      skillId: ids.secretB,
      enabled: false,
    });
    expect(foreign.structuredContent.error.code).toBe("skill_not_found");
    const missing = await callTool(mgmt, "skillgate_skills_enable", {
      skillId: "nope",
      enabled: true,
    });
    expect(missing.structuredContent.error.code).toBe("skill_not_found");
    const bad = await callTool(a, "skillgate_skills_enable", { skillId: ids.autoA });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent.error.code).toBe("invalid_input");
    expect(bad.structuredContent.error.details[0].field).toBe("enabled");
  });

  it("skills_execute: runs by name, version or constraint, manual skills included; errors are results", async () => {
    const run = await callTool(a, "skillgate_skills_execute", {
      skillName: "handsOff@^1.0.0",
      input: { text: "explicit" },
      sessionId: "s-mcp",
    });
    expect(run.isError).toBeFalsy();
    expect(run.structuredContent.execution).toMatchObject({
      status: "success",
      skillName: "handsOff",
      sessionId: "s-mcp",
      apiKeyId: keyA.id,
      output: { text: "explicit" },
    });
    const foreign = await callTool(b, "skillgate_skills_execute", {
      skillName: "autoEcho",
      input: { text: "x" },
    });
    expect(foreign.structuredContent.error.code).toBe("skill_not_found");
    const badInput = await callTool(a, "skillgate_skills_execute", {
      skillName: "autoEcho",
      input: {},
    });
    expect(badInput.isError).toBe(true);
    expect(badInput.structuredContent.error.code).toBe("invalid_skill_input");
    const forMgmt = await callTool(mgmt, "skillgate_skills_execute", {
      skillName: "secretOfB",
      input: { text: "on behalf" },
      apiKeyId: keyB.id,
    });
    expect(forMgmt.structuredContent.execution).toMatchObject({
      status: "success",
      apiKeyId: keyB.id,
    });
  });

  it("skills_executions: own history, newest first, status filter, limit 50 by default and 100 at most", async () => {
    await callTool(b, "secretOfB_v1_0_0", { text: "b1" });
    await callTool(b, "secretOfB_v1_0_0", { text: "b2" });
    const mine = await callTool(b, "skillgate_skills_executions", { status: "success" });
    expect(mine.structuredContent.limit).toBe(50);
    const rows = mine.structuredContent.data as { apiKeyId: string; input: unknown }[];
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.every((r) => r.apiKeyId === keyB.id)).toBe(true);
    // Newest first: the two calls just made lead, in non-increasing creation time.
    expect(rows.slice(0, 2).map((r) => r.input)).toEqual(
      expect.arrayContaining([{ text: "b1" }, { text: "b2" }]),
    );
    const times = rows.map((r) => Date.parse((r as unknown as { createdAt: string }).createdAt));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    const limited = await callTool(b, "skillgate_skills_executions", { limit: 1 });
    expect(limited.structuredContent.data).toHaveLength(1);
    const tooMany = await callTool(b, "skillgate_skills_executions", { limit: 101 });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.structuredContent.error.code).toBe("invalid_input");
    const aView = await callTool(a, "skillgate_skills_executions", { limit: 100 });
    expect(
      aView.structuredContent.data.every((r: { apiKeyId: string }) => r.apiKeyId === keyA.id),
    ).toBe(true);
    const mView = await callTool(mgmt, "skillgate_skills_executions", {
      apiKeyId: keyB.id,
      limit: 100,
    });
    expect(mView.structuredContent.data.length).toBe(mView.structuredContent.total);
    expect(
      mView.structuredContent.data.every((r: { apiKeyId: string }) => r.apiKeyId === keyB.id),
    ).toBe(true);
  });
});
