/**
 * Builtin `browser` (docs/sandbox.md#the-browser-builtin): loads a page in headless Chromium on
 * the sandbox host (never on the API host), performs actions and returns the final URL, title and
 * the page's text, HTML or a PNG screenshot. Every request of the page leaves through the host's
 * egress proxy, which applies the outbound rules of `http_request`. Disabled on a fresh install
 * (mode `off`, policy `manual`): an operator enables it (README "The browser builtin").
 */
import {
  BROWSE_DEFAULT_TIMEOUT_MS,
  type BrowseResult,
  browseRequestSchema,
  MAX_SANDBOX_TIMEOUT_MS,
} from "@skillgate/sandbox-protocol";
import { z } from "zod";
import { ExecutionFailure } from "../../errors.js";
import type { HandlerContext, SkillHandler } from "../types.js";
import { inputSchemaOf } from "./input-schema.js";
import { SANDBOX_REPORT_GRACE_MS } from "./sandbox.js";
import type { BuiltinDefinition, BuiltinHandlerFactory } from "./types.js";

const request = browseRequestSchema.shape;

/**
 * Input of `browser`, also its advertised schema (docs/sandbox.md#the-browser-builtin): the
 * host's browse request without the run id, with its bounds (URL length, number of actions,
 * selector and value lengths), and a time limit of 1 000 to 60 000 ms.
 */
export const browserInput = browseRequestSchema.omit({ runId: true }).extend({
  url: request.url.describe("Absolute http or https URL."),
  actions: request.actions.describe("Steps performed in order after the page loaded."),
  extract: request.extract.describe("What to return (default text)."),
  timeoutMs: z
    .number()
    .int()
    .min(1_000)
    .max(MAX_SANDBOX_TIMEOUT_MS)
    .optional()
    .describe(`Time limit in ms for the whole browse (default ${BROWSE_DEFAULT_TIMEOUT_MS}).`),
});

/** What `browser` returns on success (the host's result without its bookkeeping). */
export type BrowserOutput = Omit<BrowseResult, "runId" | "status" | "error">;

/** Declaration of `browser` (disabled: mode `off`, policy `manual`; docs/registry.md#builtins). */
export const browserDefinitions: BuiltinDefinition[] = [
  {
    name: "browser",
    description:
      "Open a public web page in a headless browser, optionally click, fill, wait for elements or press keys, and return the final URL, title and the page's visible text (or HTML, or a PNG screenshot). Private and internal addresses are refused.",
    inputSchema: inputSchemaOf(browserInput),
    policy: "manual",
    mode: "off",
    enabled: false,
    available: (deps) => deps.sandbox !== undefined,
    sandbox: true,
    tags: ["browser", "web", "page", "chromium", "scrape", "screenshot", "click", "form"],
    timing: () => ({
      limitFromInput: (input) => {
        const t = (input as { timeoutMs?: unknown } | null)?.timeoutMs;
        return typeof t === "number" && Number.isFinite(t) && t > 0 ? t : undefined;
      },
      defaultLimitMs: BROWSE_DEFAULT_TIMEOUT_MS,
      maxLimitMs: MAX_SANDBOX_TIMEOUT_MS,
      graceMs: SANDBOX_REPORT_GRACE_MS,
      // Browses run on the sandbox host (placement `sandbox`); they are not upgraded.
      sandbox: { autoUpgrade: false },
    }),
  },
];

/**
 * Builds the `browser` handler over `deps.sandbox`. The browse gets what remains of the
 * execution's limit (`ctx.timeoutMs`, at most 60 000 ms). Output: {@link BrowserOutput}.
 * Errors (ExecutionFailure, the host's result as output when the browse ran): `invalid_input`;
 * `sandbox_unavailable` (retryable) without a sandbox host; `outbound_blocked` (the page was
 * refused by the egress rules), `dns_failed` / `connect_failed` (the page's host did not resolve
 * / accept a connection: not a refusal), `navigation_failed`, `action_failed`, `browser_failed`,
 * `oom_killed`; status `timeout` (code `timeout`); the sandbox client's codes (`sandbox_busy`,
 * `image_unavailable`, ...).
 */
export const createBrowserHandlers: BuiltinHandlerFactory = (deps) => {
  const handler: SkillHandler = async (input, ctx: HandlerContext): Promise<BrowserOutput> => {
    const parsed = browserInput.safeParse(input);
    if (!parsed.success) {
      const where = parsed.error.issues
        .map((i) => `${i.path.join(".") || "input"}: ${i.message}`)
        .join("; ");
      throw new ExecutionFailure(`Invalid browser input: ${where}`, { code: "invalid_input" });
    }
    const sandbox = deps.sandbox;
    if (!sandbox) {
      throw new ExecutionFailure(
        "Sandbox host is not configured (SANDBOX_URL and SANDBOX_SECRET)",
        { code: "sandbox_unavailable", retryable: true },
      );
    }
    if (ctx.signal.aborted)
      throw new ExecutionFailure("Execution was cancelled", { code: "aborted" });
    const timeoutMs = Math.max(1, Math.min(Math.floor(ctx.timeoutMs), MAX_SANDBOX_TIMEOUT_MS));
    const runId = crypto.randomUUID();
    const onAbort = () => void sandbox.kill(runId).catch(() => {});
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    let result: BrowseResult;
    try {
      result = await sandbox.browse({ ...parsed.data, timeoutMs, runId }, ctx.signal);
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
    }
    const { runId: _id, status, error, ...output } = result;
    if (status === "timeout") {
      throw new ExecutionFailure(`Browse timed out after ${timeoutMs} ms`, {
        status: "timeout",
        code: "timeout",
        output,
      });
    }
    if (status === "error") {
      throw new ExecutionFailure(error?.message ?? "Browse failed", {
        code: error?.code ?? "browser_failed",
        output,
      });
    }
    return output;
  };
  return { browser: handler };
};
