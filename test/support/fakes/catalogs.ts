/**
 * Fake catalogs and GitHub raw, speaking the wire formats observed in public clients:
 * - skills.sh `GET /api/search?q=&limit=` → `{ query, searchType, skills: [{ id, skillId, name,
 *   installs, source }], count, duration_ms }` (no auth);
 * - SkillsMP `GET /api/v1/skills/search?q&page&limit&sortBy` with `Authorization: Bearer` →
 *   `{ success: true, data: { skills: [...], pagination: {...}, filters: {} } }`, errors
 *   `{ success: false, error: { code, message } }`;
 * - GitHub raw `GET /{owner}/{repo}/{ref}/{path}` where `HEAD` means the default branch, `404:
 *   Not Found` text otherwise.
 * Every fake records requests and has a switchable failure `mode`.
 */
import { type FakeServer, sendJson, startFakeServer } from "./http.js";
import { type FakeMode, withMode } from "./search.js";

/** A skills.sh entry. */
export interface FakeSkillsShEntry {
  source: string;
  skillId: string;
  name: string;
  installs: number;
}

function fail(mode: FakeMode, res: Parameters<typeof sendJson>[0]): boolean {
  if (mode === "429") sendJson(res, 429, { error: "rate limited" }, { "retry-after": "60" });
  else if (mode === "500") sendJson(res, 500, { error: "internal" });
  else if (mode === "notjson") {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>maintenance</title>");
  } else return false;
  return true;
}

/** Starts a fake skills.sh serving `entries` (substring match on name and skillId). */
export async function startFakeSkillsSh(
  entries: FakeSkillsShEntry[],
): Promise<FakeServer & { mode: FakeMode }> {
  const state = { mode: "ok" as FakeMode };
  const server = await startFakeServer((req, res) => {
    const url = new URL(req.url, "http://fake");
    if (url.pathname !== "/api/search") return sendJson(res, 404, { error: "Not found" });
    if (fail(state.mode, res)) return;
    if (state.mode === "malformed")
      return sendJson(res, 200, { query: "x", skills: { not: "a list" } });
    const q = (url.searchParams.get("q") ?? "").toLowerCase();
    const limit = Number(url.searchParams.get("limit") ?? 10);
    const found =
      state.mode === "empty"
        ? []
        : entries.filter((e) => `${e.name} ${e.skillId}`.toLowerCase().includes(q));
    sendJson(res, 200, {
      query: q,
      searchType: "fuzzy",
      skills: found.slice(0, limit).map((e) => ({
        id: `${e.source}/${e.skillId}`,
        skillId: e.skillId,
        name: e.name,
        installs: e.installs,
        source: e.source,
      })),
      count: found.length,
      duration_ms: 3,
    });
  });
  return withMode(server, state);
}

/** A SkillsMP entry. */
export interface FakeSkillsMpEntry {
  id: string;
  name: string;
  description: string;
  author: string;
  stars: number;
  githubUrl: string;
}

/** Starts a fake SkillsMP accepting `apiKey`. */
export async function startFakeSkillsMp(
  apiKey: string,
  entries: FakeSkillsMpEntry[],
): Promise<FakeServer & { mode: FakeMode }> {
  const state = { mode: "ok" as FakeMode };
  const server = await startFakeServer((req, res) => {
    const url = new URL(req.url, "http://fake");
    if (url.pathname !== "/api/v1/skills/search")
      return sendJson(res, 404, {
        success: false,
        error: { code: "NOT_FOUND", message: "Not found" },
      });
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return sendJson(res, 401, {
        success: false,
        error: { code: "INVALID_API_KEY", message: "Invalid API key" },
      });
    }
    if (fail(state.mode, res)) return;
    if (state.mode === "malformed")
      return sendJson(res, 200, { success: true, data: { skills: 42 } });
    const q = (url.searchParams.get("q") ?? "").toLowerCase();
    const page = Number(url.searchParams.get("page") ?? 1);
    const limit = Number(url.searchParams.get("limit") ?? 20);
    let found = entries.filter((e) => `${e.name} ${e.description}`.toLowerCase().includes(q));
    if (url.searchParams.get("sortBy") === "stars")
      found = [...found].sort((a, b) => b.stars - a.stars);
    const slice = found.slice((page - 1) * limit, page * limit);
    sendJson(res, 200, {
      success: true,
      data: {
        skills: slice.map((e) => ({
          ...e,
          skillUrl: `https://skillsmp.com/skills/${e.id}`,
          updatedAt: 1770060931,
        })),
        pagination: {
          page,
          limit,
          total: found.length,
          totalPages: Math.ceil(found.length / limit),
          hasNext: page * limit < found.length,
          hasPrev: page > 1,
        },
        filters: {},
      },
    });
  });
  return withMode(server, state);
}

/** One fake repository: its default branch and files per branch. */
export interface FakeRepo {
  defaultBranch: string;
  branches: Record<string, Record<string, string>>;
}

/** Starts a fake GitHub raw host over `repos` keyed by `owner/repo`. */
export async function startFakeGithubRaw(
  repos: Record<string, FakeRepo>,
): Promise<FakeServer & { mode: FakeMode }> {
  const state = { mode: "ok" as FakeMode };
  const server = await startFakeServer((req, res) => {
    if (fail(state.mode, res)) return;
    const [owner, repo, ref, ...rest] = decodeURIComponent(new URL(req.url, "http://fake").pathname)
      .split("/")
      .filter(Boolean);
    const entry = repos[`${owner}/${repo}`];
    const branch = entry && ref === "HEAD" ? entry.defaultBranch : ref;
    const file = entry && branch ? entry.branches[branch]?.[rest.join("/")] : undefined;
    if (file === undefined) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
      return res.end("404: Not Found");
    }
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    res.end(file);
  });
  return withMode(server, state);
}

/** Builds a SKILL.md text from frontmatter lines and a body. */
export function skillMd(frontmatter: Record<string, string>, body: string): string {
  const lines = Object.entries(frontmatter).map(([k, v]) => `${k}: ${v}`);
  return `---\n${lines.join("\n")}\n---\n\n${body}\n`;
}
