/**
 * The layering of the repository (docs/architecture.md#layers) as an allowlist: each folder of
 * `workers/src` may import only itself, the layers it lists below it, and `packages/`; each layer
 * names the npm packages it may use; only the Node entry points read `process.env`; nothing
 * Node-only reaches the Worker bundle (followed import by import from the Worker entry); a
 * re-export never lifts a module of another layer into view; `packages/`, `sandbox-host/` and
 * `cli/` keep to themselves and `packages/` (the CLI speaks HTTP to the API).
 *
 * The tables below are the rules. Moving a folder is one line: a unit is a path prefix under
 * `workers/src`, and a file belongs to the unit with the longest matching prefix. The second
 * `describe` plants each class of violation (`test/fixtures/architecture/`) and expects the
 * checker to name it.
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type AreaRule,
  checkArchitecture,
  type KnownException,
  type Layer,
  layerOf,
  type Rules,
  type Violation,
} from "../support/architecture-rules.js";
import { factsOf, packageOf, readSource, sourceFiles } from "../support/import-graph.js";

/** The layers of `workers/src`, bottom first. */
const LAYERS: Layer[] = [
  // Shared kernel: the error types, the JSON depth guard, the configuration schema (the schema
  // parses what an entry point hands it; it reads no environment itself) and yielding a turn.
  {
    name: "kernel",
    units: ["errors.ts", "json-depth.ts", "config.ts", "database-error.ts", "next-turn.ts"],
    mayImport: [],
    npm: ["zod"],
  },
  // Telemetry: the request context (request id, log prefix) and the trace context every layer
  // above may read. It imports nothing of the app; `AsyncLocalStorage` runs in Node and in the
  // Worker (`nodejs_compat`, docs/api.md#request-ids).
  {
    name: "telemetry",
    units: ["telemetry"],
    mayImport: ["kernel"],
    // The official OpenTelemetry JS API and SDK (pure JS; the Worker bundle builds with them).
    npm: [
      "node:async_hooks",
      "@opentelemetry/api",
      "@opentelemetry/core",
      "@opentelemetry/sdk-trace-base",
      "@opentelemetry/exporter-trace-otlp-http",
      "@opentelemetry/resources",
      "@opentelemetry/semantic-conventions",
    ],
  },
  // Shapes every layer speaks: types and pure helpers with no I/O.
  {
    name: "model",
    units: [
      "skills/types.ts",
      "catalogs/types.ts",
      "metrics/types.ts",
      "cache/types.ts",
      "outbound/types.ts",
      "auth/crypto.ts",
      "auth/principal.ts",
      "auth/scopes.ts",
      "agents",
      "routing/history.ts",
      "routing/recommend.ts",
    ],
    mayImport: ["kernel"],
    npm: ["zod"],
  },
  // Web-standard adapters the domain is handed: the outbound guard and connector, the caches.
  {
    name: "platform",
    units: ["outbound", "cache"],
    mayImport: ["kernel", "model"],
    // lru-cache: the in-process cache's recency order (pure JS, no dependencies).
    npm: ["ipaddr.js", "lru-cache"],
  },
  // The wire formats: one folder per LLM API, its adapter and stream translator
  // (docs/architecture.md#layers).
  {
    name: "formats",
    units: ["formats"],
    mayImport: ["kernel", "model"],
    npm: [],
  },
  // The domain: registry, injection, interception, execution, builtins, catalogs, retention.
  // No Hono, no database driver, no environment.
  {
    name: "domain",
    units: ["skills", "catalogs", "retention"],
    mayImport: ["kernel", "telemetry", "model", "platform", "formats"],
    npm: [
      "zod",
      "semver",
      "yaml",
      "re2js",
      "stemmer",
      "stopword",
      "@cfworker/json-schema",
      "@modelcontextprotocol/sdk",
    ],
  },
  // Infrastructure clients other than storage: the sandbox host client, metrics sinks. The
  // sandbox client reads the current trace context from telemetry (its `traceparent` header).
  {
    name: "adapters",
    units: ["sandbox", "metrics"],
    mayImport: ["kernel", "telemetry", "model"],
    npm: ["prom-client"],
  },
  // The application layer every front door shares; it declares the ports storage implements.
  // The gateway's round loop (services/gateway/) reads upstream event streams.
  {
    name: "services",
    units: ["services"],
    mayImport: ["kernel", "telemetry", "model", "platform", "formats", "domain", "adapters"],
    // …and opens the gateway's spans through the OpenTelemetry API.
    npm: ["eventsource-parser", "@opentelemetry/api"],
  },
  // Storage: the drizzle schema and the repositories implementing the ports of domain and services.
  {
    name: "storage",
    units: ["db"],
    mayImport: ["kernel", "telemetry", "model", "domain", "services"],
    npm: ["drizzle-orm", "@libsql/client", "@libsql/core"],
  },
  // What one app instance is made of (types only).
  {
    name: "composition",
    units: ["deps.ts"],
    mayImport: ["kernel", "model", "platform", "adapters", "domain", "services", "storage"],
    npm: [],
  },
  // Builds the services from the dependencies; the one module front doors reach them through.
  {
    name: "service-wiring",
    units: ["services/index.ts", "services/wiring"],
    mayImport: [
      "kernel",
      "telemetry",
      "model",
      "platform",
      "formats",
      "domain",
      "adapters",
      "services",
      "storage",
      "composition",
    ],
    npm: [],
  },
  // Front doors: parse, authorise, call a service, render. Services, shapes and wire formats only.
  {
    name: "doors",
    units: [
      "routes",
      "proxy",
      "mcp",
      "a2a",
      "dashboard",
      "agent-skills",
      "routing/route.ts",
      "auth/middleware.ts",
      "request-limits.ts",
    ],
    mayImport: ["kernel", "telemetry", "model", "formats", "services", "service-wiring"],
    npm: [
      "hono",
      "@hono/zod-openapi",
      "zod",
      "yaml",
      "eventsource-parser",
      "@a2a-js/sdk",
      "@modelcontextprotocol/sdk",
    ],
  },
  // The app: mounts the front doors on one Hono app; handlers shared by both library entries.
  {
    name: "app",
    units: ["app.ts", "library-handlers.ts"],
    mayImport: [
      "kernel",
      "telemetry",
      "model",
      "formats",
      "domain",
      "adapters",
      "services",
      "service-wiring",
      "composition",
      "doors",
    ],
    npm: ["hono", "@hono/zod-openapi"],
  },
  // Worker runtime: the Worker entries and what only the Worker has (the per-key Durable Object).
  {
    name: "runtime-worker",
    units: ["runtime/worker"],
    mayImport: ["kernel", "telemetry", "model", "platform", "domain", "adapters", "storage", "app"],
    npm: ["@libsql/client", "zod"],
  },
  // Node runtime: the Node entries and what only Node has (embedded libSQL, sockets, files).
  {
    name: "runtime-node",
    units: ["runtime/node"],
    mayImport: [
      "kernel",
      "telemetry",
      "model",
      "platform",
      "domain",
      "adapters",
      "services",
      "storage",
      "composition",
      "app",
    ],
    npm: ["node:*", "@hono/node-server", "@libsql/client", "@libsql/core", "libsql", "drizzle-orm"],
    readsEnv: true,
  },
];

/** The Worker bundle's entry files (repository-relative). */
const WORKER_ENTRIES = [
  "workers/src/runtime/worker/index.ts",
  "workers/src/runtime/worker/library-worker.ts",
];

/**
 * Packages that must never reach the Worker bundle: Node builtins, native or Node-only drivers
 * and servers (`@libsql/client` bare resolves to its Node build outside workerd; the Worker uses
 * `@libsql/client/web`). `node:async_hooks` is the one builtin the Worker has: it runs with
 * `nodejs_compat` (wrangler.toml), whose `AsyncLocalStorage` carries the request context.
 */
const NOT_IN_WORKER = (specifier: string): boolean =>
  (specifier.startsWith("node:") && specifier !== "node:async_hooks") ||
  /^(fs|path|net|http|https|dns|crypto|os|child_process|stream|url|worker_threads)(\/|$)/.test(
    specifier,
  ) ||
  specifier === "libsql" ||
  specifier.startsWith("libsql/") ||
  (packageOf(specifier) === "@libsql/client" && specifier !== "@libsql/client/web") ||
  specifier.startsWith("@hono/node-server") ||
  specifier === "drizzle-orm/libsql/migrator" ||
  specifier === "dockerode";

/** `packages/`, `sandbox-host/` and `cli/` each keep to themselves and `packages/`. */
const AREAS: AreaRule[] = [
  // Shared libraries: bundled into the Worker too, so Web APIs only.
  { name: "packages", root: "packages/", mayImport: [], npm: ["zod", "ipaddr.js"] },
  // The sandbox host is its own service next to Docker: it shares only packages/ with the API.
  {
    name: "sandbox-host",
    root: "sandbox-host/src/",
    mayImport: ["packages/"],
    // …and exports its `sandbox.run` spans with the official OpenTelemetry JS API and SDK.
    npm: [
      "node:*",
      "hono",
      "@hono/node-server",
      "dockerode",
      "prom-client",
      "zod",
      "ipaddr.js",
      "@opentelemetry/api",
      "@opentelemetry/core",
      "@opentelemetry/sdk-trace-base",
      "@opentelemetry/exporter-trace-otlp-http",
      "@opentelemetry/resources",
      "@opentelemetry/semantic-conventions",
    ],
  },
  // The CLI speaks HTTP to the API: it shares only packages/ and the generated API types.
  {
    name: "cli",
    root: "cli/src/",
    mayImport: ["packages/"],
    npm: ["node:*", "commander", "semver", "yaml"],
  },
];

/**
 * Imports that break the rules today and are on their way out, with the reason. The checker
 * fails when one of them no longer occurs, so the list shrinks as the code moves.
 */
const KNOWN_EXCEPTIONS: KnownException[] = [
  {
    from: "workers/src/services/operator.ts",
    to: "workers/src/skills/execution/execution-stats",
    why: "the dashboard renders the execution statistics types through the operator service",
  },
  {
    from: "workers/src/services/tools.ts",
    to: "workers/src/skills/injection/injection",
    why: "the proxy door still runs the round loop and reaches injection through services/tools.ts",
  },
  {
    from: "workers/src/services/tools.ts",
    to: "workers/src/skills/injection/rankers/index",
    why: "the proxy door still runs the round loop (ranker names through services/tools.ts)",
  },
  {
    from: "workers/src/services/tools.ts",
    to: "workers/src/skills/interception/caller-tools",
    why: "the proxy door still runs the round loop and reaches interception through services/tools.ts",
  },
  {
    from: "workers/src/services/tools.ts",
    to: "workers/src/skills/interception/interception",
    why: "the proxy door still runs the round loop and reaches interception through services/tools.ts",
  },
  {
    from: "workers/src/services/tools.ts",
    to: "workers/src/skills/interception/model-call",
    why: "the proxy door still runs the round loop and reaches the model call through services/tools.ts",
  },
  {
    from: "workers/src/catalogs/types.ts",
    to: "workers/src/catalogs/index",
    why: "CatalogId is derived from the catalog registry (type only)",
  },
  {
    from: "workers/src/skills/builtins/types.ts",
    to: "workers/src/deps",
    why: "BuiltinEnv is spelled as Omit<AppDeps, 'db'> (type only)",
  },
  {
    from: "workers/src/services/approval-notifications.ts",
    to: "workers/src/deps",
    why: "the notifier takes AppDeps (type only)",
  },
  {
    from: "workers/src/outbound/guard.ts",
    to: "workers/src/deps",
    why: "HostResolver is declared in deps.ts (type only)",
  },
];

const RULES: Rules = {
  layers: LAYERS,
  areas: AREAS,
  workerEntries: WORKER_ENTRIES,
  notInWorker: NOT_IN_WORKER,
  exceptions: KNOWN_EXCEPTIONS,
};

const ROOT = resolve(import.meta.dirname, "../..");
const FIXTURES = join(ROOT, "test/fixtures/architecture");
const CHECKED = ["workers/src", "packages", "sandbox-host/src", "cli/src"];

/** The repository's checked sources, path → text (read once). */
const repository = new Map<string, string>(
  CHECKED.flatMap((dir) => sourceFiles(ROOT, dir)).map((p) => [p, readSource(ROOT, p)]),
);

/** The repository with the files of one fixture laid over it (same path: the fixture's wins). */
function withFixture(name: string): Map<string, string> {
  const base = join(FIXTURES, name);
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((n) =>
      statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)],
    );
  const sources = new Map(repository);
  for (const file of walk(base)) {
    sources.set(relative(base, file).split("\\").join("/"), readSource(base, relative(base, file)));
  }
  return sources;
}

const brief = (v: Violation) => `${v.rule} ${v.file}:${v.line} ${v.detail}`;

describe("layers of the repository", () => {
  it("the repository keeps every rule", () => {
    expect(checkArchitecture(repository, RULES).map(brief)).toEqual([]);
  });

  it("every layer imports only layers below it, and every unit is a real path", () => {
    LAYERS.forEach((layer, i) => {
      const below = new Set(LAYERS.slice(0, i).map((l) => l.name));
      expect(
        layer.mayImport.filter((n) => !below.has(n)),
        layer.name,
      ).toEqual([]);
      for (const unit of layer.units) {
        const hits = [...repository.keys()].filter(
          (p) => p === `workers/src/${unit}` || p.startsWith(`workers/src/${unit}/`),
        );
        expect(hits.length, `workers/src/${unit}`).toBeGreaterThan(0);
      }
    });
  });

  it("reads every kind of import and env read the rules depend on", () => {
    const facts = factsOf(
      "workers/src/skills/x.ts",
      [
        'import a from "hono";',
        'import type { B } from "../db/client.js";',
        'export { c } from "./c.js";',
        'import d = require("libsql");',
        'const e = require("node:fs");',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template import()
        "const f = await import(`../db/${name}.js`);",
        'type G = typeof import("drizzle-orm");',
        'const h = process["env"].X;',
        "const i = globalThis.process.env.Y;",
        "const { env } = process;",
        "// process.env in a comment is no read",
      ].join("\n"),
    );
    expect(
      facts.imports.map((i) => [i.specifier, i.target, i.typeOnly, i.reexport, i.computed]),
    ).toEqual([
      ["hono", null, false, false, false],
      ["../db/client.js", "workers/src/db/client", true, false, false],
      ["./c.js", "workers/src/skills/c", false, true, false],
      ["libsql", null, false, false, false],
      ["node:fs", null, false, false, false],
      ["../db/", "workers/src/db", false, false, true],
      ["drizzle-orm", null, true, false, false],
    ]);
    expect(facts.envReads).toEqual([8, 9, 10]);
    expect(packageOf("@libsql/client/web")).toBe("@libsql/client");
    expect(layerOf(LAYERS, "workers/src/skills/types.ts")?.name).toBe("model");
    expect(layerOf(LAYERS, "workers/src/skills/registry/registry.ts")?.name).toBe("domain");
    expect(layerOf(LAYERS, "workers/src/services/index.ts")?.name).toBe("service-wiring");
  });
});

/** Each planted violation class, the fixture that plants it, and what the checker must say. */
const PLANTED: { fixture: string; rule: Violation["rule"]; file: string; detail: RegExp }[] = [
  {
    fixture: "catalog-imports-hono",
    rule: "npm",
    file: "workers/src/catalogs/hono-catalog.ts",
    detail: /domain may not import package hono/,
  },
  {
    fixture: "format-imports-drizzle",
    rule: "npm",
    file: "workers/src/formats/drizzle-format.ts",
    detail: /formats may not import package drizzle-orm/,
  },
  {
    fixture: "builtin-imports-sandbox-client",
    rule: "layer",
    file: "workers/src/skills/builtins/direct-sandbox.ts",
    detail: /domain may not import workers\/src\/sandbox\/client \(adapters\)/,
  },
  {
    fixture: "route-imports-new-infrastructure",
    rule: "unassigned",
    file: "workers/src/queue/producer.ts",
    detail: /no layer/,
  },
  {
    fixture: "route-imports-new-infrastructure",
    rule: "layer",
    file: "workers/src/routes/enqueue.ts",
    detail: /doors imports workers\/src\/queue\/producer, which is in no layer/,
  },
  {
    fixture: "node-fs-in-worker-bundle",
    rule: "npm",
    file: "workers/src/cache/disk-cache.ts",
    detail: /platform may not import package node:fs/,
  },
  {
    fixture: "node-fs-in-worker-bundle",
    rule: "worker-bundle",
    file: "workers/src/cache/disk-cache.ts",
    detail:
      /node:fs reaches the Worker bundle \(via runtime\/worker\/index\.ts → .*cache\/disk-cache\.ts\)/,
  },
  {
    fixture: "process-env-bracket",
    rule: "env",
    file: "workers/src/skills/registry/env-flag.ts",
    detail: /process\.env read in layer domain/,
  },
  {
    fixture: "reexport-through-services-index",
    rule: "reexport",
    file: "workers/src/services/index.ts",
    detail: /service-wiring re-exports workers\/src\/db\/repositories\/index of layer storage/,
  },
  {
    fixture: "template-import",
    rule: "computed-import",
    file: "workers/src/routes/lazy.ts",
    detail: /computed specifier: \.\.\/db\//,
  },
  {
    fixture: "template-import",
    rule: "layer",
    file: "workers/src/routes/lazy.ts",
    detail: /doors may not import workers\/src\/db \(storage\)/,
  },
  {
    fixture: "cli-imports-server-code",
    rule: "area",
    file: "cli/src/server-peek.ts",
    detail: /cli may not import workers\/src\/skills\/registry\/registry/,
  },
];

describe("each planted violation fails the check", () => {
  it.each([...new Set(PLANTED.map((p) => p.fixture))])("%s", (fixture) => {
    const expected = PLANTED.filter((p) => p.fixture === fixture);
    const found = checkArchitecture(withFixture(fixture), RULES);
    expect(found.length, found.map(brief).join("\n")).toBe(expected.length);
    for (const want of expected) {
      const hit = found.find((v) => v.rule === want.rule && v.file === want.file);
      expect(hit, `${want.rule} in ${want.file}: ${found.map(brief).join("; ")}`).toBeDefined();
      expect(hit?.detail).toMatch(want.detail);
    }
  });
});
