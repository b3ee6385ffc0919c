import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  candidatePaths,
  locateSkillMd,
  parseRepoRef,
} from "../../workers/src/catalogs/github-raw.js";
import { InvalidInputError, NotFoundError, UpstreamError } from "../../workers/src/errors.js";
import { skillMd, startFakeGithubRaw } from "../support/fakes/catalogs.js";
import type { FakeServer } from "../support/fakes/http.js";
import type { FakeMode } from "../support/fakes/search.js";

const md = (name: string) => skillMd({ name, description: `${name} skill` }, `# ${name}`);

let gh: FakeServer & { mode: FakeMode };
beforeAll(async () => {
  gh = await startFakeGithubRaw({
    "acme/claude-layout": {
      defaultBranch: "trunk",
      branches: { trunk: { ".claude/skills/pdf-tools/SKILL.md": md("pdf-tools") } },
    },
    "acme/skills-layout": {
      defaultBranch: "main",
      branches: { main: { "skills/seo/SKILL.md": md("seo") } },
    },
    "acme/agents-layout": {
      defaultBranch: "develop",
      branches: { develop: { ".agents/skills/lint/SKILL.md": md("lint") } },
    },
    "acme/root-skill": {
      defaultBranch: "master",
      branches: { master: { "SKILL.md": md("root-thing") } },
    },
    "acme/custom": {
      defaultBranch: "main",
      branches: {
        main: { "SKILL.md": md("unrelated") },
        v2: { "tools/deep/fmt/SKILL.md": md("fmt") },
      },
    },
  });
});
afterAll(() => gh.close());
beforeEach(() => {
  gh.mode = "ok";
  gh.requests.length = 0;
});

describe("locateSkillMd", () => {
  it("finds .claude/skills/<id>/ on a default branch named trunk through HEAD, never assuming main", async () => {
    const found = await locateSkillMd(gh.url, fetch, {
      owner: "acme",
      repo: "claude-layout",
      skillId: "pdf-tools",
    });
    expect(found.path).toBe("HEAD/.claude/skills/pdf-tools/SKILL.md");
    expect(found.url).toBe(`${gh.url}/acme/claude-layout/HEAD/.claude/skills/pdf-tools/SKILL.md`);
    expect(found.text).toContain("name: pdf-tools");
    expect(gh.requests.map((r) => r.url)).toEqual([
      "/acme/claude-layout/HEAD/skills/pdf-tools/SKILL.md",
      "/acme/claude-layout/HEAD/.claude/skills/pdf-tools/SKILL.md",
    ]);
  });

  it("finds skills/<id>/, .agents/skills/<id>/ and a matching root SKILL.md", async () => {
    expect(
      (await locateSkillMd(gh.url, fetch, { owner: "acme", repo: "skills-layout", skillId: "seo" }))
        .path,
    ).toBe("HEAD/skills/seo/SKILL.md");
    expect(
      (
        await locateSkillMd(gh.url, fetch, {
          owner: "acme",
          repo: "agents-layout",
          skillId: "lint",
        })
      ).path,
    ).toBe("HEAD/.agents/skills/lint/SKILL.md");
    expect(
      (
        await locateSkillMd(gh.url, fetch, {
          owner: "acme",
          repo: "root-skill",
          skillId: "root-thing",
        })
      ).path,
    ).toBe("HEAD/SKILL.md");
  });

  it("tries the catalog's ref and folder first", async () => {
    const found = await locateSkillMd(gh.url, fetch, {
      owner: "acme",
      repo: "custom",
      skillId: "fmt",
      ref: "v2",
      path: "tools/deep/fmt",
    });
    expect(found.path).toBe("v2/tools/deep/fmt/SKILL.md");
    expect(gh.requests.length).toBe(1);
  });

  it("does not take an unrelated root SKILL.md, and names every path tried", async () => {
    const err = await locateSkillMd(gh.url, fetch, {
      owner: "acme",
      repo: "custom",
      skillId: "missing",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).code).toBe("skill_md_not_found");
    expect((err as NotFoundError).message).toContain("HEAD/.agents/skills/missing/SKILL.md");
    expect(gh.requests.length).toBe(4);
  });

  it("reports 429 and server errors from GitHub raw", async () => {
    gh.mode = "429";
    const limited = await locateSkillMd(gh.url, fetch, {
      owner: "acme",
      repo: "custom",
      skillId: "x",
    }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(UpstreamError);
    expect((limited as UpstreamError).status).toBe(429);
    gh.mode = "500";
    const failed = await locateSkillMd(gh.url, fetch, {
      owner: "acme",
      repo: "custom",
      skillId: "x",
    }).catch((e: unknown) => e);
    expect((failed as UpstreamError).code).toBe("catalog_failed");
  });

  it("refuses unsafe coordinates before any request", async () => {
    for (const loc of [
      { owner: "..", repo: "r", skillId: "s" },
      { owner: "o", repo: "r/../../x", skillId: "s" },
      { owner: "o", repo: "r", skillId: "../s" },
      { owner: "o", repo: "r", skillId: "s", path: "a/../../b" },
      { owner: "o", repo: "r", skillId: "s", ref: "main/..", path: "x" },
      { owner: "o%2f", repo: "r", skillId: "s" },
    ]) {
      const err = await locateSkillMd(gh.url, fetch, loc).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidInputError);
    }
    expect(gh.requests.length).toBe(0);
  });
});

describe("parseRepoRef / candidatePaths", () => {
  it.each([
    ["acme/skills", { owner: "acme", repo: "skills" }],
    ["github.com/acme/skills", { owner: "acme", repo: "skills" }],
    ["https://github.com/acme/skills.git", { owner: "acme", repo: "skills" }],
    [
      "https://github.com/acme/skills/tree/main/skills/seo",
      { owner: "acme", repo: "skills", ref: "main", path: "skills/seo" },
    ],
    [
      "https://www.github.com/acme/skills/blob/dev/SKILL.md",
      { owner: "acme", repo: "skills", ref: "dev", path: "SKILL.md" },
    ],
  ])("parses %s", (text, expected) => {
    expect(parseRepoRef(text)).toEqual(expected);
  });

  it.each(["https://gitlab.com/a/b", "just-one", "../x", "ftp://github.com/a/b"])(
    "rejects %s",
    (text) => {
      expect(parseRepoRef(text)).toBeNull();
    },
  );

  it("orders the layouts: catalog path, skills/, .claude/skills/, .agents/skills/, root", () => {
    expect(
      candidatePaths({ owner: "o", repo: "r", skillId: "s", ref: "main", path: "x/s" }),
    ).toEqual([
      "main/x/s/SKILL.md",
      "HEAD/x/s/SKILL.md",
      "HEAD/skills/s/SKILL.md",
      "HEAD/.claude/skills/s/SKILL.md",
      "HEAD/.agents/skills/s/SKILL.md",
      "HEAD/SKILL.md",
    ]);
  });
});
