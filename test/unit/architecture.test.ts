/**
 * The layering of `workers/src` (docs/architecture.md#layers), checked on the import graph: the
 * front doors (REST routes, MCP, A2A, the gateway proxy, the dashboard, the Agent Skills and routing routes) reach only the
 * services (never the database, the app's dependencies, a repository, a catalog client or the
 * domain below the services), the domain (`skills/`, the task and routing-history types)
 * imports neither the database driver nor Hono, the Worker entry points reach no Node-only module
 * (`*-node.ts`, the native libSQL driver), and no module below the entry points reads
 * `process.env`.
 * Imports are read with the TypeScript compiler's own pre-processor (static imports, re-exports,
 * type imports and dynamic `import()` alike).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const SRC = join(ROOT, "workers/src");

/** Every `.ts` and `.tsx` file under `dir` (absolute paths). */
function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return /\.tsx?$/.test(path) ? [path] : [];
  });
}

/** One import of a file: the specifier as written and, for a relative one, the target under `workers/src`. */
interface Import {
  specifier: string;
  /** Path relative to `workers/src` without extension (`db/client`), or null for a package. */
  target: string | null;
}

function importsOf(file: string): Import[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles.map(({ fileName }) => ({
    specifier: fileName,
    target: fileName.startsWith(".")
      ? relative(SRC, resolve(dirname(file), fileName)).replace(/\.(js|ts)$/, "")
      : null,
  }));
}

/** Source text without comments (so a docstring that names `process.env` is not a read). */
function codeOf(file: string): string {
  const text = readFileSync(file, "utf8");
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  const tokens: string[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    tokens.push(scanner.getTokenText());
  }
  return tokens.join(" ");
}

/** `file: specifier` for every import of `files` that `forbidden` rejects. */
function violations(files: string[], forbidden: (imp: Import) => boolean): string[] {
  return files.flatMap((file) =>
    importsOf(file)
      .filter(forbidden)
      .map((imp) => `${relative(ROOT, file)}: ${imp.specifier}`),
  );
}

const isPackage = (imp: Import, ...names: string[]) =>
  imp.target === null &&
  names.some((n) => imp.specifier === n || imp.specifier.startsWith(`${n}/`));

const under = (imp: Import, folder: string) =>
  imp.target !== null && (imp.target === folder || imp.target.startsWith(`${folder}/`));

describe("layers of workers/src", () => {
  const routes = tsFiles(join(SRC, "routes"));
  const frontDoors = [
    ...routes,
    ...["mcp", "a2a", "agent-skills", "proxy", "dashboard"].flatMap((d) => tsFiles(join(SRC, d))),
    join(SRC, "routing/route.ts"),
  ];
  const domain = [
    ...tsFiles(join(SRC, "skills")),
    ...tsFiles(join(SRC, "agents")),
    join(SRC, "routing/history.ts"),
    join(SRC, "routing/recommend.ts"),
  ];

  it("reads the imports of every file it checks", () => {
    expect(routes.length).toBeGreaterThan(5);
    expect(domain.length).toBeGreaterThan(30);
    // The scanner sees relative and package imports, so the rules below are not vacuous.
    const seen = routes.flatMap(importsOf);
    expect(seen.some((i) => i.target === "routes/context")).toBe(true);
    expect(seen.some((i) => i.specifier === "@hono/zod-openapi")).toBe(true);
  });

  it("front doors call services only: no database, deps, repository, catalog client or domain internals", () => {
    // The MCP, A2A, Agent Skills, gateway proxy, dashboard and routing front doors are held to the rules of
    // the REST routes.
    expect(frontDoors.some((f) => f.endsWith("mcp/server.ts"))).toBe(true);
    expect(frontDoors.some((f) => f.endsWith("a2a/route.ts"))).toBe(true);
    expect(frontDoors.some((f) => f.endsWith("proxy/routes.ts"))).toBe(true);
    expect(frontDoors.some((f) => f.endsWith("dashboard/routes.tsx"))).toBe(true);
    const found = violations(
      frontDoors,
      (imp) =>
        isPackage(imp, "drizzle-orm", "@libsql/client", "libsql") ||
        under(imp, "db") ||
        imp.target === "deps" ||
        under(imp, "runtime") ||
        under(imp, "sandbox") ||
        under(imp, "outbound") ||
        under(imp, "cache") ||
        (under(imp, "catalogs") && imp.target !== "catalogs/types") ||
        (under(imp, "skills") && imp.target !== "skills/types"),
    );
    expect(found).toEqual([]);
  });

  it("the domain under skills/ imports neither the database driver nor Hono", () => {
    const found = violations(
      domain,
      (imp) =>
        isPackage(imp, "drizzle-orm", "@libsql/client", "libsql", "hono", "@hono/zod-openapi") ||
        isPackage(imp, "@hono/node-server") ||
        under(imp, "db") ||
        under(imp, "routes") ||
        under(imp, "services"),
    );
    expect(found).toEqual([]);
  });

  it("the Worker entry points reach no Node-only module or native database driver", () => {
    // Everything the Worker bundle (runtime/worker/index.ts, library-worker.ts) imports, followed
    // file to file; type-only imports count too, which keeps the rule simple and strict.
    const seen = new Set<string>();
    const packages = new Set<string>();
    const resolveTarget = (target: string) =>
      [`${target}.ts`, `${target}.tsx`, `${target}/index.ts`]
        .map((f) => join(SRC, f))
        .find((f) => existsSync(f));
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const imp of importsOf(file)) {
        if (imp.target === null) packages.add(imp.specifier);
        else {
          const next = resolveTarget(imp.target);
          if (next) visit(next);
        }
      }
    };
    for (const entry of ["runtime/worker/index.ts", "runtime/worker/library-worker.ts"])
      visit(join(SRC, entry));
    const files = [...seen].map((f) => relative(SRC, f));
    expect(files).toContain("runtime/worker/worker-app.ts");
    expect(
      files.filter(
        (f) => f.startsWith("runtime/node/") || /(^|\/)(node|node-deps|[\w-]+-node)\.ts$/.test(f),
      ),
    ).toEqual(
      // Pure JSON Schema helpers, named for schema nodes, not for Node.
      ["skills/injection/schema-node.ts"].filter((f) => files.includes(f)),
    );
    const nativeOrNode = [...packages].filter(
      (p) =>
        p === "libsql" ||
        /^@libsql\/client\/(sqlite3|node)$/.test(p) ||
        p.startsWith("@hono/node-server") ||
        p === "drizzle-orm/libsql/migrator",
    );
    expect(nativeOrNode).toEqual([]);
  });

  it("only the Node entry points (the library's included) read process.env", () => {
    // library-node.ts is the Node entry of Skillgate used as a library (docs/library.md).
    const entryPoints = new Set(
      ["node.ts", "node-deps.ts", "library-node.ts"].map((f) => `runtime/node/${f}`),
    );
    const readers = tsFiles(SRC)
      .filter((f) => !entryPoints.has(relative(SRC, f)))
      .filter((f) => /\bprocess\s*\.\s*env\b/.test(codeOf(f)))
      .map((f) => relative(ROOT, f));
    expect(readers).toEqual([]);
  });
});
