// Builds the `skillgate` CLI ahead of time (docs/cli.md#start-up): one ES module bundle of
// `cli/src/main.ts` and what it imports (commander, semver, the shared SKILL.md rules) at
// `cli/dist/skillgate.mjs`, so that a command starts without compiling TypeScript. Run by the bin
// on first use and whenever a source is newer than the bundle, or by `npm run build:cli`.
import { mkdirSync, readdirSync, renameSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
/** Where the bundle goes. */
export const BUNDLE = join(here, "dist", "skillgate.mjs");

/** Newest modification time (ms) of the CLI's own sources and of the shared modules it bundles. */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  walk(join(here, "src"));
  for (const shared of [
    "workers/src/catalogs/skill-md.ts",
    "workers/src/skills/builtins/instructions.ts",
  ]) {
    newest = Math.max(newest, statSync(join(root, shared)).mtimeMs);
  }
  return Math.max(newest, statSync(fileURLToPath(import.meta.url)).mtimeMs);
}

/** True when the bundle is missing or older than a source. */
export function stale() {
  try {
    return statSync(BUNDLE).mtimeMs < newestSource();
  } catch {
    return true;
  }
}

/** Writes the bundle (to a temporary file first, so a concurrent run never reads half of it). */
export async function build() {
  const { build: esbuild } = await import("esbuild");
  mkdirSync(dirname(BUNDLE), { recursive: true });
  const tmp = `${BUNDLE}.${process.pid}.tmp`;
  await esbuild({
    entryPoints: [join(here, "src", "main.ts")],
    outfile: tmp,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    logLevel: "error",
    minify: true,
    // Bundled CommonJS (commander) may call require(); give the ES module one.
    banner: {
      js: "import { createRequire as __skillgateRequire } from 'node:module'; const require = __skillgateRequire(import.meta.url);",
    },
  });
  renameSync(tmp, BUNDLE);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await build();
  console.log(`built ${BUNDLE}`);
}
