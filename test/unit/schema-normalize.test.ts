import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../workers/src/errors.js";
import { normalizeInputSchema } from "../../workers/src/skills/registry/schema-normalize.js";

describe("normalizeInputSchema", () => {
  it("turns the shorthand into JSON Schema", () => {
    expect(
      normalizeInputSchema({ city: "string", days: { type: "integer", required: true } }),
    ).toEqual({
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" } },
      required: ["days"],
    });
  });

  it("collects required: true inside a real JSON Schema, nested objects included", () => {
    const out = normalizeInputSchema({
      type: "object",
      properties: {
        q: { type: "string", required: true },
        opts: { type: "object", properties: { n: { type: "number", required: true } } },
      },
      required: ["opts"],
    });
    expect(out.required).toEqual(["opts", "q"]);
    expect((out.properties as any).q).toEqual({ type: "string" });
    expect((out.properties as any).opts).toEqual({
      type: "object",
      properties: { n: { type: "number" } },
      required: ["n"],
    });
  });

  it("keeps a proper JSON Schema as it is", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string", enum: ["x"] } },
      required: ["a"],
      additionalProperties: false,
    };
    expect(normalizeInputSchema(schema)).toEqual(schema);
  });

  it("gives an empty object schema for a missing input schema", () => {
    expect(normalizeInputSchema(undefined)).toEqual({ type: "object", properties: {} });
  });

  it("rejects unknown type names and non-object roots with the field named", () => {
    expect(() => normalizeInputSchema({ a: "strng" })).toThrow(InvalidInputError);
    try {
      normalizeInputSchema({ type: "string" });
    } catch (e) {
      expect((e as InvalidInputError).details).toEqual([
        { field: "schema.input.type", message: 'must be "object"' },
      ]);
    }
    expect(() => normalizeInputSchema([1])).toThrow(/must be an object/);
  });
});
