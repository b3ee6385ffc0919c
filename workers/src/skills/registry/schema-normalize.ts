/**
 * Normalisation of skill input schemas to JSON Schema (docs/registry.md#input-schemas).
 * Accepts real JSON Schema as is, and the shorthand the original documents use:
 * `{ "city": "string" }` (property → type name) and `required: true` on a property.
 * The result always has root `type: "object"`, a `properties` object, and a `required` array
 * collected from per-property `required: true`.
 */
import { InvalidInputError } from "../../errors.js";
import type { JsonSchema } from "../types.js";

const TYPE_NAMES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

/** Keywords whose presence at the root marks a real JSON Schema rather than a shorthand map. */
const SCHEMA_ROOT_KEYWORDS = [
  "type",
  "properties",
  "$schema",
  "$ref",
  "anyOf",
  "oneOf",
  "allOf",
  "required",
  "additionalProperties",
];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Normalises one property schema; `path` names it in errors. */
function normaliseProperty(
  value: unknown,
  path: string,
): { schema: JsonSchema; required: boolean } {
  if (typeof value === "string") {
    const type = value.trim().toLowerCase();
    if (!TYPE_NAMES.has(type)) {
      throw new InvalidInputError(`Unknown type "${value}" for ${path}`, [
        { field: path, message: "unknown type" },
      ]);
    }
    return { schema: { type }, required: false };
  }
  if (!isPlainObject(value)) {
    throw new InvalidInputError(`Property ${path} must be a type name or a schema object`, [
      { field: path, message: "must be a type name or a schema object" },
    ]);
  }
  const { required, ...rest } = value;
  const schema: JsonSchema = { ...rest };
  let isRequired = false;
  if (typeof required === "boolean") isRequired = required;
  else if (Array.isArray(required)) schema.required = required;
  if (isPlainObject(schema.properties)) {
    const nested = normaliseObject(schema.properties, `${path}.properties`);
    schema.properties = nested.properties;
    const collected = new Set<string>([
      ...(Array.isArray(schema.required) ? (schema.required as string[]) : []),
      ...nested.required,
    ]);
    if (collected.size > 0) schema.required = [...collected];
    if (schema.type === undefined) schema.type = "object";
  }
  if (isPlainObject(schema.items))
    schema.items = normaliseProperty(schema.items, `${path}.items`).schema;
  return { schema, required: isRequired };
}

function normaliseObject(
  props: Record<string, unknown>,
  path: string,
): { properties: Record<string, JsonSchema>; required: string[] } {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, value] of Object.entries(props)) {
    const r = normaliseProperty(value, `${path}.${key}`);
    properties[key] = r.schema;
    if (r.required) required.push(key);
  }
  return { properties, required };
}

/**
 * Normalises an input schema (shorthand or JSON Schema) to a JSON Schema object.
 * @param input the `schema.input` value of an install body; undefined → an empty object schema.
 * @returns `{ type: "object", properties, required?, ... }`.
 * @throws InvalidInputError (field `schema.input...`) for unknown type names or non-object values.
 */
export function normalizeInputSchema(input: unknown): JsonSchema {
  if (input === undefined || input === null) return { type: "object", properties: {} };
  if (!isPlainObject(input)) {
    throw new InvalidInputError("schema.input must be an object", [
      { field: "schema.input", message: "must be an object" },
    ]);
  }
  const looksLikeSchema =
    SCHEMA_ROOT_KEYWORDS.some((k) => k in input) &&
    (input.type === undefined || typeof input.type === "string" || Array.isArray(input.type));
  if (!looksLikeSchema) {
    const { properties, required } = normaliseObject(input, "schema.input");
    return required.length > 0
      ? { type: "object", properties, required }
      : { type: "object", properties };
  }
  if (input.type !== undefined && input.type !== "object") {
    throw new InvalidInputError('schema.input must describe an object (type "object")', [
      { field: "schema.input.type", message: 'must be "object"' },
    ]);
  }
  const { schema } = normaliseProperty({ ...input, type: "object" }, "schema.input");
  if (!isPlainObject(schema.properties)) schema.properties = {};
  return schema;
}
