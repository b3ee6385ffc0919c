/**
 * The Agent Skills catalog of Skillgate's own API: the committed `skills/` files are exactly what
 * `npm run agent-skills` generates (drift), every entry is a SKILL.md the catalog installer
 * accepts, every route of the OpenAPI document is covered, and the catalog is served over REST
 * (`/api/agent-skills`) and MCP (`skillgate_agent_skills_list` / `_get`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_SKILLS_DIR, agentSkillFiles } from "../../scripts/agent-skills-files.js";
import { parseSkillMd } from "../../workers/src/catalogs/skill-md.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { callTool, connectMcp } from "../support/mcp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const generated = agentSkillFiles();

let t: TestApp;
let key: { key: string; id: string };
let client: Client;

beforeAll(async () => {
  t = await startTestApp();
  key = await t.api.createKey("agent-skills");
  client = await connectMcp(t.url, key.key);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

describe("Agent Skills files", () => {
  it("match what npm run agent-skills generates (run it after changing a route)", () => {
    const onDisk = readdirSync(join(root, AGENT_SKILLS_DIR), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `${AGENT_SKILLS_DIR}/${d.name}/SKILL.md`)
      .sort();
    expect(onDisk).toEqual([...generated.keys()].sort());
    for (const [path, text] of generated) {
      expect(readFileSync(join(root, path), "utf8"), `${path} is stale`).toBe(text);
    }
  });

  it("are valid SKILL.md files for the catalog installer, named after their folders", () => {
    expect(generated.size).toBeGreaterThanOrEqual(7);
    for (const [path, text] of generated) {
      const parsed = parseSkillMd(text);
      expect(parsed.name).toBe(path.split("/")[1]);
      expect(parsed.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(parsed.name.length).toBeLessThanOrEqual(64);
      expect(parsed.description.length).toBeGreaterThan(0);
      expect(parsed.description.length).toBeLessThanOrEqual(1024);
      const metadata = parsed.frontmatter.metadata as Record<string, unknown>;
      expect(["api", "cli", "config"]).toContain(metadata.category);
      expect(parsed.body.length).toBeGreaterThan(200);
    }
  });

  it("cover every operation of the OpenAPI document", async () => {
    const doc = (await t.api.get("/openapi.json")).body;
    const all = [...generated.values()].join("\n");
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, object>)) {
      for (const method of Object.keys(item)) {
        operations++;
        expect(all).toContain(`### \`${method.toUpperCase()} ${path}\``);
      }
    }
    expect(operations).toBeGreaterThan(20);
  });
});

describe("Agent Skills over REST", () => {
  it("lists entries with pagination and a category filter", async () => {
    const api = t.api.as(key.key);
    const all = await api.get("/api/agent-skills");
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(generated.size);
    expect(all.body.data.map((e: { name: string }) => e.name)).toContain(
      "skillgate-skill-registry",
    );
    const page2 = await api.get("/api/agent-skills?limit=3&page=2");
    expect(page2.body).toMatchObject({ page: 2, limit: 3, total: generated.size });
    expect(page2.body.data).toEqual(all.body.data.slice(3, 6));
    const config = await api.get("/api/agent-skills?category=config");
    expect(config.body.data).toEqual([
      expect.objectContaining({ name: "skillgate-connect", category: "config" }),
    ]);
    expect((await api.get("/api/agent-skills?category=nope")).status).toBe(400);
  });

  it("serves one entry as text/markdown, identical to the committed file", async () => {
    const res = await fetch(`${t.url}/api/agent-skills/skillgate-skill-executions`, {
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(await res.text()).toBe(
      readFileSync(join(root, AGENT_SKILLS_DIR, "skillgate-skill-executions/SKILL.md"), "utf8"),
    );
    const missing = await t.api.as(key.key).get("/api/agent-skills/no-such-entry");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("agent_skill_not_found");
    expect((await t.api.as(undefined).get("/api/agent-skills")).status).toBe(401);
  });
});

describe("Agent Skills over MCP", () => {
  it("lists and reads entries with the catalog tools; an unknown name is an error result", async () => {
    const list = await callTool(client, "skillgate_agent_skills_list", { category: "api" });
    expect(list.isError).toBeFalsy();
    const names = list.structuredContent.data.map((e: { name: string }) => e.name);
    expect(names).toContain("skillgate-tool-injection");
    expect(names).not.toContain("skillgate-connect");
    const one = await callTool(client, "skillgate_agent_skills_get", { name: "skillgate-connect" });
    expect(one.structuredContent).toMatchObject({ name: "skillgate-connect", category: "config" });
    expect(one.structuredContent.markdown).toBe(generated.get("skills/skillgate-connect/SKILL.md"));
    const missing = await callTool(client, "skillgate_agent_skills_get", { name: "nope" });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent.error.code).toBe("agent_skill_not_found");
  });
});
