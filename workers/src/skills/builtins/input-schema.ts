/**
 * One declaration per builtin input (docs/builtins.md): the zod schema a handler validates with
 * is also what the registry advertises, converted with zod's own `z.toJSONSchema` (input side:
 * a field with a default is optional and shows its default). The advertised object asks for no
 * other properties (`additionalProperties: false`); the handler drops unknown keys.
 */
import { z } from "zod";
import type { JsonSchema } from "../types.js";

/** The JSON Schema (draft 2020-12, without `$schema`) that a builtin advertises for `schema`. */
export function inputSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "input" }) as JsonSchema;
  if (json.type === "object" && json.additionalProperties === undefined) {
    json.additionalProperties = false;
  }
  return json;
}
