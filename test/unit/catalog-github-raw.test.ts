import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  candidatePaths,
  linkTarget,
  locateSkillMd,
  parseRepoRef,
  resolveLinkPath,
  SkillMdLinkError,
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

describe("symbolic links served by GitHub raw", () => {
  let links: FakeServer & { mode: FakeMode };
  beforeAll(async () => {
    links = await startFakeGithubRaw({
      "acme/linked": {
        defaultBranch: "main",
        branches: {
          main: {
            "skills/seo/SKILL.md": "../common/seo.md",
            "skills/common/seo.md": md("seo"),
            "skills/chain3/SKILL.md": "../hop1/SKILL.md",
            "skills/hop1/SKILL.md": "../hop2/SKILL.md\n",
            "skills/hop2/SKILL.md": "./real.md",
            "skills/hop2/real.md": md("chain3"),
            "skills/chain4/SKILL.md": "../chain3/SKILL.md",
            "skills/loop/SKILL.md": "SKILL.md",
            "skills/escape/SKILL.md": "../../../other-repo/SKILL.md",
            "skills/absolute/SKILL.md": "/etc/passwd",
            "skills/broken/SKILL.md": "../gone/SKILL.md",
            "skills/odd/SKILL.md": "../we%ird/SKILL.md",
            "SKILL.md": "skills/common/seo.md",
          },
          v2: { "tools/fmt/SKILL.md": "../../common/fmt.md", "common/fmt.md": md("fmt") },
        },
      },
      "acme/seo": {
        defaultBranch: "main",
        branches: { main: { "SKILL.md": "docs/SKILL.md", "docs/SKILL.md": md("seo") } },
      },
    });
  });
  afterAll(() => links.close());

  const at = (skillId: string, extra: { ref?: string; path?: string } = {}) =>
    locateSkillMd(links.url, fetch, { owner: "acme", repo: "linked", skillId, ...extra });
  const refusal = async (skillId: string): Promise<SkillMdLinkError> => {
    const err = await at(skillId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SkillMdLinkError);
    expect((err as SkillMdLinkError).status).toBe(422);
    expect((err as SkillMdLinkError).code).toBe("skill_md_link");
    expect((err as SkillMdLinkError).message).toContain("symbolic link");
    return err as SkillMdLinkError;
  };

  it("follows a relative link inside the same repository and ref", async () => {
    const found = await at("seo");
    expect(found.path).toBe("HEAD/skills/common/seo.md");
    expect(found.url).toBe(`${links.url}/acme/linked/HEAD/skills/common/seo.md`);
    expect(found.via).toEqual(["HEAD/skills/seo/SKILL.md"]);
    expect(found.text).toContain("name: seo");
    const onRef = await at("fmt", { ref: "v2", path: "tools/fmt" });
    expect([onRef.path, onRef.via]).toEqual(["v2/common/fmt.md", ["v2/tools/fmt/SKILL.md"]]);
  });

  it("follows a chain of three links, and refuses a fourth and a loop", async () => {
    const found = await at("chain3");
    expect(found.path).toBe("HEAD/skills/hop2/real.md");
    expect(found.via).toEqual([
      "HEAD/skills/chain3/SKILL.md",
      "HEAD/skills/hop1/SKILL.md",
      "HEAD/skills/hop2/SKILL.md",
    ]);
    expect((await refusal("chain4")).message).toContain("more than 3 symbolic links");
    expect((await refusal("loop")).message).toContain("more than 3 symbolic links");
  });

  it("refuses links that leave the repository, absolute links and unsafe paths without fetching them", async () => {
    links.requests.length = 0;
    expect((await refusal("escape")).message).toContain("leaves the repository");
    expect((await refusal("absolute")).message).toContain("outside the repository");
    expect((await refusal("odd")).message).toContain("not allowed");
    expect(links.requests.map((r) => r.url)).toEqual([
      "/acme/linked/HEAD/skills/escape/SKILL.md",
      "/acme/linked/HEAD/skills/absolute/SKILL.md",
      "/acme/linked/HEAD/skills/odd/SKILL.md",
    ]);
  });

  it("names the link and its missing target", async () => {
    const err = await refusal("broken");
    expect(err.message).toContain("HEAD/skills/broken/SKILL.md");
    expect(err.message).toContain("HEAD/skills/gone/SKILL.md does not exist");
  });

  it("checks a linked root SKILL.md against the skill id after following it", async () => {
    const root = await locateSkillMd(links.url, fetch, {
      owner: "acme",
      repo: "seo",
      skillId: "seo",
    });
    expect([root.path, root.via]).toEqual(["HEAD/docs/SKILL.md", ["HEAD/SKILL.md"]]);
    const unrelated = await at("missing").catch((e: unknown) => e);
    expect((unrelated as NotFoundError).code).toBe("skill_md_not_found");
  });
});

describe("linkTarget / resolveLinkPath", () => {
  it.each([
    ["../common/SKILL.md", "../common/SKILL.md"],
    ["SKILL.md\n", "SKILL.md"],
    ["---\nname: x\n---\nbody", undefined],
    ["# Title", undefined],
    ["see ../x.md", undefined],
    ["https://example.com/SKILL.md", undefined],
    ["a\nb", undefined],
    ["", undefined],
  ])("linkTarget(%j) = %j", (text, expected) => {
    expect(linkTarget(text)).toBe(expected);
  });

  it("resolves against the link's folder and keeps the ref", () => {
    expect(resolveLinkPath("HEAD/a/b/SKILL.md", "../c/SKILL.md")).toBe("HEAD/a/c/SKILL.md");
    expect(resolveLinkPath("main/SKILL.md", "./docs//x.md")).toBe("main/docs/x.md");
    expect(resolveLinkPath("v1/a/SKILL.md", "../b.md")).toBe("v1/b.md");
    expect(() => resolveLinkPath("v1/a/SKILL.md", "../../b.md")).toThrow(SkillMdLinkError);
    expect(() => resolveLinkPath("v1/SKILL.md", "..")).toThrow(SkillMdLinkError);
    expect(() => resolveLinkPath("v1/SKILL.md", "C:\\x")).toThrow(SkillMdLinkError);
  });
});
