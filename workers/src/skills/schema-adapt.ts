/**
 * Per-provider adaptation of a skill's input schema to each provider's accepted JSON Schema subset
 * (docs/schema-adaptation.md).
 *
 * - OpenAI and Anthropic take the normalised JSON Schema with root `type: "object"` and a
 *   `properties` object ({@link toJsonSchemaParameters}).
 * - Gemini takes an OpenAPI-style subset (Gemini API reference "Schema"): `type` (one enum value),
 *   `format`, `title`, `description`, `nullable`, `enum` (strings), `maxItems`/`minItems`,
 *   `properties`, `required`, `minProperties`/`maxProperties`, `minLength`/`maxLength`, `pattern`,
 *   `example`, `anyOf`, `propertyOrdering`, `default`, `items`, `minimum`/`maximum`. Everything
 *   else (`additionalProperties`, `$schema`, `$id`, `$ref`/`$defs`, `const`, `oneOf`, `allOf`,
 *   `not`, type arrays, ...) is rewritten or dropped by {@link toGeminiSchema}.
 */
import type { JsonSchema } from "./types.js";

/** Gemini `Schema.type` values (Gemini API reference "Type"). */
export type GeminiType = "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT";

/**
 * A schema in Gemini's subset, as {@link toGeminiSchema} emits it (int64 limits as strings, the
 * proto JSON form the Gemini API and `@google/genai` use).
 */
export type GeminiSchema = {
  type?: GeminiType;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  items?: GeminiSchema;
  anyOf?: GeminiSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: string;
  maxLength?: string;
  minItems?: string;
  maxItems?: string;
  minProperties?: string;
  maxProperties?: string;
  pattern?: string;
  default?: unknown;
  example?: unknown;
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * OpenAI / Anthropic parameters: a copy of the normalised schema with root `type: "object"` and a
 * `properties` object (an empty one when absent). `$schema` is dropped (not a parameter keyword).
 */
export function toJsonSchemaParameters(schema: JsonSchema): JsonSchema & { type: "object" } {
  const { $schema: _ignored, ...rest } = schema;
  return { ...rest, type: "object", properties: isObject(rest.properties) ? rest.properties : {} };
}

const GEMINI_TYPES: Record<string, string> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
};
/** Formats Gemini accepts, per type (Gemini API reference "Schema.format"). */
const GEMINI_FORMATS: Record<string, ReadonlySet<string>> = {
  STRING: new Set(["enum", "date-time"]),
  NUMBER: new Set(["float", "double"]),
  INTEGER: new Set(["int32", "int64"]),
};
const COPY_KEYS = [
  "title",
  "description",
  "pattern",
  "minimum",
  "maximum",
  "default",
  "example",
] as const;
const INT64_KEYS = [
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
] as const;
const MAX_DEPTH = 16;

type Defs = Record<string, unknown>;

function resolveRef(ref: string, defs: Defs): unknown {
  const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref);
  return m ? defs[m[1]!.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined;
}

function appendDescription(out: Record<string, unknown>, note: string): void {
  out.description =
    typeof out.description === "string" && out.description ? `${out.description} (${note})` : note;
}

/** Merges `allOf` members into one schema (properties and required united, first type wins). */
function mergeAllOf(schema: Record<string, unknown>, defs: Defs): Record<string, unknown> {
  const { allOf, ...base } = schema;
  const merged: Record<string, unknown> = { ...base };
  for (const raw of Array.isArray(allOf) ? allOf : []) {
    const part = isObject(raw) && typeof raw.$ref === "string" ? resolveRef(raw.$ref, defs) : raw;
    if (!isObject(part)) continue;
    for (const [k, v] of Object.entries(part)) {
      if (k === "properties" && isObject(v))
        merged.properties = { ...(isObject(merged.properties) ? merged.properties : {}), ...v };
      else if (k === "required" && Array.isArray(v))
        merged.required = [
          ...new Set([...(Array.isArray(merged.required) ? merged.required : []), ...v]),
        ];
      else if (!(k in merged)) merged[k] = v;
    }
  }
  return merged;
}

function convert(
  raw: unknown,
  defs: Defs,
  depth: number,
  seen: ReadonlySet<string>,
): Record<string, unknown> {
  if (!isObject(raw)) return {};
  let schema = raw;
  if (typeof schema.$ref === "string") {
    const target = resolveRef(schema.$ref, defs);
    if (depth >= MAX_DEPTH || seen.has(schema.$ref) || !isObject(target)) {
      // Recursive or unresolvable reference: Gemini has no $ref, so describe it instead.
      return {
        type: "OBJECT",
        description: typeof schema.description === "string" ? schema.description : "Nested object",
      };
    }
    const { $ref, ...siblings } = schema;
    return convert({ ...target, ...siblings }, defs, depth + 1, new Set([...seen, $ref as string]));
  }
  if (Array.isArray(schema.allOf)) schema = mergeAllOf(schema, defs);
  const out: Record<string, unknown> = {};
  for (const k of COPY_KEYS) if (schema[k] !== undefined) out[k] = schema[k];
  for (const k of INT64_KEYS) if (typeof schema[k] === "number") out[k] = String(schema[k]);

  // Type: a single type; a type array becomes one type plus `nullable`, or anyOf of the types.
  const types = (
    Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]
  ).map(String);
  let nullable = schema.nullable === true || types.includes("null");
  const nonNull = types.filter((t) => t !== "null" && GEMINI_TYPES[t]);
  if (nonNull.length === 1) out.type = GEMINI_TYPES[nonNull[0]!];
  else if (nonNull.length > 1) out.anyOf = nonNull.map((t) => ({ type: GEMINI_TYPES[t] }));

  // const → enum of one (strings) or a described fixed value.
  if (schema.const !== undefined) {
    if (typeof schema.const === "string") {
      out.type = "STRING";
      out.enum = [schema.const];
    } else {
      if (out.type === undefined && GEMINI_TYPES[typeof schema.const])
        out.type = GEMINI_TYPES[typeof schema.const];
      appendDescription(out, `must be ${JSON.stringify(schema.const)}`);
    }
  }
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((v) => v !== null);
    if (schema.enum.includes(null)) nullable = true;
    if (
      values.every((v) => typeof v === "string") &&
      (out.type === undefined || out.type === "STRING")
    ) {
      out.type = "STRING";
      out.enum = values;
    } else {
      appendDescription(out, `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`);
    }
  }

  // anyOf / oneOf → anyOf; a null branch becomes `nullable`; a single remaining branch is inlined.
  const branches = [
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []),
    ...(Array.isArray(schema.oneOf) ? schema.oneOf : []),
  ];
  if (branches.length > 0) {
    const kept = branches.filter((b) => !(isObject(b) && b.type === "null"));
    if (kept.length < branches.length) nullable = true;
    const converted = kept.map((b) => convert(b, defs, depth + 1, seen));
    if (converted.length === 1) {
      for (const [k, v] of Object.entries(converted[0]!)) if (out[k] === undefined) out[k] = v;
    } else if (converted.length > 1) out.anyOf = converted;
  }

  if (isObject(schema.properties)) {
    const props: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema.properties))
      props[k] = convert(v, defs, depth + 1, seen);
    out.properties = props;
    if (Array.isArray(schema.required)) {
      const required = schema.required.filter(
        (r): r is string => typeof r === "string" && r in props,
      );
      if (required.length > 0) out.required = required;
    }
    if (out.type === undefined && out.anyOf === undefined) out.type = "OBJECT";
  }
  const items = Array.isArray(schema.items) ? schema.items[0] : schema.items;
  if (isObject(items)) {
    out.items = convert(items, defs, depth + 1, seen);
    if (out.type === undefined && out.anyOf === undefined) out.type = "ARRAY";
  }
  if (out.type === "ARRAY" && out.items === undefined) out.items = { type: "STRING" };
  if (
    typeof schema.format === "string" &&
    typeof out.type === "string" &&
    GEMINI_FORMATS[out.type]?.has(schema.format)
  ) {
    out.format = schema.format;
  }
  if (nullable) out.nullable = true;
  return out;
}

/**
 * Gemini parameters from a normalised input schema: root `type: "OBJECT"`, only keywords of
 * Gemini's subset, `$ref`s inlined from `$defs` / `definitions` (recursive ones become a described
 * object), type arrays and null branches turned into `nullable: true`.
 * @returns null when the schema has no properties (Gemini docs: omit `parameters` then).
 */
export function toGeminiSchema(schema: JsonSchema): GeminiSchema | null {
  const defs: Defs = {
    ...(isObject(schema.definitions) ? schema.definitions : {}),
    ...(isObject(schema.$defs) ? schema.$defs : {}),
  };
  const out = convert(schema, defs, 0, new Set());
  if (!isObject(out.properties) || Object.keys(out.properties).length === 0) return null;
  out.type = "OBJECT";
  delete out.anyOf;
  delete out.nullable;
  return out as GeminiSchema;
}

/** Parameters of one skill for a format's schema dialect (see {@link toJsonSchemaParameters}, {@link toGeminiSchema}). */
export function adaptSchema(
  schema: JsonSchema,
  dialect: "json-schema" | "gemini",
): JsonSchema | null {
  return dialect === "gemini" ? toGeminiSchema(schema) : toJsonSchemaParameters(schema);
}
