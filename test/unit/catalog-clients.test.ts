import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { normalizeSkillsMpItem, SkillsMpClient } from "../../workers/src/catalogs/skillsmp.js";
import { normalizeSkillsShItem, SkillsShClient } from "../../workers/src/catalogs/skillssh.js";
import { AppError, UpstreamError } from "../../workers/src/errors.js";
import {
  type FakeSkillsMpEntry,
  startFakeSkillsMp,
  startFakeSkillsSh,
} from "../support/fakes/catalogs.js";
import type { FakeServer } from "../support/fakes/http.js";
import type { FakeMode } from "../support/fakes/search.js";

const KEY = "sk_live_skillsmp_test";
const SH = [
  { source: "acme/agent-skills", skillId: "pdf-tools", name: "pdf-tools", installs: 1200 },
  { source: "acme/agent-skills", skillId: "pdf-merge", name: "pdf-merge", installs: 30 },
  { source: "other/repo", skillId: "web-scrape", name: "web-scrape", installs: 5 },
];
const MP: FakeSkillsMpEntry[] = [
  {
    id: "acme-skills-seo",
    name: "seo-audit",
    description: "SEO audits",
    author: "acme",
    stars: 10,
    githubUrl: "https://github.com/acme/skills/tree/main/skills/seo-audit",
  },
  {
    id: "big-repo-pdf",
    name: "pdf-pro",
    description: "PDF work",
    author: "big",
    stars: 900,
    githubUrl: "https://github.com/big/repo/tree/trunk/.claude/skills/pdf-pro",
  },
  {
    id: "mid-x-y",
    name: "seo-lite",
    description: "Light SEO",
    author: "mid",
    stars: 50,
    githubUrl: "https://github.com/mid/x",
  },
];

let sh: FakeServer & { mode: FakeMode };
let mp: FakeServer & { mode: FakeMode };
beforeAll(async () => {
  sh = await startFakeSkillsSh(SH);
  mp = await startFakeSkillsMp(KEY, MP);
});
afterAll(async () => {
  await sh.close();
  await mp.close();
});
beforeEach(() => {
  sh.mode = "ok";
  mp.mode = "ok";
});

async function upstreamError(p: Promise<unknown>): Promise<UpstreamError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UpstreamError);
  return err as UpstreamError;
}

describe("skills.sh client", () => {
  it("searches with q and limit and normalises entries", async () => {
    const page = await new SkillsShClient(sh.url, fetch).search("pdf", 10);
    expect(new URL(sh.requests.at(-1)!.url, "http://x").search).toBe("?q=pdf&limit=10");
    expect(page).toMatchObject({
      provider: "skillssh",
      query: "pdf",
      total: 2,
      page: 1,
      limit: 10,
    });
    expect(page.data[0]).toEqual({
      id: "acme/agent-skills/pdf-tools",
      name: "pdf-tools",
      description: "",
      source: "acme/agent-skills",
      skillId: "pdf-tools",
      installs: 1200,
      stars: null,
      author: "acme",
      githubUrl: "https://github.com/acme/agent-skills",
      url: "https://skills.sh/acme/agent-skills/pdf-tools",
    });
  });

  it.each([
    ["429", 429, "catalog_rate_limited"],
    ["500", 502, "catalog_failed"],
    ["malformed", 502, "catalog_invalid_response"],
    ["notjson", 502, "catalog_invalid_response"],
  ] as const)("maps %s to %i %s", async (mode, status, code) => {
    sh.mode = mode;
    const err = await upstreamError(new SkillsShClient(sh.url, fetch).search("pdf", 5));
    expect([err.status, err.code]).toEqual([status, code]);
  });

  it("reads other spellings: topSource, slug, bare arrays, string counts", () => {
    expect(
      normalizeSkillsShItem({
        id: "o/r/s1",
        name: "s1",
        installs: "42",
        topSource: "github.com/o/r",
      }),
    ).toMatchObject({
      source: "o/r",
      skillId: "s1",
      installs: 42,
    });
    expect(normalizeSkillsShItem({ slug: "only-slug", name: "Only" })).toMatchObject({
      skillId: "only-slug",
      source: null,
    });
    expect(normalizeSkillsShItem({ installs: 3 })).toBeNull();
  });
});

describe("SkillsMP client", () => {
  it("sends the Bearer key, q, page, limit, sortBy and reads the data envelope", async () => {
    const page = await new SkillsMpClient(mp.url, KEY, fetch).search({
      q: "seo",
      page: 1,
      limit: 20,
    });
    const req = mp.requests.at(-1)!;
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(new URL(req.url, "http://x").search).toBe("?q=seo&page=1&limit=20");
    expect(page).toMatchObject({ provider: "skillsmp", total: 2, page: 1 });
    expect(page.data.map((s) => s.name)).toEqual(["seo-audit", "seo-lite"]);
    expect(page.data[0]).toMatchObject({
      source: "acme/skills",
      skillId: "seo-audit",
      stars: 10,
      author: "acme",
    });
    expect(page.data[1]).toMatchObject({ source: "mid/x", skillId: "seo-lite" });
  });

  it("lists the most-starred skills when q is empty", async () => {
    const page = await new SkillsMpClient(mp.url, KEY, fetch).search({
      q: "  ",
      page: 1,
      limit: 2,
    });
    expect(new URL(mp.requests.at(-1)!.url, "http://x").search).toBe(
      "?page=1&limit=2&sortBy=stars",
    );
    expect(page.data.map((s) => s.stars)).toEqual([900, 50]);
    expect(page.total).toBe(3);
  });

  it("needs a key and reports a refused key", async () => {
    const none = await upstreamError(
      new SkillsMpClient(mp.url, null, fetch).search({ q: "", page: 1, limit: 5 }),
    );
    expect([none.status, none.code]).toEqual([503, "skillsmp_not_configured"]);
    const wrong = await upstreamError(
      new SkillsMpClient(mp.url, "nope", fetch).search({ q: "", page: 1, limit: 5 }),
    );
    expect([wrong.status, wrong.code]).toEqual([502, "catalog_auth_failed"]);
    expect(wrong.message).toContain("INVALID_API_KEY");
  });

  it.each([
    ["429", 429, "catalog_rate_limited"],
    ["500", 502, "catalog_failed"],
    ["malformed", 502, "catalog_invalid_response"],
    ["notjson", 502, "catalog_invalid_response"],
  ] as const)("maps %s to %i %s", async (mode, status, code) => {
    mp.mode = mode;
    const err = await upstreamError(
      new SkillsMpClient(mp.url, KEY, fetch).search({ q: "x", page: 1, limit: 5 }),
    );
    expect([err.status, err.code]).toEqual([status, code]);
  });

  it("reads other spellings and a success:false envelope", async () => {
    expect(
      normalizeSkillsMpItem({
        name: "n",
        github_url: "https://github.com/a/b/blob/dev/tools/n/SKILL.md",
        stars: "7",
      }),
    ).toMatchObject({
      source: "a/b",
      skillId: "n",
      stars: 7,
    });
    const fake: typeof fetch = async () =>
      new Response(
        JSON.stringify({
          success: false,
          error: { code: "QUOTA", message: "Daily quota exceeded" },
        }),
      );
    const err = await new SkillsMpClient("http://unused.example", KEY, fake)
      .search({ q: "x", page: 1, limit: 5 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).message).toContain("Daily quota exceeded");
  });
});
