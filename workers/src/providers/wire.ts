/**
 * Small helpers shared by the wire-format modules: defensive JSON readers, text extraction from
 * content parts, argument parsing, and the text a tool result carries back to the model.
 */
import { jsonDepthExceeds } from "../json-depth.js";
import type { CallOutcome, JsonObject } from "./types.js";

/**
 * Deepest nesting accepted in tool-call arguments sent as JSON text (OpenAI formats), the
 * arguments object being level 1. Arguments inside a request body (Anthropic `input`, Gemini
 * `args`) are held to `MAX_JSON_DEPTH` with the rest of the body; these arrive as a string and are
 * checked here before they are parsed, so no recursive code ever sees deeper values.
 */
export const MAX_ARGUMENT_DEPTH = 128;

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` when it is an array, else an empty array. */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `value` when it is a string, else undefined. */
export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * Text of a message content: a string as is, or the `text` of every part whose `type` is one of
 * `textTypes` (parts without a `type` count when they carry a string `text`), newline-joined.
 */
export function contentText(content: unknown, textTypes: ReadonlySet<string>): string {
  if (typeof content === "string") return content;
  const out: string[] = [];
  for (const part of asArray(content)) {
    if (!isObject(part) || typeof part.text !== "string") continue;
    if (part.type === undefined || textTypes.has(String(part.type))) out.push(part.text);
  }
  return out.join("\n");
}

/**
 * Parses a JSON-encoded arguments string (OpenAI formats). An empty string means `{}`.
 * @returns `{ input }` or `{ input: null, error }` when the text is not valid JSON or nests deeper
 *   than {@link MAX_ARGUMENT_DEPTH}.
 */
export function parseArguments(raw: unknown): { input: unknown; error?: string } {
  if (isObject(raw)) return { input: raw };
  if (typeof raw !== "string" || raw.trim() === "") return { input: {} };
  if (jsonDepthExceeds(raw, MAX_ARGUMENT_DEPTH)) {
    return {
      input: null,
      error: `Tool call arguments are nested deeper than ${MAX_ARGUMENT_DEPTH} levels`,
    };
  }
  try {
    return { input: JSON.parse(raw) };
  } catch {
    return { input: null, error: "Tool call arguments are not valid JSON" };
  }
}

/** Message given to the model for a call that waits for an operator (SPEC §5 "Approval"). */
export const PENDING_APPROVAL_MESSAGE =
  "This call needs approval by an operator before it runs; it has not run yet.";

/**
 * The result a tool-result message carries, as a JSON value: the handler output on success;
 * `{ status, error, output? }` on error or timeout; `{ status: "pending_approval", executionId,
 * message }` while a hybrid call awaits approval.
 */
export function outcomeValue(outcome: CallOutcome): unknown {
  switch (outcome.status) {
    case "success":
      return outcome.output ?? null;
    case "pending_approval":
      return {
        status: "pending_approval",
        executionId: outcome.executionId,
        message: PENDING_APPROVAL_MESSAGE,
      };
    default: {
      const body: JsonObject = {
        status: outcome.status,
        error: outcome.error ?? "Tool call failed",
      };
      if (outcome.output !== undefined && outcome.output !== null) body.output = outcome.output;
      return body;
    }
  }
}

/** {@link outcomeValue} as text: strings as is, anything else JSON-encoded. */
export function outcomeText(outcome: CallOutcome): string {
  const value = outcomeValue(outcome);
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** True for outcomes the model should see as failures (`error`, `timeout`). */
export function isFailure(outcome: CallOutcome): boolean {
  return outcome.status === "error" || outcome.status === "timeout";
}

/** Appends `extra` to the array at `key` of a shallow copy of `obj`. */
export function withAppended(obj: JsonObject, key: string, extra: readonly unknown[]): JsonObject {
  return { ...obj, [key]: [...asArray(obj[key]), ...extra] };
}
