/**
 * Checkers of each provider's accepted tool-parameter schema subset, written from the provider
 * rules recorded in docs/schema-adaptation.md (independently of the adapter's own tables). Each
 * returns the list of violations, with the JSON path of each, so a failing test says where.
 * Not a test file itself.
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);
const ROOT_FORBIDDEN_OPENAI = ["oneOf", "anyOf", "allOf", "enum", "not"];
const ROOT_FORBIDDEN_ANTHROPIC = ["oneOf", "anyOf", "allOf"];
/** Anthropic: "Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'". */
export const ANTHROPIC_KEY = /^[a-zA-Z0-9_.-]{1,64}$/;
/** Gemini FunctionDeclaration: parameter names start with a letter or `_`; a-z, A-Z, 0-9, `_`; <= 64. */
export const GEMINI_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Keywords of OpenAI's documented subset (Structured Outputs list plus plain JSON Schema annotations/limits non-strict mode takes). */
const OPENAI_KEYWORDS = new Set([
  "type",
  "title",
  "description",
  "default",
  "examples",
  "enum",
  "const",
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "items",
  "minItems",
  "maxItems",
  "uniqueItems",
  "properties",
  "required",
  "additionalProperties",
  "minProperties",
  "maxProperties",
  "anyOf",
]);
/** Gemini's documented JSON Schema keywords, minus `additionalProperties` and references. */
const GEMINI_KEYWORDS = new Set([
  "type",
  "title",
  "description",
  "format",
  "enum",
  "items",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "anyOf",
  "properties",
  "required",
]);
const GEMINI_FORMATS: Record<string, string[]> = {
  string: ["date-time", "date", "time"],
  number: ["float", "double"],
  integer: ["int32", "int64"],
};

type Visit = (node: Obj, path: string, out: string[]) => void;

/** Walks every subschema (properties, items, anyOf, additionalProperties) of `node`. */
function walk(node: unknown, path: string, out: string[], visit: Visit): void {
  if (!isObj(node)) {
    out.push(`${path}: not a schema object`);
    return;
  }
  visit(node, path, out);
  if (isObj(node.properties))
    for (const [k, v] of Object.entries(node.properties))
      walk(v, `${path}.properties.${k}`, out, visit);
  if (node.items !== undefined) walk(node.items, `${path}.items`, out, visit);
  if (Array.isArray(node.anyOf))
    for (const [i, b] of node.anyOf.entries()) walk(b, `${path}.anyOf[${i}]`, out, visit);
  if (isObj(node.additionalProperties))
    walk(node.additionalProperties, `${path}.additionalProperties`, out, visit);
}

function typeList(node: Obj): unknown[] {
  return Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
}

function checkRoot(schema: unknown, forbidden: string[], out: string[]): schema is Obj {
  if (!isObj(schema)) {
    out.push("$: not an object");
    return false;
  }
  if (schema.type !== "object") out.push(`$: type ${JSON.stringify(schema.type)} is not "object"`);
  if (!isObj(schema.properties)) out.push("$: no properties object");
  for (const k of forbidden) if (k in schema) out.push(`$: ${k} at the top level`);
  return true;
}

function commonNode(node: Obj, path: string, out: string[]): void {
  for (const t of typeList(node))
    if (typeof t !== "string" || !JSON_TYPES.has(t))
      out.push(`${path}: unknown type ${JSON.stringify(t)}`);
  if (node.required !== undefined) {
    const names = isObj(node.properties) ? Object.keys(node.properties) : [];
    if (!Array.isArray(node.required)) out.push(`${path}: required is not a list`);
    else
      for (const r of node.required)
        if (!names.includes(r as string)) out.push(`${path}: required ${r} is not a property`);
  }
}

/** OpenAI function parameters (Chat `function.parameters`, Responses `parameters`, non-strict). */
export function openaiViolations(schema: unknown): string[] {
  const out: string[] = [];
  if (!checkRoot(schema, ROOT_FORBIDDEN_OPENAI, out)) return out;
  walk(schema, "$", out, (node, path) => {
    commonNode(node, path, out);
    for (const k of Object.keys(node))
      if (!OPENAI_KEYWORDS.has(k)) out.push(`${path}: keyword ${k}`);
    if (typeList(node).includes("array") && !isObj(node.items))
      out.push(`${path}: array schema missing items`);
  });
  return out;
}

/** Anthropic `input_schema`. */
export function anthropicViolations(schema: unknown): string[] {
  const out: string[] = [];
  if (!checkRoot(schema, ROOT_FORBIDDEN_ANTHROPIC, out)) return out;
  walk(schema, "$", out, (node, path) => {
    commonNode(node, path, out);
    if (isObj(node.properties))
      for (const k of Object.keys(node.properties))
        if (!ANTHROPIC_KEY.test(k)) out.push(`${path}: property key ${JSON.stringify(k)}`);
  });
  return out;
}

/** Gemini `parametersJsonSchema`: documented keywords only, one type per node, no `const`/`additionalProperties`. */
export function geminiViolations(schema: unknown): string[] {
  const out: string[] = [];
  if (!checkRoot(schema, [], out)) return out;
  walk(schema, "$", out, (node, path) => {
    commonNode(node, path, out);
    for (const k of Object.keys(node))
      if (!GEMINI_KEYWORDS.has(k)) out.push(`${path}: keyword ${k}`);
    if (Array.isArray(node.type)) out.push(`${path}: type list`);
    const t = node.type as string | undefined;
    if (
      Array.isArray(node.enum) &&
      !node.enum.every((v) => typeof v === "string" || typeof v === "number")
    )
      out.push(`${path}: enum of other than strings and numbers`);
    if (node.format !== undefined && !(t && GEMINI_FORMATS[t]?.includes(node.format as string)))
      out.push(`${path}: format ${JSON.stringify(node.format)} on ${t}`);
    if ((node.properties !== undefined || node.required !== undefined) && t !== "object")
      out.push(`${path}: properties/required on a ${t ?? "untyped"} node`);
    if (node.items !== undefined && t !== "array")
      out.push(`${path}: items on a ${t ?? "untyped"} node`);
    if (t === "array" && !isObj(node.items)) out.push(`${path}: array without items`);
    for (const k of ["minItems", "maxItems"])
      if (k in node && t !== "array") out.push(`${path}: ${k} on a ${t ?? "untyped"} node`);
    for (const k of ["minimum", "maximum"])
      if (k in node && t !== "number" && t !== "integer")
        out.push(`${path}: ${k} on a ${t ?? "untyped"} node`);
    if (isObj(node.properties))
      for (const k of Object.keys(node.properties))
        if (!GEMINI_NAME.test(k)) out.push(`${path}: parameter name ${JSON.stringify(k)}`);
  });
  return out;
}
