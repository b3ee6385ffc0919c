/**
 * One declaration per builtin input (docs/builtins.md): the zod schema a handler validates with
 * is also what the registry advertises, converted with zod's own `z.toJSONSchema` (input side:
 * a field with a default is optional and shows its default). The advertised object asks for no
 * other properties (`additionalProperties: false`); the handler drops unknown keys. Two artefacts
 * of the conversion that say nothing about the tool are left out: the bounds of JavaScript's safe
 * integers zod writes for every `.int()` without its own bound (`maximum: 9007199254740991`), and
 * `propertyNames: { type: "string" }` of a string-keyed record (every JSON key is a string).
 */
import { z } from "zod";
import type { JsonSchema } from "../types.js";

/** The JSON Schema (draft 2020-12, without `$schema`) that a builtin advertises for `schema`. */
export function inputSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: "input",
    override: ({ jsonSchema: node }) => {
      if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
      if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
      const names = node.propertyNames;
      if (isPlainStringSchema(names)) delete node.propertyNames;
    },
  }) as JsonSchema;
  if (json.type === "object" && json.additionalProperties === undefined) {
    json.additionalProperties = false;
  }
  return json;
}

function isPlainStringSchema(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.keys(value).length === 1 &&
    (value as { type?: unknown }).type === "string"
  );
}
