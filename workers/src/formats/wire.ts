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

/** Message given to the model for a call that waits for an operator (docs/policies.md#approval). */
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

/** Characters every provider accepts in an id it reads back (Anthropic: `^[a-zA-Z0-9_-]+$`). */
const SAFE_ID_CHAR = /[^A-Za-z0-9_-]/g;

/** `text` with every character outside `[A-Za-z0-9_-]` replaced by `_`. */
export function safeIdPart(text: string): string {
  return text.replace(SAFE_ID_CHAR, "_");
}

/**
 * 8 base-36 characters of a 32-bit FNV-1a hash of `text`: stable across processes and runtimes,
 * used to make synthesised ids differ between responses.
 */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36).padStart(8, "0");
}

/**
 * Unique, non-empty ids for the calls of one response, in call order (see docs/interception.md):
 * a call keeps the provider's id when it is a non-empty string, accepted by `accept`, and not
 * used by an earlier call; otherwise it gets `<prefix><seed>_<index>` (index = position among the response's calls),
 * suffixed `_2`, `_3`, ... if that collides with any id of the response. The same input always
 * gives the same ids, and ids it returns are kept as they are when given back.
 * @param raw the id field of each call as read from the response (any JSON value).
 * @param prefix safe characters only (e.g. `call_`, `toolu_`).
 * @param seed safe characters only, or "" for plain `<prefix><index>` ids; a function is called
 *   only when some id has to be synthesised.
 * @param accept ids the provider would take back in a replayed turn (default: any non-empty).
 */
export function uniqueCallIds(
  raw: readonly unknown[],
  prefix: string,
  seed: string | (() => string),
  accept: (id: string) => boolean = () => true,
): string[] {
  const taken = new Set<string>();
  for (const id of raw) if (typeof id === "string" && id !== "") taken.add(id);
  const used = new Set<string>();
  let base: string | undefined;
  return raw.map((id, index) => {
    if (typeof id === "string" && id !== "" && !used.has(id) && accept(id)) {
      used.add(id);
      return id;
    }
    if (base === undefined) {
      const s = typeof seed === "function" ? seed() : seed;
      base = s === "" ? prefix : `${prefix}${s}_`;
    }
    let candidate = `${base}${index}`;
    for (let n = 2; taken.has(candidate) || used.has(candidate); n++) {
      candidate = `${base}${index}_${n}`;
    }
    used.add(candidate);
    return candidate;
  });
}

/**
 * Seed of the synthesised ids of one response: {@link shortHash} of the response's `id` and of its
 * calls as received, so two responses rarely share a synthesised id (a conversation replays many
 * assistant turns, and Anthropic wants `tool_use` ids unique).
 */
export function idSeed(response: JsonObject, calls: readonly unknown[]): string {
  return shortHash(JSON.stringify([typeof response.id === "string" ? response.id : null, calls]));
}

/**
 * OpenAI Chat and Responses: a copy of `request` with a forcing `tool_choice` relaxed to
 * `"auto"`: `"required"` and a named tool (`{ type: "function" | "custom" | …, … }`) become
 * `"auto"`; `allowed_tools` keeps its list with `mode: "auto"` (Chat nests it under
 * `allowed_tools`, Responses has it at the top). `auto`, `none` or no choice return `request`
 * itself (OpenAI API reference, `tool_choice`).
 */
export function relaxOpenAiToolChoice(request: JsonObject): JsonObject {
  const choice = request.tool_choice;
  if (choice === "required") return { ...request, tool_choice: "auto" };
  if (!isObject(choice)) return request;
  if (choice.type === "allowed_tools") {
    if (isObject(choice.allowed_tools)) {
      if (choice.allowed_tools.mode !== "required") return request;
      return {
        ...request,
        tool_choice: { ...choice, allowed_tools: { ...choice.allowed_tools, mode: "auto" } },
      };
    }
    if (choice.mode !== "required") return request;
    return { ...request, tool_choice: { ...choice, mode: "auto" } };
  }
  return { ...request, tool_choice: "auto" };
}

/**
 * Adds every number of `b` into `a` (nested objects too), as usage objects are summed over the
 * rounds of a proxied answer (docs/proxy.md#the-loop); `a` may be undefined. Non-numeric fields
 * keep the latest value.
 */
export function sumUsage(a: unknown, b: unknown): unknown {
  if (typeof b === "number") return (typeof a === "number" ? a : 0) + b;
  if (typeof b !== "object" || b === null || Array.isArray(b)) return b ?? a;
  const base = typeof a === "object" && a !== null && !Array.isArray(a) ? (a as JsonObject) : {};
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(b as JsonObject)) out[k] = sumUsage(base[k], v);
  return out;
}

/**
 * A token count field of a usage object as a whole number of tokens: a finite positive number
 * floored, 0 for anything else (missing, negative, not a number), so that a provider's odd value
 * never subtracts from or poisons a sum (docs/limits.md#token-budgets).
 */
export function tokenCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
