import { describe, expect, it } from "vitest";
/**
 * Shorthand schemas and the Gemini form of a schema rich in keywords outside Gemini's documented
 * subset (docs/schema-adaptation.md, "Gemini").
 */
import {
  adaptSchema,
  toGeminiParameters,
  toJsonSchemaParameters,
} from "../../workers/src/skills/injection/schema-adapt.js";
import { normalizeInputSchema } from "../../workers/src/skills/registry/schema-normalize.js";

const FORBIDDEN_FOR_GEMINI = [
  "additionalProperties",
  "$schema",
  "const",
  "$ref",
  "$defs",
  "oneOf",
  "allOf",
  "definitions",
  "nullable",
];

/** Every key used anywhere in a schema tree. */
function keysDeep(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysDeep(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysDeep(v, out);
    }
  }
  return out;
}

/** Every `type` value anywhere in a schema tree. */
function typesDeep(value: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const v of value) typesDeep(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "type") out.push(v);
      else typesDeep(v, out);
    }
  }
  return out;
}

describe("shorthand schemas", () => {
  const normalised = normalizeInputSchema({
    city: "string",
    days: { type: "integer", required: true },
  });

  it("OpenAI/Anthropic parameters are a JSON Schema object", () => {
    const p = toJsonSchemaParameters(normalised);
    expect(p.type).toBe("object");
    expect(p.properties).toEqual({ city: { type: "string" }, days: { type: "integer" } });
    expect(p.required).toEqual(["days"]);
  });

  it("Gemini parameters are a JSON Schema object in Gemini's subset", () => {
    const p = toGeminiParameters(normalised);
    expect(p).toEqual({
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" } },
      required: ["days"],
    });
  });
});

describe("Gemini schema subset", () => {
  const rich = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    additionalProperties: false,
    $defs: {
      unit: { type: "string", enum: ["c", "f"] },
      node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } },
    },
    properties: {
      city: { type: ["string", "null"], minLength: 2, format: "hostname" },
      unit: { $ref: "#/$defs/unit", description: "Unit" },
      kind: { const: "forecast" },
      count: { const: 3 },
      when: { type: "string", format: "date-time" },
      tags: { type: "array", items: { type: "string" }, maxItems: 5, uniqueItems: true },
      mode: { oneOf: [{ type: "string" }, { type: "null" }] },
      mixed: { anyOf: [{ type: "string" }, { type: "number" }] },
      both: {
        allOf: [
          { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
          { properties: { b: { type: "integer" } } },
        ],
      },
      tree: { $ref: "#/$defs/node" },
      meta: { type: "object", additionalProperties: { type: "string" } },
      levels: { type: "integer", enum: [1, 2, 3] },
    },
    required: ["city", "ghost"],
  };
  const g = toGeminiParameters(rich)!;
  const props = g.properties as Record<string, Record<string, unknown>>;

  it("drops keywords outside the subset everywhere", () => {
    const keys = keysDeep(g);
    for (const k of FORBIDDEN_FOR_GEMINI) expect(keys.has(k)).toBe(false);
    expect(keys.has("uniqueItems")).toBe(false);
  });
  it("turns type arrays and null branches into one type per node plus a null branch", () => {
    expect(props.city).toEqual({
      description: "at least 2 characters",
      anyOf: [{ type: "string" }, { type: "null" }],
    });
    expect(props.mode).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] });
    for (const t of typesDeep(g)) expect(typeof t).toBe("string");
  });
  it("inlines $ref and describes recursive references", () => {
    expect(props.unit).toEqual({ type: "string", enum: ["c", "f"], description: "Unit" });
    expect(props.tree).toEqual({ type: "object", properties: { next: {} } });
  });
  it("rewrites const as an enum of one", () => {
    expect(props.kind).toEqual({ type: "string", enum: ["forecast"] });
    expect(props.count).toEqual({ type: "number", enum: [3] });
  });
  it("keeps supported formats only, merges allOf, keeps anyOf, keeps number enums", () => {
    expect(props.when).toEqual({ type: "string", format: "date-time" });
    expect(props.both).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "integer" } },
      required: ["a"],
    });
    expect(props.mixed).toEqual({ anyOf: [{ type: "string" }, { type: "number" }] });
    expect(props.levels).toEqual({ type: "integer", enum: [1, 2, 3] });
    expect(props.tags).toEqual({
      type: "array",
      description: "distinct items",
      items: { type: "string" },
      maxItems: 5,
    });
    expect(props.meta).toEqual({ type: "object" });
  });
  it("keeps only required names that exist", () => {
    expect(g.required).toEqual(["city"]);
  });
  it("omits parameters for a schema without properties", () => {
    expect(toGeminiParameters({ type: "object", properties: {} })).toBeNull();
    expect(adaptSchema({ type: "object" }, "json-schema")).toEqual({
      type: "object",
      properties: {},
    });
  });
});
