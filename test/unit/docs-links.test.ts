/**
 * The documentation as a tool: every relative link of README.md, CONTRIBUTING.md and `docs/`
 * names a file that exists, and every `#section` anchor names a heading of its target, slugged as
 * GitHub renders it (`github-slugger`, repeated headings numbered `-1`, `-2`, …). The same holds
 * for the `docs/<page>.md#section` references that docstrings and comments of the code cite as the
 * source of a rule. Links to other sites are not fetched (the check runs offline).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import GithubSlugger from "github-slugger";
import type { Heading, Nodes, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

const MARKDOWN = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Every node of `tree`, depth first. */
function* walk(node: Nodes): Generator<Nodes> {
  yield node;
  if ("children" in node) for (const child of node.children) yield* walk(child);
}

const textOf = (node: Nodes): string =>
  "value" in node && typeof node.value === "string"
    ? node.value
    : "children" in node
      ? node.children.map((c) => textOf(c)).join("")
      : "";

const trees = new Map<string, Root>();
const treeOf = (path: string): Root => {
  let tree = trees.get(path);
  if (!tree) {
    tree = fromMarkdown(readFileSync(join(ROOT, path), "utf8"));
    trees.set(path, tree);
  }
  return tree;
};

/** The anchors GitHub gives the headings of the Markdown file `path` (plus explicit `<a id>`s). */
function anchorsOf(path: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const node of walk(treeOf(path))) {
    if (node.type === "heading") anchors.add(slugger.slug(textOf(node as Heading)));
    if (node.type === "html") {
      for (const m of node.value.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
    }
  }
  return anchors;
}

/** `file: url` for every relative link or anchor of `file` that names nothing. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const node of walk(treeOf(file))) {
    if (node.type !== "link" && node.type !== "definition" && node.type !== "image") continue;
    const url = node.url;
    if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith("//")) continue;
    const [pathPart = "", anchor] = url.split("#", 2);
    const target =
      pathPart === "" ? file : relative(ROOT, join(dirname(join(ROOT, file)), decodeURI(pathPart)));
    const line = node.position?.start.line ?? 0;
    if (!existsSync(join(ROOT, target))) {
      broken.push(`${file}:${line}: ${url} (no file ${target})`);
      continue;
    }
    if (anchor === undefined || anchor === "") continue;
    if (!target.endsWith(".md") || statSync(join(ROOT, target)).isDirectory()) {
      broken.push(`${file}:${line}: ${url} (an anchor into a file that is not Markdown)`);
      continue;
    }
    if (!anchorsOf(target).has(decodeURIComponent(anchor))) {
      broken.push(`${file}:${line}: ${url} (no section #${anchor} in ${target})`);
    }
  }
  return broken;
}

/** Source folders whose comments cite `docs/` pages. */
const CODE_DIRS = ["workers", "sandbox-host", "packages", "cli", "test", "scripts", "bench"];

/** Every code file under the code folders (repository-relative), fixtures and dependencies aside. */
function codeFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (name === "node_modules" || path === "test/fixtures") return [];
    if (statSync(join(ROOT, path)).isDirectory()) return codeFiles(path);
    return /\.(ts|tsx|mjs|cjs|js|sh)$/.test(name) ? [path] : [];
  });
}

/** `file:line: reference` for every `docs/<page>.md[#section]` a code file cites that names nothing. */
function brokenCitations(file: string): string[] {
  const broken: string[] = [];
  readFileSync(join(ROOT, file), "utf8")
    .split("\n")
    .forEach((text, i) => {
      for (const m of text.matchAll(/(?<![\w/."'-])docs\/([\w-]+\.md)(?:#([\w-]+))?/g)) {
        const target = `docs/${m[1]}`;
        if (!existsSync(join(ROOT, target))) broken.push(`${file}:${i + 1}: ${m[0]} (no file)`);
        else if (m[2] !== undefined && !anchorsOf(target).has(m[2])) {
          broken.push(`${file}:${i + 1}: ${m[0]} (no section #${m[2]})`);
        }
      }
    });
  return broken;
}

describe("documentation links", () => {
  it("finds the links and headings it checks", () => {
    expect(MARKDOWN.length).toBeGreaterThan(20);
    expect(anchorsOf("docs/architecture.md")).toContain("layers");
    const links = [...walk(treeOf("README.md"))].filter((n) => n.type === "link");
    expect(links.length).toBeGreaterThan(5);
  });

  it("every relative link of README.md, CONTRIBUTING.md and docs/ names an existing file and section", () => {
    expect(MARKDOWN.flatMap(brokenLinks)).toEqual([]);
  });

  it("every docs/ page and section the code cites exists", () => {
    const files = CODE_DIRS.flatMap(codeFiles);
    expect(files.length).toBeGreaterThan(300);
    expect(files.flatMap(brokenCitations)).toEqual([]);
  });
});
