#!/usr/bin/env node
// `skillgate` command-line client (docs/cli.md). Runs the prebuilt bundle `cli/dist/skillgate.mjs`
// (no TypeScript compile per command); builds it first when it is missing or older than a source.
import { BUNDLE, build, stale } from "./build.mjs";

if (stale()) await build();
await import(BUNDLE);
