/**
 * What the two OpenAI wire formats, Chat Completions and Responses, read and write alike
 * (docs/injection.md, docs/interception.md; OpenAI API reference "Chat Completions" and
 * "Responses"): the provider and schema dialect, `tool_choice: "none"` and its relaxation, the
 * roles whose text is context, call ids made unique with the `call_` prefix, and a function call's
 * JSON arguments parsed into its input.
 */
import type { ExtractedCall, JsonObject, ToolAdapter } from "./types.js";
import { idSeed, parseArguments, relaxOpenAiToolChoice, uniqueCallIds } from "./wire.js";

/** Message roles whose text is injection context in both OpenAI formats (not tool results). */
export const OPENAI_CONTEXT_ROLES: ReadonlySet<string> = new Set([
  "system",
  "developer",
  "user",
  "assistant",
]);

/**
 * The members of a {@link ToolAdapter} both OpenAI formats share: provider `openai`, JSON Schema
 * parameters, no tools when `tool_choice` is `"none"`, and a forced choice relaxed to `"auto"`
 * (wire.ts `relaxOpenAiToolChoice`).
 */
export const openaiToolBasics: Pick<
  ToolAdapter,
  "provider" | "schemaDialect" | "toolsDisabled" | "relaxToolChoice"
> = {
  provider: "openai",
  schemaDialect: "json-schema",
  toolsDisabled(request) {
    return request.tool_choice === "none";
  },
  relaxToolChoice: relaxOpenAiToolChoice,
};

/**
 * The call ids of `calls` (each call's `idField`: `id` in Chat, `call_id` in Responses), in
 * order: an id that is missing, empty or repeated is replaced by a `call_` id synthesised from
 * the response (wire.ts `uniqueCallIds`, seeded with `idSeed`), so the same response always gets
 * the same ids (docs/interception.md).
 */
export function openaiCallIds(
  response: JsonObject,
  calls: readonly JsonObject[],
  idField: "id" | "call_id",
): string[] {
  return uniqueCallIds(
    calls.map((call) => call[idField]),
    "call_",
    () => idSeed(response, calls),
  );
}

/**
 * A named function call: `base` with `name` and the input parsed from the call's `arguments`
 * (a JSON string or an object; wire.ts `parseArguments`), with `inputError` when they do not
 * parse or nest too deep.
 */
export function functionCallOf(
  base: Pick<ExtractedCall, "callId" | "providerId" | "index">,
  name: string,
  rawArguments: unknown,
): ExtractedCall {
  const parsed = parseArguments(rawArguments);
  return {
    ...base,
    name,
    input: parsed.input,
    ...(parsed.error ? { inputError: parsed.error } : {}),
  };
}
