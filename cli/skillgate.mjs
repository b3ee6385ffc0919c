#!/usr/bin/env node
// `skillgate` command-line client (docs/cli.md): runs the TypeScript sources through tsx.
import { register } from "tsx/esm/api";

register();
await import("./src/main.ts");
