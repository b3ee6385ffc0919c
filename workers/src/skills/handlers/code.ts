/**
 * Code skills (docs/custom-skills.md#code-skills): a skill installed with
 * `handler: { type: "code", language, code }` runs its program on the sandbox host, with the
 * hardened flags of `eval_code` (no network, read-only root, dropped capabilities, limits).
 *
 * How the input reaches the program: the host feeds a program to `node -` / `python3 -u -` on
 * stdin, so the stdin the host gives is the program itself. The handler therefore sends one
 * payload: a small runner that holds the skill's code and the call's input (both base64, so no
 * quoting can break out), replaces the program's stdin with a stream of the input's JSON text
 * followed by a newline, and runs the code as the main module. The input never goes through argv
 * or the environment. Python code reads `sys.stdin` (or `sys.stdin.buffer`); Node code reads
 * `process.stdin` (events or `for await`) or `fs.readFileSync(0)`, and runs as a CommonJS module
 * (`require`, no top-level `await`).
 *
 * Output: stdout, parsed as JSON when it is JSON, else the text (null when empty).
 */

import { ExecutionFailure } from "../../errors.js";
import { attemptLimit, memoryOf, outcomeOf, runOnHost } from "../builtins/sandbox.js";
import type { BuiltinEnv } from "../builtins/types.js";
import { parseJsonOutput } from "../execution/execution-attempt.js";
import type { CodeHandlerSpec, HandlerContext, SkillHandler } from "../types.js";

/** Name under which the executor runs every code skill. */
export const CODE_HANDLER_NAME = "code-handler";

/** Longest program a code skill may carry, in characters. */
export const MAX_CODE_CHARS = 1_000_000;

function base64Utf8(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

/** Hex SHA-256 of `code` (UTF-8), as recorded on the skill and on each execution row. */
export async function codeSha256(code: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(code));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The program sent to the host: a runner around `code` that gives it `inputJson` + "\n" as stdin.
 * @param language `python` or `node`.
 */
export function runnerProgram(
  language: "python" | "node",
  code: string,
  inputJson: string,
): string {
  const input = base64Utf8(`${inputJson}\n`);
  const program = base64Utf8(code);
  if (language === "python") {
    return [
      "import base64 as _sg_b64, io as _sg_io, sys as _sg_sys",
      `_sg_sys.stdin = _sg_io.TextIOWrapper(_sg_io.BytesIO(_sg_b64.b64decode("${input}")), encoding="utf-8")`,
      `_sg_code = _sg_b64.b64decode("${program}").decode("utf-8")`,
      '_sg_globals = {"__name__": "__main__", "__file__": "skill.py", "__builtins__": __builtins__}',
      'exec(compile(_sg_code, "skill.py", "exec"), _sg_globals)',
      "",
    ].join("\n");
  }
  return [
    '"use strict";',
    "(() => {",
    '  const { Readable } = require("node:stream");',
    '  const fs = require("node:fs");',
    '  const Module = require("node:module");',
    '  const path = require("node:path");',
    `  const input = Buffer.from("${input}", "base64");`,
    `  const code = Buffer.from("${program}", "base64").toString("utf8");`,
    "  const stdin = Readable.from([input], { objectMode: false });",
    '  Object.defineProperty(process, "stdin", { configurable: true, get: () => stdin });',
    "  const readFileSync = fs.readFileSync;",
    "  fs.readFileSync = function (file, ...rest) {",
    '    if (file === 0 || file === "/dev/stdin") {',
    "      const opt = rest[0];",
    '      const enc = typeof opt === "string" ? opt : opt && opt.encoding;',
    "      return enc ? input.toString(enc) : Buffer.from(input);",
    "    }",
    "    return readFileSync.call(this, file, ...rest);",
    "  };",
    '  const filename = path.join(process.cwd(), "skill.js");',
    "  const m = new Module(filename, null);",
    "  m.filename = filename;",
    "  m.paths = Module._nodeModulePaths(process.cwd());",
    "  m._compile(code, filename);",
    "})();",
    "",
  ].join("\n");
}

/**
 * Output of a program's stdout: its JSON value, else the text; null when empty.
 * @throws ExecutionFailure `output_too_deep` (with the start of stdout) when the JSON nests
 *   deeper than `MAX_VALUE_DEPTH` levels (docs/execution.md#output-depth).
 */
export function parseStdout(stdout: string): unknown {
  const text = stdout.trim();
  if (text === "") return null;
  const value = parseJsonOutput(text);
  return value === text ? stdout : value;
}

function specOf(ctx: HandlerContext): CodeHandlerSpec {
  const spec = ctx.skill.handler;
  if (spec?.type !== "code") {
    throw new ExecutionFailure(`Skill ${ctx.skill.name} has no code handler`, {
      code: "handler_misconfigured",
    });
  }
  return spec;
}

/**
 * Builds the handler of every code skill over `deps.sandbox`. Each run gets what remains of the
 * execution's limit (at most 60 000 ms) and the skill's `memoryMb`; network is always off.
 * Errors (ExecutionFailure), as `eval_code`'s: `sandbox_unavailable`, `sandbox_busy` (retryable),
 * `timeout`, `oom_killed` and `nonzero_exit` with the run result (stdout, stderr, exit code) as
 * output, the host's codes (e.g. `invalid_request` for a memory limit over the host's maximum).
 */
export function createCodeHandler(deps: BuiltinEnv): SkillHandler {
  return async (input, ctx) => {
    const spec = specOf(ctx);
    const timeoutMs = attemptLimit(ctx);
    const result = await runOnHost(
      deps,
      {
        language: spec.language,
        code: runnerProgram(spec.language, spec.code, JSON.stringify(input ?? null)),
        timeoutMs,
        networkEnabled: false,
        ...memoryOf(ctx, spec.memoryMb),
      },
      ctx,
    );
    return parseStdout(outcomeOf(result, timeoutMs).stdout);
  };
}
