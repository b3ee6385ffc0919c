/**
 * `npm run openapi [-- <file>]` writes the API's OpenAPI document (the one `GET /openapi.json`
 * serves) to `<file>` (default `dist/openapi.json`) without starting a server
 * (scripts/openapi-document.ts).
 *
 * `npm run lint:openapi` (`--lint`) then lints that file with Redocly CLI and the rule set in
 * `redocly.yaml`, and fails on any problem, warnings included (Redocly itself fails on errors
 * only).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openApiDocument } from "./openapi-document.js";

const root = fileURLToPath(new URL("..", import.meta.url));

/** One problem of Redocly's JSON report. */
interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  location?: { pointer?: string }[];
}

/**
 * Lints `file` with Redocly CLI (telemetry and update checks off). Output: the problems found.
 * @throws Error when Redocly cannot run or prints no JSON report.
 */
function lint(file: string): LintProblem[] {
  const run = spawnSync(
    resolve(root, "node_modules/.bin/redocly"),
    ["lint", file, "--format=json", `--config=${resolve(root, "redocly.yaml")}`],
    {
      encoding: "utf8",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    },
  );
  if (run.error) throw run.error;
  const start = run.stdout.indexOf("{");
  if (start < 0) throw new Error(`redocly lint printed no report:\n${run.stderr}`);
  const report = JSON.parse(run.stdout.slice(start)) as { problems: LintProblem[] };
  return report.problems;
}

const args = process.argv.slice(2);
const out = resolve(args.find((a) => !a.startsWith("--")) ?? "dist/openapi.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(await openApiDocument(), null, 2)}\n`);
console.log(`wrote ${out}`);

if (args.includes("--lint")) {
  const problems = lint(out);
  for (const p of problems)
    console.error(`${p.severity} ${p.ruleId} at ${p.location?.[0]?.pointer ?? "#"}: ${p.message}`);
  if (problems.length > 0) {
    console.error(`OpenAPI lint: ${problems.length} problem(s)`);
    process.exit(1);
  }
  console.log("OpenAPI lint: no problems (Redocly recommended rules)");
}
