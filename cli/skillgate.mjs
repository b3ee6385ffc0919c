#!/usr/bin/env node
// `skillgate` command-line client (docs/cli.md). Runs the prebuilt bundle `cli/dist/skillgate.mjs`
// (no TypeScript compile per command); builds it first when it is missing or older than a source.
import { BUNDLE, build, stale } from "./build.mjs";

if (stale()) {
  try {
    await build();
  } catch (err) {
    // A checkout without its dependencies (e.g. `npx skillgate` before `npm install`, which
    // CONTRIBUTING.md "Setup" describes) has no esbuild to build the bundle with.
    if (err?.code !== "ERR_MODULE_NOT_FOUND") throw err;
    console.error(
      "skillgate: this checkout's dependencies are not installed (esbuild is missing); run `npm install` in it first.",
    );
    process.exit(1);
  }
}
await import(BUNDLE);
