/**
 * The `skillgate` bin in a checkout whose dependencies are not installed (what `npx skillgate`
 * runs before `npm install`, CONTRIBUTING.md "Setup"): one line saying to run `npm install`, exit
 * code 1, no stack trace. The bin and its builder are copied into a temporary directory with no
 * `node_modules` anywhere above it, so esbuild cannot be found.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { tempDir } from "../support/app.js";

let tmp: { dir: string; cleanup(): void };

beforeEach(() => {
  tmp = tempDir("skillgate-cli-bare-");
  const cli = join(tmp.dir, "cli");
  mkdirSync(join(cli, "src"), { recursive: true });
  for (const file of ["skillgate.mjs", "build.mjs"])
    copyFileSync(join(process.cwd(), "cli", file), join(cli, file));
  writeFileSync(join(cli, "src", "main.ts"), "");
  // The shared sources the builder compares dates with.
  for (const shared of ["catalogs/skill-md.ts", "skills/builtins/instructions.ts"]) {
    const path = join(tmp.dir, "workers", "src", shared);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, "");
  }
});
afterEach(() => tmp.cleanup());

it("says to run npm install when the checkout's dependencies are missing", async () => {
  const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(tmp.dir, "cli", "skillgate.mjs"), "--version"],
      { cwd: tmp.dir, timeout: 30_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
  expect(run.code).toBe(1);
  expect(run.stdout).toBe("");
  expect(run.stderr).toBe(
    "skillgate: this checkout's dependencies are not installed (esbuild is missing); run `npm install` in it first.\n",
  );
});
