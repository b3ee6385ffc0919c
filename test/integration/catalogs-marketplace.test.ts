import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  INSTRUCTION_HANDLER,
  instructionHandler,
} from "../../workers/src/skills/builtins/instructions.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { skillMd, startFakeGithubRaw, startFakeSkillsMp } from "../support/fakes/catalogs.js";
import type { FakeServer } from "../support/fakes/http.js";
import type { FakeMode } from "../support/fakes/search.js";

const KEY = "sk_live_skillsmp_env";
const SEO_BODY = "## SEO audit\n\nCheck titles, meta descriptions and headings.";

type Fake = FakeServer & { mode: FakeMode };
let t: TestApp;
let mp: Fake;
let gh: Fake;
let key: { key: string; id: string };

beforeAll(async () => {
  mp = await startFakeSkillsMp(KEY, [
    {
      id: "acme-skills-seo-audit",
      name: "seo-audit",
      description: "SEO audits",
      author: "acme",
      stars: 40,
      githubUrl: "https://github.com/acme/skills/tree/main/skills/seo-audit",
    },
    {
      id: "z-z-top",
      name: "top-skill",
      description: "Popular",
      author: "z",
      stars: 9000,
      githubUrl: "https://github.com/z/z/tree/main/top-skill",
    },
    {
      id: "y-y-mid",
      name: "mid-skill",
      description: "Middling",
      author: "y",
      stars: 300,
      githubUrl: "https://github.com/y/y",
    },
  ]);
  gh = await startFakeGithubRaw({
    "acme/skills": {
      defaultBranch: "main",
      branches: {
        main: {
          "skills/seo-audit/SKILL.md": skillMd(
            { name: "seo-audit", description: "Audit a page for SEO", version: "1.4.0" },
            SEO_BODY,
          ),
        },
      },
    },
  });
  t = await startTestApp({
    env: { SKILLSMP_BASE_URL: mp.url, SKILLSMP_API_KEY: KEY, GITHUB_RAW_BASE_URL: gh.url },
  });
  if (!t.services.executor.hasHandler(INSTRUCTION_HANDLER)) {
    t.services.executor.registerHandler(INSTRUCTION_HANDLER, instructionHandler);
  }
  key = await t.api.createKey("mp");
});
afterAll(async () => {
  await t.close();
  await mp.close();
  await gh.close();
});

describe("GET /api/skills/marketplace", () => {
  it("lists the most-starred skills when q is empty", async () => {
    const res = await t.api.as(key.key).get("/api/skills/marketplace?limit=2");
    expect(res.status).toBe(200);
    expect(res.body.data.map((s: { name: string }) => s.name)).toEqual(["top-skill", "mid-skill"]);
    expect(res.body).toMatchObject({
      provider: "skillsmp",
      query: "",
      total: 3,
      page: 1,
      limit: 2,
    });
    const sent = mp.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(new URL(sent.url, "http://x").searchParams.get("sortBy")).toBe("stars");
  });

  it("searches with q and passes 429 and malformed payloads on as errors", async () => {
    const res = await t.api.get("/api/skills/marketplace?q=seo");
    expect(res.body.data).toEqual([
      expect.objectContaining({
        name: "seo-audit",
        source: "acme/skills",
        skillId: "seo-audit",
        stars: 40,
      }),
    ]);
    mp.mode = "429";
    expect((await t.api.get("/api/skills/marketplace?q=seo")).status).toBe(429);
    mp.mode = "malformed";
    const bad = await t.api.get("/api/skills/marketplace?q=seo");
    expect([bad.status, bad.body.error.code]).toEqual([502, "catalog_invalid_response"]);
    mp.mode = "ok";
  });

  it("uses the skillsmpApiKey setting before the secret", async () => {
    expect((await t.api.put("/api/settings", { skillsmpApiKey: "sk_setting_wrong" })).status).toBe(
      200,
    );
    const refused = await t.api.get("/api/skills/marketplace?q=seo");
    expect([refused.status, refused.body.error.code]).toEqual([502, "catalog_auth_failed"]);
    expect(mp.requests.at(-1)!.headers.authorization).toBe("Bearer sk_setting_wrong");
    expect((await t.api.put("/api/settings", { skillsmpApiKey: null })).status).toBe(200);
    expect((await t.api.get("/api/skills/marketplace?q=seo")).status).toBe(200);
  });
});

describe("POST /api/skills/marketplace/install", () => {
  const body = { githubUrl: "https://github.com/acme/skills/tree/main/skills/seo-audit" };

  it("answers 409 unless skillsmp is the active provider", async () => {
    expect((await t.api.put("/api/settings", { activeProvider: "skillssh" })).status).toBe(200);
    const res = await t.api.as(key.key).post("/api/skills/marketplace/install", body);
    expect([res.status, res.body.error.code]).toEqual([409, "provider_not_active"]);
    expect((await t.api.put("/api/settings", { activeProvider: "skillsmp" })).status).toBe(200);
  });

  it("installs from the githubUrl a search returned, for the installing key", async () => {
    const res = await t.api.as(key.key).post("/api/skills/marketplace/install", body);
    expect(res.status).toBe(201);
    expect(res.body.skillMd.path).toBe("main/skills/seo-audit/SKILL.md");
    expect(res.body.skill).toMatchObject({
      name: "seo-audit",
      version: "1.4.0",
      mode: "auto",
      sourceProvider: "skillsmp",
      sourceRef: "acme/skills/seo-audit",
      instructions: SEO_BODY,
      apiKeyId: key.id,
    });
    const run = await t.api
      .as(key.key)
      .post("/api/skills/executions", { skillName: "seo-audit", input: {} });
    expect(run.body.execution.status).toBe("success");
    expect(run.body.execution.output.instructions).toBe(SEO_BODY);
    const again = await t.api
      .as(key.key)
      .post("/api/skills/marketplace/install", { source: "acme/skills", skillId: "seo-audit" });
    expect([again.status, again.body.error.code]).toEqual([409, "skill_exists"]);
  });

  it("refuses bodies that name no GitHub repository", async () => {
    expect(
      (await t.api.post("/api/skills/marketplace/install", { githubUrl: "https://gitlab.com/a/b" }))
        .status,
    ).toBe(400);
    expect((await t.api.post("/api/skills/marketplace/install", {})).status).toBe(400);
  });
});
