/**
 * Finds a skill's SKILL.md on GitHub raw without assuming the branch or one layout
 * (docs/catalogs.md#finding-the-skillmd). The default branch is reached through the `HEAD` ref
 * (`{GITHUB_RAW_BASE_URL}/{owner}/{repo}/HEAD/<path>`); the folders tried are `skills/<id>/`,
 * `.claude/skills/<id>/`, `.agents/skills/<id>/` and the repository root.
 */
import { InvalidInputError, NotFoundError, UpstreamError } from "../errors.js";
import { parseSkillMd } from "./skill-md.js";
import type { SkillLocation } from "./types.js";
import { joinUrl, upstreamGet } from "./upstream.js";

/** Largest SKILL.md accepted, in characters. */
export const MAX_SKILL_MD_CHARS = 512 * 1024;

const NAME_PART = /^[A-Za-z0-9_.-]{1,100}$/;
const PATH_SEGMENT = /^[A-Za-z0-9_.@+-]{1,255}$/;

function safePart(value: string, field: string, pattern = NAME_PART): string {
  if (!pattern.test(value) || /^\.+$/.test(value)) {
    throw new InvalidInputError(`${field} has characters that are not allowed`, [
      { field, message: "letters, digits, '.', '_', '-' only" },
    ]);
  }
  return value;
}

function safePath(value: string, field: string): string {
  const segments = value.split("/").filter((s) => s !== "");
  for (const s of segments) safePart(s, field, PATH_SEGMENT);
  return segments.join("/");
}

/** A GitHub repository reference parsed from `owner/repo` or a github.com URL. */
export interface RepoRef {
  owner: string;
  repo: string;
  ref?: string;
  path?: string;
}

/**
 * Parses `owner/repo`, `github.com/owner/repo` or `https://github.com/owner/repo[.git][/tree|blob/<ref>/<path>]`.
 * The first segment after `tree`/`blob` is taken as the ref (a ref with `/` in it cannot be told
 * apart from the path; the default-branch candidates still cover it).
 * @returns the parts, or null when the text names no GitHub repository.
 */
export function parseRepoRef(text: string): RepoRef | null {
  let rest = text.trim();
  const m = /^(?:https?:\/\/)?(?:www\.)?github\.com\/(.*)$/i.exec(rest);
  if (m) rest = m[1] ?? "";
  else if (/^[a-z][a-z0-9+.-]*:/i.test(rest)) return null;
  const parts = rest.split(/[?#]/)[0]!.split("/").filter(Boolean);
  const [owner, rawRepo, kind, ref, ...path] = parts;
  if (!owner || !rawRepo) return null;
  const repo = rawRepo.replace(/\.git$/, "");
  if (!NAME_PART.test(owner) || !NAME_PART.test(repo) || /^\.+$/.test(owner) || /^\.+$/.test(repo))
    return null;
  const out: RepoRef = { owner, repo };
  if ((kind === "tree" || kind === "blob") && ref) {
    out.ref = ref;
    if (path.length > 0) out.path = path.join("/");
  }
  return out;
}

/** The candidate paths, in order, relative to `{owner}/{repo}/`. */
export function candidatePaths(loc: SkillLocation): string[] {
  const id = safePart(loc.skillId, "skillId");
  const folder = loc.path ? safePath(loc.path.replace(/\/?SKILL\.md$/i, ""), "path") : undefined;
  const out: string[] = [];
  if (loc.ref !== undefined) {
    const ref = safePart(loc.ref, "ref");
    if (folder !== undefined) out.push(`${ref}/${folder ? `${folder}/` : ""}SKILL.md`);
  }
  if (folder) out.push(`HEAD/${folder}/SKILL.md`);
  out.push(
    `HEAD/skills/${id}/SKILL.md`,
    `HEAD/.claude/skills/${id}/SKILL.md`,
    `HEAD/.agents/skills/${id}/SKILL.md`,
    "HEAD/SKILL.md",
  );
  return [...new Set(out)];
}

/** A located SKILL.md. */
export interface LocatedSkillMd {
  /** The raw URL it was read from. */
  url: string;
  /** Path relative to the repository, with the ref first (e.g. `HEAD/.claude/skills/x/SKILL.md`). */
  path: string;
  text: string;
}

/**
 * Fetches the first candidate that exists. A root `SKILL.md` is accepted only when its `name`
 * (or the repository name) equals the skill id, so a repository's unrelated root skill is never
 * installed in place of the one asked for.
 * @param baseUrl `GITHUB_RAW_BASE_URL`.
 * @throws InvalidInputError for unsafe owner/repo/id/ref/path; NotFoundError `skill_md_not_found`
 *   naming every path tried; UpstreamError for 429, other errors, oversize files.
 */
export async function locateSkillMd(
  baseUrl: string,
  fetchImpl: typeof fetch,
  loc: SkillLocation,
): Promise<LocatedSkillMd> {
  const owner = safePart(loc.owner, "owner");
  const repo = safePart(loc.repo, "repo");
  const tried: string[] = [];
  for (const path of candidatePaths(loc)) {
    const url = joinUrl(baseUrl, `${owner}/${repo}/${path}`);
    tried.push(path);
    const res = await upstreamGet("GitHub raw", fetchImpl, url, { accept: "text/plain" }, true);
    if (res.status === 404) {
      await res.body?.cancel();
      continue;
    }
    const text = await res.text();
    if (text.length > MAX_SKILL_MD_CHARS) {
      throw new UpstreamError(
        `SKILL.md at ${path} is larger than ${MAX_SKILL_MD_CHARS} characters`,
        "skill_md_too_large",
      );
    }
    if (path === "HEAD/SKILL.md" && !rootMatches(text, loc.skillId, repo)) continue;
    return { url: url.href, path, text };
  }
  throw new NotFoundError(
    `No SKILL.md for ${loc.skillId} in ${owner}/${repo} (tried ${tried.join(", ")})`,
    "skill_md_not_found",
  );
}

function rootMatches(text: string, skillId: string, repo: string): boolean {
  if (skillId.toLowerCase() === repo.toLowerCase()) return true;
  try {
    return parseSkillMd(text).name === skillId.toLowerCase();
  } catch {
    return false;
  }
}
