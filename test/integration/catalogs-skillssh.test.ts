import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  INSTRUCTION_HANDLER,
  instructionHandler,
} from "../../workers/src/skills/builtins/instructions.js";
import { injectSkills } from "../../workers/src/skills/injection/injection.js";
import { interceptToolCalls } from "../../workers/src/skills/interception/interception.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { skillMd, startFakeGithubRaw, startFakeSkillsSh } from "../support/fakes/catalogs.js";
import type { FakeServer } from "../support/fakes/http.js";
import type { FakeMode } from "../support/fakes/search.js";

const BODY = "# PDF tools\n\nUse `pdftk` to merge files. Fill forms field by field.";
const PDF_MD = skillMd(
  { name: "pdf-tools", description: "Fill and merge PDF forms", metadata: "{ version: 2.0.1 }" },
  BODY,
);

type Fake = FakeServer & { mode: FakeMode };
let t: TestApp;
let sh: Fake;
let gh: Fake;
let keyA: { key: string; id: string };
let keyB: { key: string; id: string };

beforeAll(async () => {
  sh = await startFakeSkillsSh([
    { source: "acme/trunk-skills", skillId: "pdf-tools", name: "pdf-tools", installs: 321 },
    { source: "acme/trunk-skills", skillId: "broken", name: "broken", installs: 1 },
  ]);
  gh = await startFakeGithubRaw({
    "acme/trunk-skills": {
      defaultBranch: "trunk",
      branches: {
        trunk: {
          ".claude/skills/pdf-tools/SKILL.md": PDF_MD,
          ".claude/skills/broken/SKILL.md": skillMd(
            { name: "Broken_Name", description: "x" },
            "body",
          ),
        },
      },
    },
  });
});
afterAll(async () => {
  await sh.close();
  await gh.close();
});

// A fresh app, database and keys per test, and the fakes back to answering normally.
beforeEach(async () => {
  sh.mode = "ok";
  gh.mode = "ok";
  sh.requests.length = 0;
  gh.requests.length = 0;
  t = await startTestApp({ env: { SKILLSSH_BASE_URL: sh.url, GITHUB_RAW_BASE_URL: gh.url } });
  if (!t.services.executor.hasHandler(INSTRUCTION_HANDLER)) {
    t.services.executor.registerHandler(INSTRUCTION_HANDLER, instructionHandler);
  }
  keyA = await t.api.createKey("A");
  keyB = await t.api.createKey("B");
});
afterEach(() => t.close());

const installBody = { source: "acme/trunk-skills", skillId: "pdf-tools" };

/** Makes skills.sh the active catalog provider. */
async function activateSkillsSh(): Promise<void> {
  expect((await t.api.put("/api/settings", { activeProvider: "skillssh" })).status).toBe(200);
}

/** Activates skills.sh and installs `pdf-tools` as key A. */
async function installPdfToolsAsA(): Promise<void> {
  await activateSkillsSh();
  const res = await t.api.as(keyA.key).post("/api/skills/skillssh/install", installBody);
  expect(res.status).toBe(201);
}

describe("GET /api/skills/skillssh", () => {
  it("searches skills.sh for keys and management, capping limit at 100", async () => {
    const res = await t.api.as(keyA.key).get("/api/skills/skillssh?q=pdf&limit=500");
    expect(res.status).toBe(200);
    expect(new URL(sh.requests.at(-1)!.url, "http://x").searchParams.get("limit")).toBe("100");
    expect(res.body.data).toEqual([
      expect.objectContaining({
        name: "pdf-tools",
        source: "acme/trunk-skills",
        skillId: "pdf-tools",
        installs: 321,
      }),
    ]);
    expect((await t.api.get("/api/skills/skillssh?limit=0")).status).toBe(400);
    expect((await t.api.as(undefined).get("/api/skills/skillssh?q=pdf")).status).toBe(401);
  });

  it("passes catalog failures on as errors, never as empty lists", async () => {
    sh.mode = "429";
    const limited = await t.api.get("/api/skills/skillssh?q=pdf");
    expect([limited.status, limited.body.error.code]).toEqual([429, "catalog_rate_limited"]);
    sh.mode = "malformed";
    const bad = await t.api.get("/api/skills/skillssh?q=pdf");
    expect([bad.status, bad.body.error.code]).toEqual([502, "catalog_invalid_response"]);
    sh.mode = "ok";
  });
});

describe("POST /api/skills/skillssh/install", () => {
  it("answers 409 while skillsmp is the active provider, and writes nothing", async () => {
    const res = await t.api.as(keyA.key).post("/api/skills/skillssh/install", installBody);
    expect([res.status, res.body.error.code]).toEqual([409, "provider_not_active"]);
    const rows = await t.client.execute(
      "select count(*) as n from skills where source_provider = 'skillssh'",
    );
    expect(Number(rows.rows[0]!.n)).toBe(0);
  });

  it("acceptance: installs a skill kept at .claude/skills/<id>/ on a default branch named trunk", async () => {
    await activateSkillsSh();
    const res = await t.api.as(keyA.key).post("/api/skills/skillssh/install", installBody);
    expect(res.status).toBe(201);
    expect(res.body.skillMd).toEqual({
      url: `${gh.url}/acme/trunk-skills/HEAD/.claude/skills/pdf-tools/SKILL.md`,
      path: "HEAD/.claude/skills/pdf-tools/SKILL.md",
    });
    expect(gh.requests.some((r) => r.url.includes("/main/"))).toBe(false);
    expect(res.body.skill).toMatchObject({
      name: "pdf-tools",
      version: "2.0.1",
      description: "Fill and merge PDF forms",
      mode: "auto",
      policy: "auto",
      sourceProvider: "skillssh",
      sourceRef: "acme/trunk-skills/pdf-tools",
      handlerCode: INSTRUCTION_HANDLER,
      instructions: BODY,
      apiKeyId: keyA.id,
      installCount: 1,
    });
    expect(res.body.skill.schema.input.properties.task.type).toBe("string");
  });

  it("the installed skill is injected for the installing key only", async () => {
    await installPdfToolsAsA();
    const snapshot = await t.services.registry.snapshot();
    const request = {
      model: "gpt-test",
      messages: [
        { role: "user", content: "Please use pdf-tools to fill these PDF forms and merge them" },
      ],
    };
    const forA = injectSkills({ format: "openai-chat", request, snapshot, apiKeyId: keyA.id });
    expect(forA.injected.map((s) => `${s.name}@${s.version}`)).toContain("pdf-tools@2.0.1");
    const forB = injectSkills({ format: "openai-chat", request, snapshot, apiKeyId: keyB.id });
    expect(forB.injected.map((s) => s.name)).not.toContain("pdf-tools");
  });

  it("executes: the tool returns its SKILL.md body", async () => {
    await installPdfToolsAsA();
    const run = await t.api.as(keyA.key).post("/api/skills/executions", {
      skillName: "pdf-tools",
      input: { task: "merge a.pdf and b.pdf" },
    });
    expect(run.status).toBe(200);
    expect(run.body.execution.status).toBe("success");
    expect(run.body.execution.output).toEqual({
      skill: "pdf-tools",
      version: "2.0.1",
      task: "merge a.pdf and b.pdf",
      instructions: BODY,
    });
    const bare = await t.api
      .as(keyA.key)
      .post("/api/skills/executions", { skillName: "pdf-tools@2.0.1", input: {} });
    expect(bare.body.execution.output.instructions).toBe(BODY);
  });

  it("a model's call of the injected tool returns the SKILL.md body", async () => {
    await installPdfToolsAsA();
    const snapshot = await t.services.registry.snapshot();
    const request = {
      model: "gpt-test",
      messages: [{ role: "user", content: "fill pdf forms with pdf-tools" }],
    };
    const { injected } = injectSkills({
      format: "openai-chat",
      request,
      snapshot,
      apiKeyId: keyA.id,
    });
    const tool = injected.find((s) => s.name === "pdf-tools")!;
    const response = {
      id: "chatcmpl-1",
      object: "chat.completion",
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
                function: { name: tool.toolName, arguments: '{"task":"fill a form"}' },
              },
            ],
          },
        },
      ],
    };
    const out = await interceptToolCalls({
      format: "openai-chat",
      response,
      snapshot,
      apiKeyId: keyA.id,
      injected,
      executor: t.services.executor,
    });
    expect(out.toolResults).toEqual([
      expect.objectContaining({ callId: "call_1", skill: "pdf-tools@2.0.1", status: "success" }),
    ]);
    expect(out.toolResults[0]!.output).toMatchObject({ instructions: BODY, task: "fill a form" });
  });

  it("a second install of the same name@version is a 409; another key's install counts", async () => {
    await installPdfToolsAsA();
    const again = await t.api
      .as(keyA.key)
      .post("/api/skills/skillssh/install", { id: "acme/trunk-skills/pdf-tools" });
    expect([again.status, again.body.error.code]).toEqual([409, "skill_exists"]);
    const byB = await t.api.as(keyB.key).post("/api/skills/skillssh/install", installBody);
    expect(byB.status).toBe(201);
    expect(byB.body.skill).toMatchObject({ apiKeyId: keyB.id, installCount: 2 });
    const rows = await t.client.execute(
      "select api_key_id, install_count from skills where name = 'pdf-tools' order by install_count",
    );
    expect(rows.rows.map((r) => Number(r.install_count))).toEqual([2, 2]);
  });

  it("management installs globally; a key cannot install for another key", async () => {
    await activateSkillsSh();
    const global = await t.api.post("/api/skills/skillssh/install", installBody);
    expect(global.status).toBe(201);
    expect(global.body.skill.apiKeyId).toBeNull();
    const forOther = await t.api
      .as(keyA.key)
      .post("/api/skills/skillssh/install", { ...installBody, apiKeyId: keyB.id });
    expect(forOther.status).toBe(403);
  });

  it("reports a missing SKILL.md (404), an invalid one (422), GitHub 429 and bad bodies (400)", async () => {
    await activateSkillsSh();
    const missing = await t.api.post("/api/skills/skillssh/install", {
      source: "acme/trunk-skills",
      skillId: "nope",
    });
    expect([missing.status, missing.body.error.code]).toEqual([404, "skill_md_not_found"]);
    const invalid = await t.api.post("/api/skills/skillssh/install", {
      source: "acme/trunk-skills",
      skillId: "broken",
    });
    expect([invalid.status, invalid.body.error.code]).toEqual([422, "invalid_skill_md"]);
    expect(invalid.body.error.details).toEqual([expect.objectContaining({ field: "name" })]);
    gh.mode = "429";
    const limited = await t.api.post("/api/skills/skillssh/install", {
      source: "acme/other",
      skillId: "x",
    });
    expect(limited.status).toBe(429);
    gh.mode = "ok";
    expect((await t.api.post("/api/skills/skillssh/install", { skillId: "x" })).status).toBe(400);
    expect(
      (await t.api.post("/api/skills/skillssh/install", { source: "../etc", skillId: "x" })).status,
    ).toBe(400);
    expect(
      (await t.api.post("/api/skills/skillssh/install", { ...installBody, extra: 1 })).status,
    ).toBe(400);
  });
});
