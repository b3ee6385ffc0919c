/**
 * Provider-safe argument names and their way back (docs/schema-adaptation.md, "Property names"):
 * the emitted names, their uniqueness and stability, and the restoration of a model's arguments
 * at every nesting level, checked against the skill's own schema with the executor's validator.
 */
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import {
  restoreArgumentNames,
  SAFE_ARGUMENT_NAME,
  safeArgumentNames,
} from "../../workers/src/skills/injection/argument-names.js";
import { toJsonSchemaParameters } from "../../workers/src/skills/injection/schema-adapt.js";
import {
  prepareInputSchema,
  restoreCallArguments,
} from "../../workers/src/skills/injection/schema-prepare.js";
import { normalizeInputSchema } from "../../workers/src/skills/registry/schema-normalize.js";

type Obj = Record<string, any>;

describe("safeArgumentNames", () => {
  it("keeps safe names and sanitises the others readably", () => {
    const names = safeArgumentNames(["city", "page[size]", "first name", "prénom", "2fa", "x-y.z"]);
    expect(Object.fromEntries(names)).toEqual({
      city: "city",
      "page[size]": "page_size",
      "first name": "first_name",
      prénom: "prenom",
      "2fa": "_2fa",
      "x-y.z": "x_y_z",
    });
  });

  it("gives colliding, empty and long names a hashed form, all distinct and safe", () => {
    const input = [
      "a_b",
      "a b",
      "a-b",
      "a.b",
      "a/b",
      "a  b",
      "",
      "!!!",
      "é".repeat(3),
      "k".repeat(90),
    ];
    const names = safeArgumentNames(input);
    const out = input.map((n) => names.get(n)!);
    expect(new Set(out).size).toBe(input.length);
    for (const n of out) expect(n).toMatch(SAFE_ARGUMENT_NAME);
    expect(names.get("a_b")).toBe("a_b");
    expect(names.get("a b")).toMatch(/^a_b_[0-9a-z]{6}$/);
    expect(names.get("")).toMatch(/^__[0-9a-z]{6}$/);
    expect(names.get("k".repeat(90))).toBe(
      `${"k".repeat(57)}_${names.get("k".repeat(90))!.slice(-6)}`,
    );
    expect(names.get("k".repeat(90))).toHaveLength(64);
  });

  it("is a function of the names alone (same input, same output; order of safe names irrelevant)", () => {
    const a = safeArgumentNames(["page_size", "page[size]", "first name"]);
    const b = safeArgumentNames(["page[size]", "first name", "page_size"]);
    expect(Object.fromEntries(a)).toEqual(Object.fromEntries(b));
    expect(a.get("page[size]")).not.toBe("page_size");
  });
});

const SCHEMA = {
  type: "object",
  properties: {
    "page[size]": { type: "integer" },
    "first name": { type: "string" },
    filter: {
      type: "object",
      properties: { "filter[name]": { type: "string" }, plain: { type: "string" } },
      required: ["filter[name]"],
    },
    lines: {
      type: "array",
      items: {
        type: "object",
        properties: { "line item": { type: "string" } },
        required: ["line item"],
      },
    },
    labels: {
      type: "object",
      additionalProperties: { type: "object", properties: { "hex code": { type: "string" } } },
    },
    either: {
      anyOf: [
        { type: "object", properties: { "a key": { type: "string" } } },
        { type: "object", properties: { "b key": { type: "number" } } },
      ],
    },
  },
  required: ["page[size]", "first name"],
  additionalProperties: false,
};

describe("restoring a model's arguments", () => {
  const emitted = toJsonSchemaParameters(normalizeInputSchema(SCHEMA)) as Obj;
  const key = (props: Obj, prefix: string) => Object.keys(props).find((k) => k.startsWith(prefix))!;

  it("maps emitted names back at every level; the result passes the skill's own schema", () => {
    const p = emitted.properties;
    expect(Object.keys(p)).toEqual([
      "page_size",
      "first_name",
      "filter",
      "lines",
      "labels",
      "either",
    ]);
    const args = {
      page_size: 20,
      first_name: "Ann",
      filter: { filter_name: "x", plain: "y" },
      lines: [{ line_item: "one" }, { line_item: "two" }],
      labels: { red: { hex_code: "#f00" }, "free key": { hex_code: "#0f0" } },
      either: { b_key: 2 },
    };
    expect(key(p.filter.properties, "filter_")).toBe("filter_name");
    const restored = restoreCallArguments(normalizeInputSchema(SCHEMA), args);
    expect(restored).toEqual({
      "page[size]": 20,
      "first name": "Ann",
      filter: { "filter[name]": "x", plain: "y" },
      lines: [{ "line item": "one" }, { "line item": "two" }],
      labels: { red: { "hex code": "#f00" }, "free key": { "hex code": "#0f0" } },
      either: { "b key": 2 },
    });
    expect(new Validator(SCHEMA as never, "2020-12", false).validate(restored).valid).toBe(true);
    // The emitted arguments themselves do not pass: the mapping is what makes them valid.
    expect(new Validator(SCHEMA as never, "2020-12", false).validate(args).valid).toBe(false);
    expect(args.filter).toEqual({ filter_name: "x", plain: "y" });
  });

  it("keeps unknown names and original names; an emitted name wins over its original", () => {
    const schema = normalizeInputSchema(SCHEMA);
    expect(restoreCallArguments(schema, { "first name": "orig", other: 1 })).toEqual({
      "first name": "orig",
      other: 1,
    });
    expect(restoreCallArguments(schema, { "first name": "orig", first_name: "emitted" })).toEqual({
      "first name": "emitted",
    });
    for (const v of [null, 3, "s", [1, 2]]) expect(restoreCallArguments(schema, v)).toEqual(v);
  });

  it("an alternative's renamed property never renames a sibling that has that name", () => {
    const schema = normalizeInputSchema({
      type: "object",
      properties: {
        box: {
          type: "object",
          properties: { a_b: { type: "string" } },
          anyOf: [
            {
              type: "object",
              properties: { "a b": { type: "number" } },
              additionalProperties: false,
            },
            { type: "object", properties: { c: { type: "number" } }, additionalProperties: false },
          ],
        },
      },
    });
    expect(restoreCallArguments(schema, { box: { a_b: "own" } })).toEqual({ box: { a_b: "own" } });
  });

  it("a __proto__ argument stays plain data", () => {
    const args = JSON.parse('{"first_name":"Ann","__proto__":{"polluted":true}}');
    const out = restoreCallArguments(normalizeInputSchema(SCHEMA), args) as Obj;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.polluted).toBeUndefined();
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(({} as Obj).polluted).toBeUndefined();
  });

  it("has no map, and changes nothing, when every name is already safe", () => {
    const schema = normalizeInputSchema({
      city: "string",
      tags: { type: "array", items: { type: "string" } },
    });
    expect(prepareInputSchema(schema).names).toBeUndefined();
    const args = { city: "Paris", tags: ["a"] };
    expect(restoreCallArguments(schema, args)).toBe(args);
    expect(restoreArgumentNames(args, undefined)).toBe(args);
  });

  it("round-trips many awkward names through the emitted schema", () => {
    const originals = [
      "a",
      "a b",
      "a_b",
      "a-b",
      "Ünïcödé",
      "名前",
      "emoji 🙂",
      "$ref",
      "__proto__x",
      "x".repeat(64),
      "x".repeat(65),
      "x".repeat(200),
      "1",
      "_",
      " ",
    ];
    // Each property describes itself with its original name, so the test knows which is which.
    const schema = normalizeInputSchema({
      type: "object",
      properties: Object.fromEntries(originals.map((n) => [n, { type: "string", description: n }])),
    });
    const props = (toJsonSchemaParameters(schema) as Obj).properties as Obj;
    const emittedNames = Object.keys(props);
    expect(emittedNames).toHaveLength(originals.length);
    for (const n of emittedNames) expect(n).toMatch(SAFE_ARGUMENT_NAME);
    const args = Object.fromEntries(emittedNames.map((n) => [n, props[n].description]));
    expect(restoreCallArguments(schema, args)).toEqual(
      Object.fromEntries(originals.map((n) => [n, n])),
    );
  });
});
