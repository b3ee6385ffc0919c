/**
 * CLI start-up (docs/cli.md#start-up): wall time of `skillgate --version` through the bin (which
 * runs the prebuilt bundle), beside a bare `node -e ""` start (the floor no CLI can beat) and the
 * same entry compiled at run time through tsx (what the bin did before the bundle), interleaved.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { build } from "../cli/build.mjs";
import { fmt, interleave, median, percentile, row } from "./stats.js";

const NODE = process.execPath;
const BIN = join(process.cwd(), "cli", "skillgate.mjs");
const MAIN = join(process.cwd(), "cli", "src", "main.ts");

function run(args: string[]): void {
  const res = spawnSync(NODE, args, { encoding: "utf8" });
  if (res.status !== 0) throw new Error(`${args.join(" ")} failed: ${res.stderr}`);
}

/** Runs the CLI start-up benchmark and prints medians and p90. */
export async function runCliBench(): Promise<void> {
  await build();
  const samples = await interleave(
    {
      "node -e '' (floor)": () => run(["-e", ""]),
      "skillgate --version (bundle)": () => run([BIN, "--version"]),
      "skillgate --version (tsx at run time)": () => run(["--import", "tsx", MAIN, "--version"]),
    },
    5,
    4,
  );
  console.log("\nCLI start-up (wall time per command, 20 runs each, interleaved)");
  row("", "median", "p90");
  for (const [name, s] of Object.entries(samples))
    row(name, fmt(median(s)), fmt(percentile(s, 90)));
}
