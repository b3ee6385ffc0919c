/**
 * Builtins `eval_code` (node, python) and `execute_command` (shell argv) delegated to the sandbox
 * host (README "Sandbox skills" and "Time limits").
 */
import {
  MAX_SANDBOX_TIMEOUT_MS,
  type SandboxRunRequest,
  type SandboxRunResult,
} from "@skillgate/sandbox-protocol";
import { z } from "zod";
import type { Config } from "../../config.js";
import { ExecutionFailure } from "../../errors.js";
import type { HandlerTiming } from "../execution/timing.js";
import type { HandlerContext, SkillHandler } from "../types.js";
import { inputSchemaOf } from "./input-schema.js";
import type { BuiltinDefinition, BuiltinEnv, BuiltinHandlerFactory } from "./types.js";

/**
 * Time the executor waits past a run's deadline for the host to report a run it stopped at the
 * limit, in ms: container start, SIGTERM → SIGKILL grace, removal, the HTTP round trip. Internal:
 * never part of the limit or of a message.
 */
export const SANDBOX_REPORT_GRACE_MS = 5_000;

const TIMEOUT_DESCRIPTION = "Time limit in milliseconds (default from the server, at most 60000).";

/** Input of `eval_code`, also its advertised schema (docs/builtins.md). */
export const evalCodeInput = z.object({
  language: z.enum(["javascript", "node", "python"]).describe("Program language."),
  code: z.string().min(1).describe("Complete program source."),
  timeoutMs: z.number().int().min(100).optional().describe(TIMEOUT_DESCRIPTION),
  memoryMb: z
    .number()
    .int()
    .min(16)
    .optional()
    .describe("Memory limit in MB (default from the server, at most its maximum)."),
  networkEnabled: z
    .boolean()
    .optional()
    .describe("Ask for network access (granted only when the server allows it)."),
});

/** Longest `execute_command` command, in characters. */
export const MAX_COMMAND_CHARS = 4096;
/** Most arguments of one `execute_command` call (docs/builtins.md). */
export const MAX_COMMAND_ARGS = 1024;

/**
 * Input of `execute_command`, also its advertised schema: argv, never a shell string. Its bounds
 * are in the advertised schema too, so that the preflight refuses an oversized call with 400
 * before any row is written.
 */
export const executeCommandInput = z.object({
  command: z.string().min(1).max(MAX_COMMAND_CHARS).describe("Executable name or path, e.g. `ls`."),
  args: z
    .array(z.union([z.string(), z.number(), z.boolean()]))
    .max(MAX_COMMAND_ARGS)
    .optional()
    .describe(`Arguments, each passed as one argv entry (at most ${MAX_COMMAND_ARGS}).`),
  timeoutMs: z.number().int().min(100).optional().describe(TIMEOUT_DESCRIPTION),
});

/** True when a call's input sets its own `timeoutMs` or `memoryMb` (such runs never upgrade). */
export function asksForLimits(input: unknown): boolean {
  const i = input as { timeoutMs?: unknown; memoryMb?: unknown } | null;
  return i?.timeoutMs !== undefined || i?.memoryMb !== undefined;
}

/**
 * How the executor times sandbox runs (README "Time limits"): the call's `timeoutMs`, else
 * `SKILLS_SANDBOX_TIMEOUT_MS`, never above 60 000 ms, with {@link SANDBOX_REPORT_GRACE_MS} for
 * the host to report plus `SANDBOX_QUEUE_WAIT_MS` for the wait for a slot, which is not taken
 * from the program's limit (docs/sandbox.md#queue-wait-and-program-time). Runs are placed in the sandbox; `autoUpgrade` is the default of the
 * handler's skills (docs/execution.md#auto-upgrade), off for calls that ask for their own limits.
 */
export function sandboxTiming(config: Config, autoUpgrade = false): HandlerTiming {
  return {
    sandbox: { autoUpgrade, explicitLimits: asksForLimits },
    limitFromInput: (input) => {
      const asked = (input as { timeoutMs?: unknown } | null)?.timeoutMs;
      return typeof asked === "number" && Number.isFinite(asked) && asked > 0 ? asked : undefined;
    },
    defaultLimitMs: config.SKILLS_SANDBOX_TIMEOUT_MS,
    maxLimitMs: MAX_SANDBOX_TIMEOUT_MS,
    graceMs: SANDBOX_REPORT_GRACE_MS + config.SANDBOX_QUEUE_WAIT_MS,
  };
}

/** Declarations of the sandbox builtins (eval_code `hybrid`, execute_command `manual`). */
export const sandboxDefinitions: BuiltinDefinition[] = [
  {
    name: "eval_code",
    description:
      "Run a JavaScript (Node.js) or Python program in an isolated sandbox without network access and return its stdout, stderr and exit code. The program reads nothing from the caller; print results to stdout.",
    inputSchema: inputSchemaOf(evalCodeInput),
    policy: "hybrid",
    available: (deps) => deps.sandbox !== undefined,
    mode: "auto",
    tags: [
      "code",
      "eval",
      "run",
      "execute",
      "python",
      "javascript",
      "node",
      "script",
      "calculate",
      "sandbox",
    ],
    timing: (config) => sandboxTiming(config, true),
    sandbox: true,
  },
  {
    name: "execute_command",
    description:
      "Run one command with arguments (argv, no shell) in an isolated sandbox without network access and return its stdout, stderr and exit code.",
    inputSchema: inputSchemaOf(executeCommandInput),
    policy: "manual",
    available: (deps) => deps.sandbox !== undefined,
    mode: "auto",
    tags: ["shell", "command", "execute", "run", "cli", "terminal", "sandbox"],
    timing: sandboxTiming,
    sandbox: true,
  },
];

function parseInput<T>(schema: z.ZodType<T>, input: unknown, tool: string): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => i.path.join(".") || "input").join(", ");
    throw new ExecutionFailure(`Invalid ${tool} input: ${where}`, { code: "invalid_input" });
  }
  return parsed.data;
}

/**
 * Maps a run result to the execution outcome (docs/execution.md#outcomes): exit 0 without OOM → the
 * result is returned (success); a timeout → ExecutionFailure `timeout` with the partial result;
 * OOM or a non-zero exit → ExecutionFailure `error` with the whole result as output.
 */
export function outcomeOf(result: SandboxRunResult, timeoutMs: number): SandboxRunResult {
  if (result.timedOut) {
    throw new ExecutionFailure(`Sandbox run timed out after ${timeoutMs} ms`, {
      status: "timeout",
      code: "timeout",
      output: result,
    });
  }
  if (result.oomKilled) {
    throw new ExecutionFailure(
      "Sandbox run was killed for exceeding its memory limit (oomKilled)",
      {
        code: "oom_killed",
        output: result,
      },
    );
  }
  if (result.exitCode !== 0) {
    const how =
      result.exitCode === null
        ? "ended without an exit code"
        : `exited with code ${result.exitCode}`;
    const signal = result.signal ? ` (${result.signal})` : "";
    const cut =
      result.truncated && result.signal
        ? "; output exceeded the limit and the run was stopped"
        : "";
    throw new ExecutionFailure(`Program ${how}${signal}${cut}`, {
      code: "nonzero_exit",
      output: result,
    });
  }
  return result;
}

/**
 * Runs a request on the host, killing the run through the host when the execution aborts, and
 * reports the host, the queue wait and the program time to the executor (`ctx.reportSandbox`;
 * docs/execution.md#sandbox-runs). The run is sent at most once: the client retries only a run
 * that provably never started (docs/sandbox.md#at-most-once).
 * @throws ExecutionFailure `sandbox_unavailable` (retryable) when no host is configured, `aborted`
 *   when the execution already ended; the client's failures otherwise (`queue_timeout`,
 *   `sandbox_outcome_unknown`, ...).
 */
export async function runOnHost(
  deps: BuiltinEnv,
  req: SandboxRunRequest,
  ctx: HandlerContext,
): Promise<SandboxRunResult> {
  const sandbox = deps.sandbox;
  if (!sandbox) {
    throw new ExecutionFailure("Sandbox host is not configured (SANDBOX_URL and SANDBOX_SECRET)", {
      code: "sandbox_unavailable",
      retryable: true,
    });
  }
  const runId = crypto.randomUUID();
  const onAbort = () => void sandbox.kill(runId).catch(() => {});
  if (ctx.signal.aborted)
    throw new ExecutionFailure("Execution was cancelled", { code: "aborted" });
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const result = await sandbox.run({ ...req, runId }, ctx.signal, {
      onStarted: (start) =>
        ctx.reportSandbox?.({ host: start.host, queueWaitMs: start.queueWaitMs }),
      onQueueTimeout: (refusal) => ctx.reportSandbox?.(refusal),
    });
    ctx.reportSandbox?.({
      programMs: result.durationMs,
      ...(result.queueWaitMs !== undefined ? { queueWaitMs: result.queueWaitMs } : {}),
    });
    return result;
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
  }
}

/**
 * The sandbox limit of one attempt in ms: what remains of the execution's limit (the executor
 * owns the deadline; `ctx.timeoutMs`), at most 60 000.
 */
export function attemptLimit(ctx: HandlerContext): number {
  return Math.max(1, Math.min(Math.floor(ctx.timeoutMs), MAX_SANDBOX_TIMEOUT_MS));
}

/**
 * The `memoryLimit` of a run request: the executor's choice for an upgraded attempt
 * (`ctx.memoryMb`), else the call's or skill's own, else none (the host's default).
 */
export function memoryOf(
  ctx: HandlerContext,
  own: number | null | undefined,
): { memoryLimit?: number } {
  const mb = ctx.memoryMb ?? own ?? undefined;
  return mb === undefined ? {} : { memoryLimit: mb };
}

/**
 * Builds the `eval_code` and `execute_command` handlers over `deps.sandbox`. Each run gets what
 * remains of the execution's limit (`ctx.timeoutMs`); the call's own `timeoutMs` reaches it
 * through the executor ({@link sandboxTiming}). Errors (ExecutionFailure): `invalid_input`;
 * `sandbox_unavailable` (retryable) when no host is configured or it cannot be reached;
 * `sandbox_busy` (retryable, with the host's Retry-After) when the host had no slot and the
 * program did not run; `timeout`, `oom_killed`, `nonzero_exit` with the run result as output; the
 * host's codes (`image_unavailable`, ...).
 */
export const createSandboxHandlers: BuiltinHandlerFactory = (deps) => {
  const evalCode: SkillHandler = async (input, ctx) => {
    const args = parseInput(evalCodeInput, input, "eval_code");
    const timeoutMs = attemptLimit(ctx);
    const result = await runOnHost(
      deps,
      {
        language: args.language === "python" ? "python" : "node",
        code: args.code,
        timeoutMs,
        networkEnabled: args.networkEnabled === true,
        ...memoryOf(ctx, args.memoryMb),
      },
      ctx,
    );
    return outcomeOf(result, timeoutMs);
  };

  const executeCommand: SkillHandler = async (input, ctx) => {
    const args = parseInput(executeCommandInput, input, "execute_command");
    const timeoutMs = attemptLimit(ctx);
    const result = await runOnHost(
      deps,
      {
        language: "shell",
        command: args.command,
        args: (args.args ?? []).map(String),
        timeoutMs,
        ...memoryOf(ctx, undefined),
      },
      ctx,
    );
    return outcomeOf(result, timeoutMs);
  };

  return { eval_code: evalCode, execute_command: executeCommand };
};
