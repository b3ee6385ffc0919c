/**
 * The layering rules of the repository (docs/architecture.md#layers) as data, and the checker
 * that applies them to a set of source files. `test/unit/architecture.test.ts` runs it over the
 * repository and over the planted violations of `test/fixtures/architecture/`.
 *
 * Moving a folder is one line here: a unit is a path prefix (a folder or a file) of
 * `workers/src`, and a file belongs to the unit with the longest matching prefix.
 */
import {
  type FileFacts,
  factsOf,
  fileOfTarget,
  type ImportRef,
  packageOf,
} from "./import-graph.js";

/** One layer of `workers/src`. */
export interface Layer {
  name: string;
  /** Path prefixes under `workers/src` (`skills` is the folder, `config.ts` one file). */
  units: string[];
  /** The layers below this one that it may import (its own layer always). */
  mayImport: string[];
  /** npm packages it may import (`node:*` for every Node builtin, `node:<name>` for one); `@skillgate/*` always. */
  npm: string[];
  /** Whether its files may read `process.env` (the Node entry points only). */
  readsEnv?: boolean;
}

/** Rules for the code outside `workers/src`. */
export interface AreaRule {
  name: string;
  /** Repository path prefix of the area. */
  root: string;
  /** Repository path prefixes it may import by relative path (besides itself). */
  mayImport: string[];
  /** npm packages it may import. */
  npm: string[];
}

/** An import that breaks the rules today, with the reason it is still there. */
export interface KnownException {
  /** Importing file (repository-relative). */
  from: string;
  /** Imported module (repository-relative, without extension). */
  to: string;
  why: string;
}

/** Everything the checker applies. */
export interface Rules {
  /** The layers of `workers/src`, bottom first. */
  layers: Layer[];
  /** `packages/`, `sandbox-host/`, `cli/`. */
  areas: AreaRule[];
  /** The Worker bundle's entry files (repository-relative). */
  workerEntries: string[];
  /** Whether a package specifier must never reach the Worker bundle. */
  notInWorker: (specifier: string) => boolean;
  /** Known exceptions; one that no longer occurs is reported as stale. */
  exceptions: KnownException[];
}

const SRC = "workers/src/";

/** The layer a `workers/src` file or module (without extension) belongs to: longest prefix wins. */
export function layerOf(layers: Layer[], path: string): Layer | undefined {
  if (!path.startsWith(SRC)) return undefined;
  const rel = path.slice(SRC.length);
  let best: { layer: Layer; length: number } | undefined;
  for (const layer of layers) {
    for (const unit of layer.units) {
      const bare = unit.replace(/\.tsx?$/, "");
      const hit =
        rel === unit ||
        rel === bare ||
        rel.startsWith(`${unit}/`) ||
        (unit.endsWith(".ts") && rel.replace(/\.tsx?$/, "") === bare);
      if (hit && (best === undefined || unit.length > best.length)) {
        best = { layer, length: unit.length };
      }
    }
  }
  return best?.layer;
}

const npmAllowed = (allowed: string[], specifier: string): boolean => {
  const pkg = packageOf(specifier);
  if (pkg.startsWith("@skillgate/")) return true;
  if (pkg.startsWith("node:")) return allowed.includes("node:*") || allowed.includes(pkg);
  return allowed.includes(pkg);
};

/** One broken rule: the rule's name, where, and what. */
export interface Violation {
  rule:
    | "unassigned"
    | "layer"
    | "npm"
    | "computed-import"
    | "reexport"
    | "env"
    | "worker-bundle"
    | "area";
  file: string;
  line: number;
  detail: string;
}

const describeImport = (imp: ImportRef) => imp.target ?? imp.specifier;

/**
 * Checks `sources` (repository-relative path → text) against `rules` and returns every
 * violation, sorted. Exceptions of `exceptions` that do not occur come back as violations
 * too (rule `layer`, detail `stale exception`).
 */
export function checkArchitecture(sources: ReadonlyMap<string, string>, rules: Rules): Violation[] {
  const { layers, areas, exceptions } = rules;
  const facts = new Map<string, FileFacts>();
  for (const [path, text] of sources) facts.set(path, cachedFacts(path, text));
  const files = new Set(sources.keys());
  const found: Violation[] = [];
  const usedExceptions = new Set<number>();
  const excepted = (from: string, to: string) => {
    const i = exceptions.findIndex((e) => e.from === from && e.to === to);
    if (i >= 0) usedExceptions.add(i);
    return i >= 0;
  };

  for (const f of facts.values()) {
    const add = (rule: Violation["rule"], line: number, detail: string) =>
      found.push({ rule, file: f.path, line, detail });
    for (const imp of f.imports) {
      if (imp.computed) {
        add("computed-import", imp.line, `import() of a computed specifier: ${imp.specifier}…`);
      }
    }
    if (f.path.startsWith(SRC)) {
      const layer = layerOf(layers, f.path);
      if (!layer) {
        add("unassigned", 1, "file belongs to no layer of the table");
        continue;
      }
      if (f.envReads.length > 0 && !layer.readsEnv) {
        for (const line of f.envReads) add("env", line, `process.env read in layer ${layer.name}`);
      }
      for (const imp of f.imports) {
        if (imp.target === null) {
          if (!npmAllowed(layer.npm, imp.specifier)) {
            add("npm", imp.line, `${layer.name} may not import package ${imp.specifier}`);
          }
          continue;
        }
        if (!imp.target.startsWith(SRC)) {
          if (!imp.target.startsWith("packages/")) {
            add("layer", imp.line, `${layer.name} imports ${imp.target} outside workers/src`);
          }
          continue;
        }
        const to = layerOf(layers, imp.target);
        if (!to) {
          add("layer", imp.line, `${layer.name} imports ${imp.target}, which is in no layer`);
          continue;
        }
        if (imp.reexport && to !== layer) {
          // A re-export may hand on only what every importer of this layer could import itself.
          const lifted = layers.filter(
            (l) => l.mayImport.includes(layer.name) && l !== to && !l.mayImport.includes(to.name),
          );
          if (lifted.length > 0 && !excepted(f.path, imp.target)) {
            add(
              "reexport",
              imp.line,
              `${layer.name} re-exports ${imp.target} of layer ${to.name} to ${lifted.map((l) => l.name).join(", ")}`,
            );
            continue;
          }
        }
        if (to !== layer && !layer.mayImport.includes(to.name)) {
          if (excepted(f.path, imp.target)) continue;
          add("layer", imp.line, `${layer.name} may not import ${imp.target} (${to.name})`);
        }
      }
      continue;
    }
    const area = areas.find((a) => f.path.startsWith(a.root));
    if (!area) continue;
    for (const imp of f.imports) {
      if (imp.target === null) {
        if (!npmAllowed(area.npm, imp.specifier)) {
          add("npm", imp.line, `${area.name} may not import package ${imp.specifier}`);
        }
        continue;
      }
      const own =
        area.name === "packages" ? (imp.target.split("/").slice(0, 2).join("/") ?? "") : "";
      const inside =
        area.name === "packages"
          ? imp.target.startsWith(`${own}/`) && f.path.startsWith(`${own}/`)
          : imp.target.startsWith(area.root);
      if (!inside && !area.mayImport.some((p) => imp.target?.startsWith(p))) {
        add("area", imp.line, `${area.name} may not import ${describeImport(imp)}`);
      }
    }
  }

  // The Worker bundle: follow every import that survives compilation from the entry files.
  const seen = new Set<string>();
  const stack = rules.workerEntries.filter((e) => files.has(e));
  const via = new Map<string, string>();
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const imp of facts.get(file)?.imports ?? []) {
      if (imp.typeOnly) continue;
      if (imp.target === null) {
        if (rules.notInWorker(imp.specifier)) {
          found.push({
            rule: "worker-bundle",
            file,
            line: imp.line,
            detail: `${imp.specifier} reaches the Worker bundle (via ${chain(via, file)})`,
          });
        }
        continue;
      }
      const next = fileOfTarget(imp.target, files);
      if (next && !seen.has(next)) {
        if (!via.has(next)) via.set(next, file);
        stack.push(next);
      }
    }
  }

  exceptions.forEach((e, i) => {
    if (!usedExceptions.has(i) && files.has(e.from)) {
      found.push({ rule: "layer", file: e.from, line: 1, detail: `stale exception to ${e.to}` });
    }
  });
  return found.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

const parsed = new Map<string, { text: string; facts: FileFacts }>();

/** `factsOf`, parsed once per path and text (the fixtures share the repository's files). */
function cachedFacts(path: string, text: string): FileFacts {
  const hit = parsed.get(path);
  if (hit && hit.text === text) return hit.facts;
  const facts = factsOf(path, text);
  parsed.set(path, { text, facts });
  return facts;
}

/** The import chain from a Worker entry to `file`, for the message. */
function chain(via: ReadonlyMap<string, string>, file: string): string {
  const path = [file];
  for (let at = via.get(file); at !== undefined && path.length < 20; at = via.get(at)) {
    path.unshift(at);
  }
  return path.map((p) => p.replace(SRC, "")).join(" → ");
}
