/**
 * The JSON Schema vocabulary of schema adaptation (docs/schema-adaptation.md has the keyword
 * lists of each form): type names, the types each type-specific keyword applies to, and the
 * `format` values Gemini documents.
 */

/** The JSON Schema type names. */
export const JSON_TYPES: ReadonlySet<string> = new Set([
  "string",
  "number",
  "integer",
  "boolean",
  "array",
  "object",
  "null",
]);

/** Type-specific keywords and the value shape each takes; `format` also applies to numbers. */
export const TYPED_KEYWORDS: Record<
  string,
  { types: readonly string[]; shape: "number" | "string" | "boolean" }
> = {
  format: { types: ["string", "number", "integer"], shape: "string" },
  pattern: { types: ["string"], shape: "string" },
  minLength: { types: ["string"], shape: "number" },
  maxLength: { types: ["string"], shape: "number" },
  minimum: { types: ["number", "integer"], shape: "number" },
  maximum: { types: ["number", "integer"], shape: "number" },
  exclusiveMinimum: { types: ["number", "integer"], shape: "number" },
  exclusiveMaximum: { types: ["number", "integer"], shape: "number" },
  multipleOf: { types: ["number", "integer"], shape: "number" },
  minItems: { types: ["array"], shape: "number" },
  maxItems: { types: ["array"], shape: "number" },
  uniqueItems: { types: ["array"], shape: "boolean" },
  minProperties: { types: ["object"], shape: "number" },
  maxProperties: { types: ["object"], shape: "number" },
};

/** `format` values Gemini documents, per type. */
export const GEMINI_FORMATS: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(["date-time", "date", "time"]),
  number: new Set(["float", "double"]),
  integer: new Set(["int32", "int64"]),
};
