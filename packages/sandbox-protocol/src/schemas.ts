/**
 * Zod schemas of the bodies exchanged with the sandbox host (the shapes of types.ts). The host
 * checks requests with them; the API checks answers with them. Structural checks only: the host
 * applies its own policy (caps, allowlists) on top of a request that passes.
 */
import { z } from "zod";
import type {
  SandboxErrorBody,
  SandboxHealth,
  SandboxKillResult,
  SandboxRunEvent,
  SandboxRunRequest,
  SandboxRunResult,
} from "./types.js";

/** A run id: 1–100 chars of `[A-Za-z0-9_.-]` (also the `{runId}` of `POST /v1/kill/{runId}`). */
export const RUN_ID_PATTERN = /^[A-Za-z0-9_.-]{1,100}$/;

const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const languageSchema = z.enum(["node", "python", "shell"]);

/**
 * Schema of a run request body (`POST /v1/run`). Unknown keys are refused; `shell` needs
 * `command` and takes no `code`, `node`/`python` need `code` and take no `command`/`args`; NUL
 * characters are refused in argv and environment values (they cannot cross `execve`).
 */
export const sandboxRunRequestSchema = z
  .object({
    language: languageSchema,
    code: z.string().max(5_000_000).optional(),
    command: z.string().min(1).max(4096).optional(),
    args: z.array(z.string().max(131_072)).max(1024).optional(),
    timeoutMs: z.number().int().min(1).optional(),
    queueTimeoutMs: z.number().int().min(1).optional(),
    networkEnabled: z.boolean().optional(),
    cpuLimit: z.number().int().min(1).optional(),
    memoryLimit: z.number().int().min(1).optional(),
    env: z.record(z.string().regex(ENV_NAME_RE), z.string().max(32_768)).optional(),
    image: z.string().min(1).max(256).optional(),
    runId: z.string().regex(RUN_ID_PATTERN).optional(),
  })
  .strict()
  .superRefine((req, ctx) => {
    if (req.language === "shell") {
      if (req.command === undefined)
        ctx.addIssue({ code: "custom", path: ["command"], message: "Required for shell" });
      if (req.code !== undefined)
        ctx.addIssue({ code: "custom", path: ["code"], message: "Not allowed for shell" });
    } else {
      if (req.code === undefined)
        ctx.addIssue({ code: "custom", path: ["code"], message: `Required for ${req.language}` });
      if (req.command !== undefined || req.args !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["command"],
          message: `Not allowed for ${req.language}`,
        });
      }
    }
    const nul = [req.command, ...(req.args ?? []), ...Object.values(req.env ?? {})].some((s) =>
      s?.includes("\0"),
    );
    if (nul)
      ctx.addIssue({ code: "custom", path: ["args"], message: "NUL characters are not allowed" });
  }) satisfies z.ZodType<SandboxRunRequest>;

/**
 * Schema of a run result (`POST /v1/run` answering 200). Keys a newer host adds are ignored, so
 * an older API keeps reading its answers.
 */
export const sandboxRunResultSchema = z.object({
  runId: z.string(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  stdoutTruncated: z.boolean(),
  stderrTruncated: z.boolean(),
  truncated: z.boolean(),
  timedOut: z.boolean(),
  oomKilled: z.boolean(),
  durationMs: z.number().nonnegative(),
  queueWaitMs: z.number().nonnegative().optional(),
  image: z.string(),
  pooled: z.boolean(),
  limits: z
    .object({
      timeoutMs: z.number().int().positive(),
      memoryMb: z.number().int().positive(),
      maxTimeoutMs: z.number().int().positive(),
      maxMemoryMb: z.number().int().positive(),
    })
    .optional(),
}) satisfies z.ZodType<SandboxRunResult>;

/** Schema of `GET /v1/health`'s answer. */
export const sandboxHealthSchema = z.object({
  ok: z.boolean(),
  docker: z.boolean(),
  running: z.number().int().nonnegative(),
  queued: z.number().int().nonnegative(),
  maxConcurrency: z.number().int().positive(),
  maxQueue: z.number().int().nonnegative(),
  pool: z.record(z.string(), z.number().int().nonnegative()),
  images: z.object({
    node: z.string(),
    python: z.string(),
    shell: z.string(),
    browser: z.string().optional(),
  }),
  imagesPresent: z
    .object({
      node: z.boolean().nullable().optional(),
      python: z.boolean().nullable().optional(),
      shell: z.boolean().nullable().optional(),
      browser: z.boolean().nullable().optional(),
    })
    .optional(),
  imagesCheckedAt: z.string().nullable().optional(),
  runtimes: z
    .object({
      node: z.string().optional(),
      python: z.string().optional(),
      shell: z.string().optional(),
      browser: z.string().optional(),
    })
    .optional(),
  instance: z.string().optional(),
}) satisfies z.ZodType<SandboxHealth>;

/** Schema of `POST /v1/kill/{runId}`'s answer. */
export const sandboxKillResultSchema = z.object({
  killed: z.boolean(),
  started: z.boolean().optional(),
}) satisfies z.ZodType<SandboxKillResult>;

/** Schema of one line of a streamed run answer ({@link SandboxRunEvent}). */
export const sandboxRunEventSchema = z.discriminatedUnion("event", [
  z.object({
    event: z.literal("started"),
    runId: z.string(),
    instance: z.string(),
    queueWaitMs: z.number().nonnegative(),
  }),
  z.object({ event: z.literal("result"), result: sandboxRunResultSchema }),
  z.object({
    event: z.literal("error"),
    error: z.object({ code: z.string(), message: z.string() }),
  }),
]) satisfies z.ZodType<SandboxRunEvent>;

/** Schema of an error answer: `{ error: { code, message } }`. */
export const sandboxErrorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string() }),
}) satisfies z.ZodType<SandboxErrorBody>;
