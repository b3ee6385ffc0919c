/**
 * Schema adaptation per provider format (docs/schema-adaptation.md): every input class below is
 * injected through each format's adapter, read back from the provider-shaped request, and checked
 * against that provider's documented subset (schema-subsets.ts). Class-specific assertions follow.
 */
import { describe, expect, it } from "vitest";
import { getFormatAdapter, WIRE_FORMATS } from "../../workers/src/formats/index.js";
import type { JsonObject, WireFormat } from "../../workers/src/formats/types.js";
import { adaptSchema } from "../../workers/src/skills/injection/schema-adapt.js";
import { normalizeInputSchema } from "../../workers/src/skills/registry/schema-normalize.js";
import {
  anthropicRequest,
  chatRequest,
  geminiRequest,
  json,
  responsesRequest,
} from "./providers-fixtures.js";
import { anthropicViolations, geminiViolations, openaiViolations } from "./schema-subsets.js";

type Obj = Record<string, any>;

const REQUESTS: Record<WireFormat, () => JsonObject> = {
  "openai-chat": () => json(chatRequest()),
  "openai-responses": () => json(responsesRequest()),
  anthropic: () => json(anthropicRequest()),
  gemini: () => json(geminiRequest()),
};
const CHECKERS: Record<WireFormat, (s: unknown) => string[]> = {
  "openai-chat": openaiViolations,
  "openai-responses": openaiViolations,
  anthropic: anthropicViolations,
  gemini: geminiViolations,
};

/** The parameters schema of the injected tool, as it sits in the provider request. */
function emitted(format: WireFormat, input: unknown): Obj | undefined {
  const adapter = getFormatAdapter(format);
  const parameters = adaptSchema(normalizeInputSchema(input), adapter.schemaDialect);
  const req = adapter.addTools(REQUESTS[format](), [
    { name: "probe_v1_0_0", description: "Probe", parameters },
  ]) as Obj;
  const tools = (format === "gemini" ? req.config.tools : req.tools) as Obj[];
  switch (format) {
    case "openai-chat":
      return tools.at(-1)!.function.parameters;
    case "openai-responses":
      return tools.at(-1)!.parameters;
    case "anthropic":
      return tools.at(-1)!.input_schema;
    case "gemini": {
      const decl = tools[0]!.functionDeclarations.at(-1);
      expect(decl.name).toBe("probe_v1_0_0");
      expect(decl).not.toHaveProperty("parameters");
      return decl.parametersJsonSchema;
    }
  }
}

const LONG_KEY = `a_${"very_long_parameter_name_".repeat(4)}`.slice(0, 90);

/** Inputs by class; each must come out within every provider's subset. */
const CLASSES: Record<string, unknown> = {
  "array without items": {
    type: "object",
    properties: { ids: { type: "array", description: "ids" } },
  },
  "array inside a type list, nested arrays, tuples": {
    type: "object",
    properties: {
      v: { type: ["string", "array"] },
      matrix: { type: "array", items: { type: "array" } },
      pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] },
      legacy: { type: "array", items: [{ type: "string" }, { type: "string" }] },
      none: { type: "array", items: false },
    },
  },
  "property names a provider refuses": {
    type: "object",
    properties: {
      "page[size]": { type: "integer" },
      "first name": { type: "string" },
      [LONG_KEY]: { type: "string" },
      prénom: { type: "string" },
      "2fa": { type: "boolean" },
      "user-id": { type: "string" },
      "a.b": { type: "string" },
      page_size: { type: "string" },
      filter: { type: "object", properties: { "filter[name]": { type: "string" } } },
      lines: {
        type: "array",
        items: { type: "object", properties: { "line item": { type: "string" } } },
      },
      "": { type: "string" },
    },
    required: ["page[size]", "first name"],
  },
  "top-level anyOf of required sets": {
    type: "object",
    properties: { a: {}, b: {} },
    anyOf: [{ required: ["a"] }, { required: ["b"] }],
  },
  "top-level oneOf of full objects, allOf, not, enum, conditionals": {
    type: "object",
    properties: { kind: { type: "string" } },
    required: ["kind"],
    oneOf: [
      {
        type: "object",
        properties: { kind: { const: "a" }, x: { type: "string" } },
        required: ["kind", "x"],
      },
      {
        type: "object",
        properties: { kind: { const: "b" }, "y y": { type: "number" } },
        required: ["kind", "y y"],
      },
    ],
    allOf: [{ properties: { extra: { type: "boolean" } } }],
    not: { required: ["forbidden"] },
    if: { properties: { kind: { const: "a" } } },
    // biome-ignore lint/suspicious/noThenProperty: a JSON Schema conditional, not a thenable.
    then: { required: ["x"] },
  },
  "top-level $ref with $defs": {
    $ref: "#/$defs/args",
    $defs: { args: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } },
  },
  "object keywords on other types, type lists with object members": {
    type: "object",
    properties: {
      n: {
        type: "integer",
        properties: { x: { type: "string" } },
        required: ["x"],
        items: { type: "string" },
      },
      m: {
        type: ["string", "object", "null"],
        properties: { "y z": { type: "string" } },
        required: ["y z"],
        minLength: 2,
      },
      s: { type: "string", minimum: 3, maxItems: 2 },
    },
  },
  "nullables, const, enums, formats, dropped constraints": {
    type: "object",
    properties: {
      city: { type: ["string", "null"], minLength: 2, format: "hostname" },
      old: { type: "string", nullable: true },
      kind: { const: "forecast" },
      count: { const: 3 },
      flag: { const: true },
      unit: { enum: ["c", "f", null] },
      mixed: { enum: [1, "two", false] },
      when: { type: "string", format: "date-time" },
      big: { type: "integer", format: "int64", exclusiveMinimum: 0, multipleOf: 5 },
      code: { type: "string", pattern: "^[A-Z]{3}$", default: "EUR" },
      tags: { type: "array", items: { type: "string" }, uniqueItems: true, maxItems: 5 },
      meta: { type: "object", additionalProperties: { type: "string" } },
      alt: { oneOf: [{ type: "string" }, { type: "null" }] },
      any: { anyOf: [{ type: "string" }, { type: "number" }] },
    },
  },
  "references, vendor keywords, deep nesting": {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "urn:probe",
    type: "object",
    additionalProperties: false,
    definitions: { node: { type: "object", properties: { next: { $ref: "#/definitions/node" } } } },
    properties: {
      tree: { $ref: "#/definitions/node" },
      missing: { $ref: "#/$defs/nowhere", description: "Unknown" },
      vendor: { type: "string", "x-order": 1, $comment: "c", deprecated: true },
      deep: JSON.parse(
        `${'{"type":"object","properties":{"d":'.repeat(40)}{"type":"string"}${"}}".repeat(40)}`,
      ),
    },
    required: ["ghost"],
  },
  shorthand: { city: "string", days: { type: "integer", required: true } },
};

describe("every class within every provider's documented subset", () => {
  for (const format of WIRE_FORMATS) {
    for (const [name, input] of Object.entries(CLASSES)) {
      it(`${format}: ${name}`, () => {
        const schema = emitted(format, input);
        expect(CHECKERS[format](schema)).toEqual([]);
      });
    }
  }
});

const JSON_FORMATS = ["openai-chat", "openai-responses", "anthropic"] as const;

describe("class by class", () => {
  it("an array without items gets items that accept any value (all formats)", () => {
    for (const f of WIRE_FORMATS) {
      expect(emitted(f, CLASSES["array without items"])!.properties.ids).toEqual({
        type: "array",
        description: "ids",
        items: {},
      });
    }
    const p = emitted(
      "openai-chat",
      CLASSES["array inside a type list, nested arrays, tuples"],
    )!.properties;
    expect(p.v).toEqual({ type: ["string", "array"], items: {} });
    expect(p.matrix).toEqual({ type: "array", items: { type: "array", items: {} } });
    expect(p.pair.items).toEqual({ anyOf: [{ type: "string" }, { type: "number" }] });
    expect(p.legacy.items).toEqual({ type: "string" });
    expect(p.none).toEqual({ type: "array", items: {}, maxItems: 0 });
  });

  it("property names become safe, distinct and stable (all formats alike)", () => {
    const keys = (f: WireFormat) =>
      Object.keys(emitted(f, CLASSES["property names a provider refuses"])!.properties);
    const first = keys("anthropic");
    for (const f of WIRE_FORMATS) expect(keys(f)).toEqual(first);
    expect(new Set(first).size).toBe(first.length);
    expect(first).toContain("first_name");
    expect(first).toContain("page_size");
    expect(first).toContain("prenom");
    expect(first).toContain("_2fa");
    expect(first).toContain("user_id");
    expect(first).toContain("a_b");
    const pageSize = first.find((k) => /^page_size_[0-9a-z]{6}$/.test(k));
    expect(pageSize).toBeDefined();
    const long = first.find((k) => k.startsWith("a_very_long"))!;
    expect(long).toHaveLength(64);
    const s = emitted("anthropic", CLASSES["property names a provider refuses"])!;
    expect(s.required).toEqual([pageSize, "first_name"]);
    expect(Object.keys(s.properties.filter.properties)).toEqual(["filter_name"]);
    expect(Object.keys(s.properties.lines.items.properties)).toEqual(["line_item"]);
  });

  it("top-level combinators become a plain object (OpenAI, Anthropic, Gemini)", () => {
    for (const f of WIRE_FORMATS) {
      const s = emitted(f, CLASSES["top-level anyOf of required sets"])!;
      expect(s).toEqual({
        type: "object",
        description: "must include at least one of [a] or [b]",
        properties: { a: {}, b: {} },
      });
    }
    const s = emitted(
      "openai-responses",
      CLASSES["top-level oneOf of full objects, allOf, not, enum, conditionals"],
    )!;
    expect(Object.keys(s.properties)).toEqual(["kind", "extra", "x", "y_y"]);
    expect(s.required).toEqual(["kind"]);
    expect(s.description).toBe("must include exactly one of [kind, x] or [kind, y_y]");
    for (const k of ["oneOf", "anyOf", "allOf", "not", "if", "then"])
      expect(s).not.toHaveProperty(k);
    expect(emitted("anthropic", CLASSES["top-level $ref with $defs"])).toEqual({
      type: "object",
      properties: { q: { type: "string" } },
      required: ["q"],
    });
  });

  it("Gemini: no object keywords on other types, type lists split into typed anyOf branches", () => {
    const p = emitted(
      "gemini",
      CLASSES["object keywords on other types, type lists with object members"],
    )!.properties;
    expect(p.n).toEqual({ type: "integer" });
    expect(p.s).toEqual({ type: "string" });
    expect(p.m).toEqual({
      description: "at least 2 characters",
      anyOf: [
        { type: "string" },
        { type: "object", properties: { y_z: { type: "string" } }, required: ["y_z"] },
        { type: "null" },
      ],
    });
    const j = emitted(
      "anthropic",
      CLASSES["object keywords on other types, type lists with object members"],
    )!.properties;
    expect(j.n).toEqual({ type: "integer" });
    expect(j.m.minLength).toBe(2);
  });

  it("Gemini: nullables, const, enums, formats and dropped constraints", () => {
    const p = emitted(
      "gemini",
      CLASSES["nullables, const, enums, formats, dropped constraints"],
    )!.properties;
    expect(p.city).toEqual({
      description: "at least 2 characters",
      anyOf: [{ type: "string" }, { type: "null" }],
    });
    expect(p.old).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] });
    expect(p.kind).toEqual({ type: "string", enum: ["forecast"] });
    expect(p.count).toEqual({ type: "number", enum: [3] });
    expect(p.flag).toEqual({ type: "boolean", description: "must be true" });
    expect(p.unit).toEqual({ anyOf: [{ type: "string", enum: ["c", "f"] }, { type: "null" }] });
    expect(p.mixed).toEqual({ description: 'one of 1, "two", false' });
    expect(p.when).toEqual({ type: "string", format: "date-time" });
    expect(p.big).toEqual({
      type: "integer",
      format: "int64",
      description: "greater than 0; a multiple of 5",
    });
    expect(p.code).toEqual({ type: "string", description: 'pattern ^[A-Z]{3}$; default "EUR"' });
    expect(p.tags).toEqual({
      type: "array",
      description: "distinct items",
      items: { type: "string" },
      maxItems: 5,
    });
    expect(p.meta).toEqual({ type: "object" });
    expect(p.alt).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] });
    expect(p.any).toEqual({ anyOf: [{ type: "string" }, { type: "number" }] });
    const j = emitted(
      "openai-chat",
      CLASSES["nullables, const, enums, formats, dropped constraints"],
    )!.properties;
    expect(j.old).toEqual({ type: ["string", "null"] });
    expect(j.meta).toEqual({
      type: "object",
      additionalProperties: { type: "string" },
    });
    expect(j.alt).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] });
  });

  it("references are inlined, recursion and depth are cut, vendor keywords dropped", () => {
    for (const f of JSON_FORMATS) {
      const s = emitted(f, CLASSES["references, vendor keywords, deep nesting"])!;
      expect(s.additionalProperties).toBe(false);
      expect(s.properties.tree).toEqual({ type: "object", properties: { next: {} } });
      expect(s.properties.missing).toEqual({ description: "Unknown" });
      expect(s.properties.vendor).toEqual({ type: "string" });
      expect(s.required).toBeUndefined();
      let depth = 0;
      for (let n = s.properties.deep; n.properties?.d; n = n.properties.d) depth++;
      expect(depth).toBeLessThan(40);
    }
  });

  it("boolean schemas: true is any value, false drops the property or branch", () => {
    // Install refuses booleans as property schemas; they still occur in combinators and $defs.
    const schema: Obj = {
      type: "object",
      properties: {
        a: { anyOf: [false, { type: "string" }] },
        b: { type: "object", properties: { any: true, never: false } },
        c: { oneOf: [true, { type: "string" }] },
        d: { $ref: "#/$defs/no" },
      },
      $defs: { no: false },
    };
    for (const dialect of ["json-schema", "gemini"] as const) {
      const s = adaptSchema(schema, dialect) as Obj;
      expect(s.properties.a).toEqual({ type: "string" });
      expect(s.properties.b).toEqual({ type: "object", properties: { any: {} } });
      expect(s.properties.c).toEqual({});
      expect(s.properties.d).toEqual({});
    }
  });

  it("a $defs graph that doubles at every level stays bounded", () => {
    const $defs: Obj = { d0: { type: "string" } };
    for (let i = 1; i <= 30; i++)
      $defs[`d${i}`] = {
        type: "object",
        properties: { l: { $ref: `#/$defs/d${i - 1}` }, r: { $ref: `#/$defs/d${i - 1}` } },
      };
    const schema = { type: "object", properties: { top: { $ref: "#/$defs/d30" } }, $defs };
    for (const dialect of ["json-schema", "gemini"] as const) {
      const out = adaptSchema(schema, dialect) as Obj;
      const nodes = JSON.stringify(out).split('"type"').length - 1;
      expect(nodes).toBeGreaterThan(1_000);
      expect(nodes).toBeLessThanOrEqual(5_000);
      expect(out.properties.top.type).toBe("object");
    }
  });

  it("Gemini omits parameters for a skill without any; OpenAI and Anthropic get an empty object", () => {
    expect(emitted("gemini", {})).toBeUndefined();
    expect(emitted("gemini", { type: "object", properties: {} })).toBeUndefined();
    for (const f of JSON_FORMATS)
      expect(emitted(f, {})).toEqual({ type: "object", properties: {} });
  });
});
