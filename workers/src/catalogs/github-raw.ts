/**
 * Finds a skill's SKILL.md on GitHub raw without assuming the branch or one layout. The default
 * branch is reached through the `HEAD` ref (`{GITHUB_RAW_BASE_URL}/{owner}/{repo}/HEAD/<path>`);
 * the folders tried are `skills/<id>/`, `.claude/skills/<id>/`, `.agents/skills/<id>/` and the
 * repository root.
 *
 * GitHub raw serves a symbolic link as its target path (the file's whole text is one line such as
 * `../common/SKILL.md`). Such a SKILL.md is followed inside the same repository and ref, at most
 * {@link MAX_SKILL_MD_LINKS} links deep; a link leaving the repository, an absolute one, a missing
 * target or a longer chain is refused with `skill_md_link` (422).
 */
import { AppError, InvalidInputError, NotFoundError, UpstreamError } from "../errors.js";
import { parseSkillMd } from "./skill-md.js";
import type { SkillLocation } from "./types.js";
import { joinUrl, upstreamGet } from "./upstream.js";

/** Largest SKILL.md accepted, in characters. */
export const MAX_SKILL_MD_CHARS = 512 * 1024;
/** Most symbolic links followed from one candidate path (a link to a link counts as two). */
export const MAX_SKILL_MD_LINKS = 3;
/** Longest link target considered, in characters (longer one-line files are not links). */
const MAX_LINK_CHARS = 1024;

/** 422: a SKILL.md that is a symbolic link which cannot be followed. */
export class SkillMdLinkError extends AppError {
  constructor(message: string, details?: unknown) {
    super("skill_md_link", message, { details });
  }
}

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
  /** The raw URL it was read from (the link target's, when the candidate was a link). */
  url: string;
  /** Path relative to the repository, with the ref first (e.g. `HEAD/.claude/skills/x/SKILL.md`). */
  path: string;
  text: string;
  /** Paths of the symbolic links followed to reach `path`, in order (empty when none). */
  via: string[];
}

/**
 * The target of a symbolic link as GitHub raw serves it: a file whose whole text is one path
 * (no whitespace, no URL scheme, not a frontmatter fence; one trailing newline tolerated).
 * @returns the target text, or undefined when `text` is not a link.
 */
export function linkTarget(text: string): string | undefined {
  if (text.length > MAX_LINK_CHARS) return undefined;
  const target = text.replace(/\r?\n$/, "");
  if (target === "" || /[\s\p{Cc}]/u.test(target)) return undefined;
  if (target.startsWith("---") || target.includes("://")) return undefined;
  return target;
}

/**
 * Resolves a link target against the link's own path inside one ref.
 * @param linkPath path of the link with the ref first (`HEAD/skills/x/SKILL.md`).
 * @returns the target's path with the same ref first.
 * @throws SkillMdLinkError for an absolute target, one that leaves the repository, or unsafe
 *   characters.
 */
export function resolveLinkPath(linkPath: string, target: string): string {
  const [ref, ...parts] = linkPath.split("/");
  if (target.startsWith("/") || /^[A-Za-z]:[\\/]/.test(target)) {
    throw new SkillMdLinkError(
      `SKILL.md at ${linkPath} is a symbolic link to the absolute path ${target}, outside the repository`,
      { path: linkPath, target },
    );
  }
  const segments = parts.slice(0, -1);
  for (const segment of target.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length === 0) {
        throw new SkillMdLinkError(
          `SKILL.md at ${linkPath} is a symbolic link to ${target}, which leaves the repository`,
          { path: linkPath, target },
        );
      }
      segments.pop();
      continue;
    }
    if (!PATH_SEGMENT.test(segment)) {
      throw new SkillMdLinkError(
        `SKILL.md at ${linkPath} is a symbolic link to ${target}, whose path has characters that are not allowed`,
        { path: linkPath, target },
      );
    }
    segments.push(segment);
  }
  if (segments.length === 0) {
    throw new SkillMdLinkError(
      `SKILL.md at ${linkPath} is a symbolic link to ${target}, which names no file`,
      { path: linkPath, target },
    );
  }
  return [ref, ...segments].join("/");
}

/**
 * Fetches the first candidate that exists, following symbolic links (see the module docstring).
 * A root `SKILL.md` is accepted only when its `name` (or the repository name) equals the skill
 * id, so a repository's unrelated root skill is never installed in place of the one asked for.
 * @param baseUrl `GITHUB_RAW_BASE_URL`.
 * @throws InvalidInputError for unsafe owner/repo/id/ref/path; NotFoundError `skill_md_not_found`
 *   naming every path tried; SkillMdLinkError (422) for a link that cannot be followed;
 *   UpstreamError for 429, other errors, oversize files.
 */
export async function locateSkillMd(
  baseUrl: string,
  fetchImpl: typeof fetch,
  loc: SkillLocation,
): Promise<LocatedSkillMd> {
  const owner = safePart(loc.owner, "owner");
  const repo = safePart(loc.repo, "repo");
  const tried: string[] = [];
  const get = (path: string) => fetchFile(baseUrl, fetchImpl, `${owner}/${repo}`, path);
  for (const path of candidatePaths(loc)) {
    tried.push(path);
    const first = await get(path);
    if (!first) continue;
    const found = await followLinks(get, `${owner}/${repo}`, path, first);
    if (path === "HEAD/SKILL.md" && !rootMatches(found.text, loc.skillId, repo)) continue;
    return found;
  }
  throw new NotFoundError(
    `No SKILL.md for ${loc.skillId} in ${owner}/${repo} (tried ${tried.join(", ")})`,
    "skill_md_not_found",
  );
}

/** One file from GitHub raw: undefined on 404. @throws UpstreamError (see upstream.ts). */
async function fetchFile(
  baseUrl: string,
  fetchImpl: typeof fetch,
  repoPath: string,
  path: string,
): Promise<{ url: string; text: string } | undefined> {
  const url = joinUrl(baseUrl, `${repoPath}/${path}`);
  const res = await upstreamGet("GitHub raw", fetchImpl, url, { accept: "text/plain" }, true);
  if (res.status === 404) {
    await res.body?.cancel();
    return undefined;
  }
  const text = await res.text();
  if (text.length > MAX_SKILL_MD_CHARS) {
    throw new UpstreamError(
      `SKILL.md at ${path} is larger than ${MAX_SKILL_MD_CHARS} characters`,
      "skill_md_too_large",
    );
  }
  return { url: url.href, text };
}

/** Follows a chain of symbolic links from `path` (whose file is `file`) to a regular file. */
async function followLinks(
  get: (path: string) => Promise<{ url: string; text: string } | undefined>,
  repoPath: string,
  path: string,
  file: { url: string; text: string },
): Promise<LocatedSkillMd> {
  const via: string[] = [];
  let current = { path, ...file };
  for (;;) {
    const target = linkTarget(current.text);
    if (target === undefined)
      return { url: current.url, path: current.path, text: current.text, via };
    if (via.length === MAX_SKILL_MD_LINKS) {
      throw new SkillMdLinkError(
        `SKILL.md at ${path} is a chain of more than ${MAX_SKILL_MD_LINKS} symbolic links (${[...via, current.path].join(" -> ")})`,
        { path, links: [...via, current.path] },
      );
    }
    const next = resolveLinkPath(current.path, target);
    via.push(current.path);
    const fetched = await get(next);
    if (!fetched) {
      throw new SkillMdLinkError(
        `SKILL.md at ${current.path} is a symbolic link to ${target}, and ${next} does not exist in ${repoPath}`,
        { path: current.path, target, resolved: next },
      );
    }
    current = { path: next, ...fetched };
  }
}

function rootMatches(text: string, skillId: string, repo: string): boolean {
  if (skillId.toLowerCase() === repo.toLowerCase()) return true;
  try {
    return parseSkillMd(text).name === skillId.toLowerCase();
  } catch {
    return false;
  }
}
