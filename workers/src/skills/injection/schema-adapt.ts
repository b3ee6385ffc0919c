/**
 * Per-provider adaptation of a skill's input schema (docs/schema-adaptation.md has each
 * provider's documented subset and the rules below, with their sources).
 *
 * Both dialects start from the portable form of schema-prepare.ts (root plain object, `$ref`s
 * inlined, `allOf` merged, arrays with `items`, provider-safe property names):
 * - `json-schema` (OpenAI Chat, OpenAI Responses, Anthropic): the portable form as is
 *   ({@link toJsonSchemaParameters});
 * - `gemini`: a JSON Schema for `FunctionDeclaration.parametersJsonSchema` restricted to the
 *   keywords Gemini documents for its JSON Schema support, with no
 *   `additionalProperties`, `const` or type arrays ({@link toGeminiParameters}).
 */

import type { SchemaDialect } from "../../formats/types.js";
import type { JsonSchema } from "../types.js";
import { GEMINI_FORMATS } from "./schema-keywords.js";
import { appendDescription, type PreparedSchema, prepareInputSchema } from "./schema-prepare.js";

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * OpenAI / Anthropic parameters: the portable form of `schema` (root `type: "object"`, a
 * `properties` object, no root combinators, arrays with `items`, safe property names).
 */
export function toJsonSchemaParameters(schema: JsonSchema): PreparedSchema["schema"] {
  return prepareInputSchema(schema).schema;
}

/** Constraints Gemini does not document, kept for the model as a description note. */
function describeDropped(node: Obj, out: Obj): void {
  const notes: string[] = [];
  if (typeof node.pattern === "string") notes.push(`pattern ${node.pattern}`);
  if (typeof node.minLength === "number") notes.push(`at least ${node.minLength} characters`);
  if (typeof node.maxLength === "number") notes.push(`at most ${node.maxLength} characters`);
  if (typeof node.exclusiveMinimum === "number")
    notes.push(`greater than ${node.exclusiveMinimum}`);
  if (typeof node.exclusiveMaximum === "number") notes.push(`less than ${node.exclusiveMaximum}`);
  if (typeof node.multipleOf === "number") notes.push(`a multiple of ${node.multipleOf}`);
  if (node.uniqueItems === true) notes.push("distinct items");
  if (node.default !== undefined) notes.push(`default ${JSON.stringify(node.default)}`);
  if (notes.length > 0) appendDescription(out, notes.join("; "));
}

/** One typed Gemini node for type `t` of a portable node (keywords of that type only). */
function typed(node: Obj, t: string, values: unknown[] | undefined): Obj {
  const out: Obj = { type: t };
  // JSON Schema's `format` keyword (e.g. `date-time`), kept where Gemini knows it.
  const keyword = node.format;
  if (typeof keyword === "string" && GEMINI_FORMATS[t]?.has(keyword)) out.format = keyword;
  if (values) {
    const fit = values.filter((v) =>
      t === "string"
        ? typeof v === "string"
        : t === "number" || t === "integer"
          ? typeof v === "number"
          : false,
    );
    if (fit.length > 0) out.enum = fit;
  }
  if (t === "number" || t === "integer") {
    if (typeof node.minimum === "number") out.minimum = node.minimum;
    if (typeof node.maximum === "number") out.maximum = node.maximum;
  } else if (t === "array") {
    out.items = gemini(isObject(node.items) ? node.items : {});
    if (typeof node.minItems === "number") out.minItems = node.minItems;
    if (typeof node.maxItems === "number") out.maxItems = node.maxItems;
  } else if (
    t === "object" &&
    isObject(node.properties) &&
    Object.keys(node.properties).length > 0
  ) {
    const props: Obj = {};
    for (const [k, v] of Object.entries(node.properties)) props[k] = gemini(isObject(v) ? v : {});
    out.properties = props;
    if (Array.isArray(node.required) && node.required.length > 0) out.required = node.required;
  }
  return out;
}

/** Converts one portable node to Gemini's documented JSON Schema keywords. */
function gemini(node: Obj): Obj {
  const declared = Array.isArray(node.type)
    ? node.type
    : node.type === undefined
      ? []
      : [node.type];
  let types = declared.filter((t): t is string => typeof t === "string");
  let nullable = types.includes("null");
  const head: Obj = {};
  if (typeof node.title === "string") head.title = node.title;
  if (typeof node.description === "string") head.description = node.description;
  describeDropped(node, head);

  // const → an enum of one (strings, numbers), the null type, or a note.
  let values = Array.isArray(node.enum) ? [...node.enum] : undefined;
  if (node.const !== undefined) {
    if (node.const === null) types = ["null"];
    else if (typeof node.const === "string" || typeof node.const === "number")
      values = [node.const];
    else appendDescription(head, `must be ${JSON.stringify(node.const)}`);
    if (typeof node.const === "boolean") types = ["boolean"];
  }
  if (values) {
    if (values.includes(null)) nullable = true;
    values = values.filter((v) => v !== null);
    if (!values.every((v) => typeof v === "string" || typeof v === "number")) {
      appendDescription(head, `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`);
      values = undefined;
    } else if (types.length === 0) {
      types = [...new Set(values.map((v) => (typeof v === "string" ? "string" : "number")))];
    }
  }
  const concrete = types.filter((t) => t !== "null");
  if (types.length > 0 && concrete.length === 0) nullable = true;

  let body: Obj;
  if (Array.isArray(node.anyOf)) {
    // Branches without their own type take the node's (`{type: object, anyOf: [{required}]}`).
    const branches = node.anyOf.filter(isObject).map((b) => {
      const own = b.type !== undefined || concrete.length === 0;
      const merged = own
        ? b
        : { ...stripGeneric(node), ...b, type: concrete.length === 1 ? concrete[0] : concrete };
      return gemini(merged);
    });
    const kept = branches.filter((b) => {
      if (b.type !== "null") return true;
      nullable = true;
      return false;
    });
    body = kept.length === 1 ? kept[0]! : { anyOf: kept };
  } else if (concrete.length === 1) body = typed(node, concrete[0]!, values);
  else if (concrete.length > 1) body = { anyOf: concrete.map((t) => typed(node, t, values)) };
  else if (nullable) return { type: "null", ...head };
  else body = values && values.length > 0 ? { enum: values } : {};

  if (nullable)
    body = {
      anyOf: [
        ...(Array.isArray(body.anyOf) && Object.keys(body).length === 1 ? body.anyOf : [body]),
        { type: "null" },
      ],
    };
  const { type, ...rest } = body;
  return type === undefined ? { ...head, ...rest } : { type, ...head, ...rest };
}

/** A node without its generic keywords and combinators (what a branch inherits). */
function stripGeneric(node: Obj): Obj {
  const {
    title: _t,
    description: _d,
    anyOf: _a,
    type: _y,
    default: _f,
    examples: _e,
    ...rest
  } = node;
  return rest;
}

/**
 * Gemini `parametersJsonSchema` for a normalised input schema (see the module docs and
 * docs/schema-adaptation.md, "Gemini").
 * @returns null when the schema has no properties (Gemini docs: leave the parameters unset).
 */
export function toGeminiParameters(schema: JsonSchema): JsonSchema | null {
  const portable = prepareInputSchema(schema).schema;
  if (Object.keys(portable.properties).length === 0) return null;
  return gemini(portable);
}

/** The adaptation of each schema dialect a wire format declares (`FormatAdapter.schemaDialect`). */
const BY_DIALECT: Record<SchemaDialect, (schema: JsonSchema) => JsonSchema | null> = {
  "json-schema": toJsonSchemaParameters,
  gemini: toGeminiParameters,
};

/** Parameters of one skill for a format's schema dialect (see {@link toJsonSchemaParameters}, {@link toGeminiParameters}). */
export function adaptSchema(schema: JsonSchema, dialect: SchemaDialect): JsonSchema | null {
  return BY_DIALECT[dialect](schema);
}
