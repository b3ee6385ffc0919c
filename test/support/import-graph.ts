/**
 * Reads the import graph of the repository's TypeScript sources for the layering test
 * (docs/architecture.md#layers). Every way a module can name another is seen, with the
 * TypeScript compiler's own parser: static imports and `import type`, `export … from`,
 * `import x = require(…)`, `require(…)`, dynamic `import(…)` (a template literal is resolved by
 * its fixed head and reported as computed), `typeof import(…)` types, and reads of
 * `process.env` (`process.env`, `process["env"]`, `globalThis.process.env`, `const { env } =
 * process`).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import ts from "typescript";

/** One import of a file. */
export interface ImportRef {
  /** The specifier as written (for a template literal, its fixed head). */
  specifier: string;
  /** Repository-relative path (posix) of the named module without extension, or null for a package. */
  target: string | null;
  /** `import type`, `export type … from` or a type query: erased from every bundle. */
  typeOnly: boolean;
  /** Only `export … from`: the file re-exports what it names. */
  reexport: boolean;
  /** A dynamic `import()`/`require()` whose specifier is not a plain string (template or expression). */
  computed: boolean;
  /** 1-based line of the import. */
  line: number;
}

/** What one source file names and reads. */
export interface FileFacts {
  /** Repository-relative posix path, with extension. */
  path: string;
  imports: ImportRef[];
  /** 1-based lines where `process.env` is read. */
  envReads: number[];
}

/** Every `.ts`/`.tsx` file under `dir` (repository-relative posix paths), sorted. */
export function sourceFiles(root: string, dir: string): string[] {
  const abs = join(root, dir);
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((name) => {
      const p = join(d, name);
      if (name === "node_modules") return [];
      if (statSync(p).isDirectory()) return walk(p);
      return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
    });
  return walk(abs)
    .map((p) => relative(root, p).split("\\").join("/"))
    .sort();
}

/** Reads a file of the repository as text. */
export function readSource(root: string, path: string): string {
  return readFileSync(join(root, path), "utf8");
}

const stringOf = (node: ts.Expression): { text: string; computed: boolean } | null => {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
    return { text: node.text, computed: false };
  }
  if (ts.isTemplateExpression(node)) return { text: node.head.text, computed: true };
  return null;
};

const isProcess = (node: ts.Expression): boolean =>
  (ts.isIdentifier(node) && node.text === "process") ||
  (ts.isPropertyAccessExpression(node) && node.name.text === "process") ||
  (ts.isElementAccessExpression(node) &&
    ts.isStringLiteralLike(node.argumentExpression) &&
    node.argumentExpression.text === "process");

/** Parses `text` (the file at repository path `path`) and lists its imports and env reads. */
export function factsOf(path: string, text: string): FileFacts {
  const sf = ts.createSourceFile(
    path,
    text,
    ts.ScriptTarget.Latest,
    true,
    path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const imports: ImportRef[] = [];
  const envReads: number[] = [];
  const lineOf = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const add = (
    node: ts.Node,
    spec: { text: string; computed: boolean } | null,
    typeOnly: boolean,
    reexport = false,
  ) => {
    if (spec === null) {
      imports.push({
        specifier: "<expression>",
        target: null,
        typeOnly,
        reexport,
        computed: true,
        line: lineOf(node),
      });
      return;
    }
    imports.push({
      specifier: spec.text,
      target: resolveSpecifier(path, spec.text),
      typeOnly,
      reexport,
      computed: spec.computed,
      line: lineOf(node),
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node, stringOf(node.moduleSpecifier), typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node, stringOf(node.moduleSpecifier), node.isTypeOnly, true);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference)
    ) {
      add(node, stringOf(node.moduleReference.expression), node.isTypeOnly);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === "require";
      if (isImport || isRequire) {
        const arg = node.arguments[0];
        add(node, arg ? stringOf(arg) : null, false);
      }
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) {
        add(node, { text: arg.literal.text, computed: false }, true);
      }
    } else if (ts.isPropertyAccessExpression(node) && node.name.text === "env") {
      if (isProcess(node.expression)) envReads.push(lineOf(node));
    } else if (
      ts.isElementAccessExpression(node) &&
      ts.isStringLiteralLike(node.argumentExpression) &&
      node.argumentExpression.text === "env"
    ) {
      if (isProcess(node.expression)) envReads.push(lineOf(node));
    } else if (
      ts.isVariableDeclaration(node) &&
      ts.isObjectBindingPattern(node.name) &&
      node.initializer !== undefined &&
      isProcess(node.initializer) &&
      node.name.elements.some(
        (e) => (e.propertyName ?? e.name).getText(sf).replace(/["']/g, "") === "env",
      )
    ) {
      envReads.push(lineOf(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { path, imports, envReads };
}

/**
 * The repository-relative posix path (extension dropped) that a relative specifier of `from`
 * names, or null for a package specifier. `./x.js`, `./x.ts` and `./x` all name `dir/x`.
 */
export function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const joined = posix.normalize(posix.join(posix.dirname(from), specifier));
  return joined.replace(/\.(js|jsx|ts|tsx|mjs|cjs)$/, "").replace(/\/$/, "");
}

/** The file a resolved target names among `files` (`x.ts`, `x.tsx` or `x/index.ts`), if any. */
export function fileOfTarget(target: string, files: ReadonlySet<string>): string | undefined {
  return [`${target}.ts`, `${target}.tsx`, `${target}/index.ts`].find((f) => files.has(f));
}

/** The package a bare specifier names (`@scope/name` or `name`; `node:fs` stays whole). */
export function packageOf(specifier: string): string {
  if (specifier.startsWith("node:")) return specifier;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/** `dirname` for posix repository paths. */
export const folderOf = (path: string): string => dirname(path).split("\\").join("/");
