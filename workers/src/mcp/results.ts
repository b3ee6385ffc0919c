/**
 * MCP tool results (docs/mcp.md#results): every result carries `structuredContent` (a JSON
 * object) and the same data as text for clients that read only `content`. Failures are results
 * with `isError: true` — never protocol errors — so that a model sees what went wrong and can
 * correct its call (MCP specification, "Tools" → "Error Handling").
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AppError, isStorageFull, STORAGE_FULL_MESSAGE } from "../errors.js";
import { mcpContentOf } from "../formats/tool-content.js";
import type { ModelCallOutcome } from "../services/tools.js";

/** Longest text rendering of a result, in characters (the structured content is never cut). */
export const MAX_TEXT_CHARS = 100_000;

function render(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? "null");
  return text.length > MAX_TEXT_CHARS
    ? `${text.slice(0, MAX_TEXT_CHARS)}\n… (cut at ${MAX_TEXT_CHARS} characters; structuredContent holds all of it)`
    : text;
}

/** A successful result whose text is `data` rendered as JSON. */
export function okResult(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: render(data) }], structuredContent: data };
}

/**
 * An error result `{ error: { code, message, details? } }` (the REST error envelope's shape).
 * @param err an AppError keeps its code and details; a full disk is `storage_full`
 *   (docs/execution.md#a-full-disk); anything else is `internal_error` with a generic message
 *   (the cause is not shown to the caller).
 */
export function errorResult(err: unknown): CallToolResult {
  const error =
    err instanceof AppError
      ? {
          code: err.code,
          message: err.message,
          ...(err.details === undefined ? {} : { details: err.details }),
        }
      : isStorageFull(err)
        ? { code: "storage_full", message: STORAGE_FULL_MESSAGE }
        : { code: "internal_error", message: "Internal server error" };
  return {
    isError: true,
    content: [{ type: "text", text: `${error.code}: ${error.message}` }],
    structuredContent: { error },
  };
}

/**
 * The result of a model's call of a skill tool:
 * - `success` → `{ status, executionId, output }`, text = the output (strings as they are); an
 *   output holding MCP content blocks (an imported tool's images, resources) keeps them as content;
 * - `pending_approval` → `{ status, executionId, message }`, not an error (the call was accepted);
 * - `error` / `timeout` → `isError: true`, `{ status, executionId, error, output? }`.
 */
export function skillCallResult(ref: string, outcome: ModelCallOutcome): CallToolResult {
  const { status, executionId } = outcome;
  if (status === "success") {
    const output = outcome.output ?? null;
    // An imported MCP tool's images and resources go to the client as the blocks they are.
    const blocks = mcpContentOf(output) as CallToolResult["content"] | undefined;
    return {
      content: blocks ?? [{ type: "text", text: render(output) }],
      structuredContent: { status, skill: ref, executionId, output },
    };
  }
  if (status === "pending_approval") {
    const message = `Execution ${executionId} of ${ref} awaits approval (executor policy hybrid): an operator or the owning key approves it with POST /api/skills/executions/${executionId}/approve, then it runs.`;
    return {
      content: [{ type: "text", text: message }],
      structuredContent: { status, skill: ref, executionId, message },
    };
  }
  const error = outcome.error ?? `Execution ended with status ${status}`;
  const data: Record<string, unknown> = { status, skill: ref, executionId, error };
  if (outcome.output !== undefined) data.output = outcome.output;
  const text =
    outcome.output === undefined ? error : `${error}\n\noutput:\n${render(outcome.output)}`;
  return { isError: true, content: [{ type: "text", text }], structuredContent: data };
}
