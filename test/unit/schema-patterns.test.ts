/**
 * Regular expressions of skill input schemas run in linear time (docs/registry.md#patterns):
 * ordinary ECMAScript patterns keep their meaning, constructs the linear-time engine cannot run are
 * refused at install with a code that names the field, and a catastrophic pattern or format check
 * answers at once instead of freezing the process.
 */
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it, vi } from "vitest";
import { InvalidInputError } from "../../workers/src/errors.js";
import { validateSkillInput } from "../../workers/src/skills/execution/input-validation.js";
import {
  MAX_EXPANDED_SCHEMA_NODES,
  MAX_PATTERN_PROPERTY_NAMES,
  PATTERN_MATCH_BUDGET,
  SafeSchemaValidator,
} from "../../workers/src/skills/execution/safe-schema.js";
import { normalizeInputSchema } from "../../workers/src/skills/registry/schema-normalize.js";
import {
  checkSchemaPatterns,
  compileSafePattern,
  MAX_SCHEMA_PATTERNS,
  PatternRefusedError,
  schemaPatternSites,
} from "../../workers/src/skills/registry/schema-patterns.js";
import type { Skill } from "../../workers/src/skills/types.js";

let serial = 0;
function skillWith(input: Record<string, unknown>): Skill {
  serial += 1;
  return {
    id: `pattern-skill-${serial}-${Math.random()}`,
    name: "pattern-skill",
    version: "1.0.0",
    updatedAt: Date.now(),
    schema: { input },
  } as unknown as Skill;
}

/** The first failing field an error names. */
function fieldOf(err: InvalidInputError | undefined): string | undefined {
  return (err?.details as Array<{ field: string }> | undefined)?.[0]?.field;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe("compileSafePattern", () => {
  const ordinary: Array<[string, string[]]> = [
    ["^[a-z]+$", ["abc", "abC", "", "a1"]],
    ["\\d{3}-\\d{4}", ["555-1234", "x555-1234y", "55-1234"]],
    ["^(?<year>\\d{4})-(?<month>\\d{2})$", ["2024-05", "2024-5"]],
    ["\\u{1F600}|\\u00e9", ["😀", "é", "e"]],
    ["^\\/api\\/v\\d+$", ["/api/v2", "/api/v", "api/v2"]],
    ["(?<=\\$)\\d+", ["$12", "12"]],
    ["^\\p{Lu}", ["Éa", "éa"]],
    ["^[^]*$", ["any\nthing", ""]],
    ["colou?r", ["color", "colour", "colr"]],
    ["^(a+)+$", ["aaa", "aab"]],
  ];

  it("matches ordinary ECMAScript patterns as RegExp does", () => {
    for (const [source, inputs] of ordinary) {
      const safe = compileSafePattern(source);
      const native = new RegExp(source, "u");
      for (const input of inputs) {
        expect([source, input, safe.test(input)]).toEqual([source, input, native.test(input)]);
      }
    }
  });

  it("refuses what a linear-time engine cannot run, and what is not ECMAScript", () => {
    const refused = [
      "(?=a)b", // lookahead
      "a(?!b)", // negative lookahead
      "(a)\\1", // backreference
      "(?<n>a)\\k<n>", // named backreference
      "(unclosed", // not ECMAScript
      "a{2,1001}", // RE2 repeat limit
      "((a{1,1000}){1,1000})", // program too large / nested repeats
      "x".repeat(1_001), // too long
    ];
    for (const source of refused) {
      expect([source, thrown(() => compileSafePattern(source))]).toEqual([
        source,
        expect.any(PatternRefusedError),
      ]);
    }
    // An escaped backslash followed by a digit is a literal, not a backreference.
    expect(compileSafePattern("\\\\1").test("\\1")).toBe(true);
  });

  it("finds every pattern and patternProperties key of a schema, with its path", () => {
    const sites = schemaPatternSites({
      type: "object",
      properties: {
        code: { type: "string", pattern: "^[A-Z]{3}$" },
        pattern: { type: "string" },
        tags: { type: "array", items: { type: "string", pattern: "^#" } },
      },
      patternProperties: { "^x-": { type: "string" } },
      $defs: { id: { pattern: "^id-" } },
      enum: [{ pattern: "not a schema" }],
    });
    expect(sites.map((s) => [s.path, s.source]).sort()).toEqual(
      [
        ["$defs.id.pattern", "^id-"],
        ["patternProperties", "^x-"],
        ["properties.code.pattern", "^[A-Z]{3}$"],
        ["properties.tags.items.pattern", "^#"],
      ].sort(),
    );
  });
});

describe("install-time refusal", () => {
  /** The install check of a schema given in either form; resolves to what it throws. */
  const check = (input: unknown) =>
    checkSchemaPatterns(normalizeInputSchema(input), "schema.input").then(
      () => undefined,
      (err: unknown) => err as InvalidInputError,
    );

  it("refuses a lookahead pattern with invalid_schema_pattern naming the field", async () => {
    const err = await check({
      type: "object",
      properties: { code: { type: "string", pattern: "^(?=.*\\d).+$" } },
    });
    expect(err).toBeInstanceOf(InvalidInputError);
    expect(err?.code).toBe("invalid_schema_pattern");
    expect(err?.status).toBe(400);
    expect(err?.details).toEqual([
      { field: "schema.input.properties.code.pattern", message: expect.any(String) },
    ]);
    expect(err?.message).toContain("schema.input.properties.code.pattern");
  });

  it("refuses a backreference in the shorthand form and in patternProperties", async () => {
    const shorthand = await check({ word: { type: "string", pattern: "(\\w)\\1" } });
    expect([shorthand?.code, fieldOf(shorthand)]).toEqual([
      "invalid_schema_pattern",
      "schema.input.properties.word.pattern",
    ]);
    const keys = await check({ type: "object", patternProperties: { "(?!x)": {} } });
    expect([keys?.code, fieldOf(keys)]).toEqual([
      "invalid_schema_pattern",
      "schema.input.patternProperties",
    ]);
  });

  it("refuses more than the most patterns a schema may hold", async () => {
    const properties = Object.fromEntries(
      Array.from({ length: MAX_SCHEMA_PATTERNS + 1 }, (_, i) => [
        `p${i}`,
        { type: "string", pattern: `^p${i}$` },
      ]),
    );
    const err = await check({ type: "object", properties });
    expect([err?.code, fieldOf(err)]).toEqual(["invalid_schema_pattern", "schema.input"]);
  });

  it("accepts the catastrophic-for-backtracking pattern ^(a+)+$ (it runs in linear time)", async () => {
    expect(
      await check({ type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } }),
    ).toBeUndefined();
  });
});

describe("validation with linear-time patterns", () => {
  it("never runs a schema's pattern or patternProperties key with RegExp", () => {
    const sources: string[] = [];
    const test = vi.spyOn(RegExp.prototype, "test").mockImplementation(function (
      this: RegExp,
      text: string,
    ) {
      sources.push(this.source);
      return RegExp.prototype.exec.call(this, text) !== null;
    });
    try {
      const skill = skillWith({
        type: "object",
        properties: { s: { type: "string", pattern: "^(a+)+$" } },
        patternProperties: { "^(b+)+$": { type: "integer" } },
      });
      const err = thrown(() => validateSkillInput(skill, { s: "aaaa!", bbb: "x" }));
      expect((err as InvalidInputError).details).toEqual([
        { field: "input.s", message: "String does not match pattern." },
        { field: "input.bbb", message: expect.any(String) },
      ]);
    } finally {
      test.mockRestore();
    }
    expect(sources.filter((s) => s.includes("(a+)+") || s.includes("(b+)+"))).toEqual([]);
  });

  it("gives ^(a+)+$'s verdicts for 28 a's with and without a ! (exponential when backtracking)", () => {
    const skill = skillWith({
      type: "object",
      properties: { s: { type: "string", pattern: "^(a+)+$" } },
    });
    const err = thrown(() => validateSkillInput(skill, { s: `${"a".repeat(28)}!` }));
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as InvalidInputError).details).toEqual([
      { field: "input.s", message: "String does not match pattern." },
    ]);
    expect(validateSkillInput(skill, { s: "a".repeat(28) })).toBeUndefined();
  });

  it("gives a catastrophic patternProperties key's verdicts (exponential when backtracking)", () => {
    const skill = skillWith({
      type: "object",
      patternProperties: { "^(a+)+$": { type: "integer" } },
    });
    expect(validateSkillInput(skill, { [`${"a".repeat(28)}!`]: "not checked" })).toBeUndefined();
    const err = thrown(() => validateSkillInput(skill, { aaaa: "x" })) as InvalidInputError;
    expect(err.code).toBe("invalid_skill_input");
  });

  it("checks format url without backtracking", () => {
    const skill = skillWith({
      type: "object",
      properties: { u: { type: "string", format: "url" } },
    });
    expect(thrown(() => validateSkillInput(skill, { u: `http://${"a".repeat(28)}!` }))).toBe(
      undefined,
    );
    const err = thrown(() => validateSkillInput(skill, { u: "not a url" })) as InvalidInputError;
    expect(err.code).toBe("invalid_skill_input");
    expect(validateSkillInput(skill, { u: "https://example.com/a?b=c" })).toBeUndefined();
  });

  it("keeps JSON Schema's meaning of pattern and patternProperties (same verdicts as the reference)", () => {
    const schemas = [
      {
        type: "object",
        properties: { "x-a": { minimum: 5 }, name: { type: "string", pattern: "^[a-z]+$" } },
        patternProperties: { "^x-": { type: "integer" }, a$: { maximum: 10 } },
        additionalProperties: false,
      },
      {
        type: "object",
        properties: {
          list: {
            type: "array",
            items: {
              type: "object",
              patternProperties: { "^n\\d+$": { type: "string", pattern: "^\\d+$" } },
              additionalProperties: { type: "boolean" },
            },
          },
          code: { type: "string", format: "email", pattern: "@example\\.com$" },
        },
        propertyNames: { pattern: "^[a-z]+$" },
      },
    ];
    const inputs = [
      { "x-a": 7 },
      { "x-a": 3 },
      { "x-a": 12 },
      { "x-a": "7" },
      { b: 1 },
      { name: "abc" },
      { name: "ABC" },
      { list: [{ n1: "12", flag: true }] },
      { list: [{ n1: "1x" }] },
      { list: [{ n1: "12", other: "s" }] },
      { code: "me@example.com" },
      { code: "me@example.org" },
      { code: "not an email@example.com" },
      { Upper: 1 },
      { ["__proto__"]: 1 },
    ];
    for (const schema of schemas) {
      const safe = new SafeSchemaValidator(schema);
      const reference = new Validator(schema as never, "2020-12", false);
      for (const input of inputs) {
        const parsed = JSON.parse(JSON.stringify(input));
        expect([input, safe.validate(parsed).valid]).toEqual([
          input,
          reference.validate(parsed).valid,
        ]);
      }
    }
  });

  it("bounds the property names and the expanded schema checked against patternProperties", () => {
    const big = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`f${i}`, { type: "string" }]),
    );
    const skill = skillWith({
      type: "object",
      patternProperties: { "^n": { type: "object", properties: big } },
    });
    const names = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`n${i}`, {}]));
    expect(validateSkillInput(skill, names(10))).toBeUndefined();
    const expansion = thrown(() => validateSkillInput(skill, names(90))) as InvalidInputError;
    expect([expansion.code, expansion.message]).toEqual([
      "invalid_skill_input",
      expect.stringContaining(`at most ${MAX_EXPANDED_SCHEMA_NODES} schema nodes`),
    ]);
    const many = thrown(() =>
      validateSkillInput(skill, names(MAX_PATTERN_PROPERTY_NAMES + 1)),
    ) as InvalidInputError;
    expect([many.code, many.message]).toEqual([
      "invalid_skill_input",
      expect.stringContaining(`more than ${MAX_PATTERN_PROPERTY_NAMES} distinct property names`),
    ]);
  });

  it("bounds the matching work of one call (characters × compiled size)", () => {
    const skill = skillWith({
      type: "object",
      properties: { s: { type: "string", pattern: "[a-z]{100}b" } },
    });
    const size = compileSafePattern("[a-z]{100}b").size;
    const length = Math.ceil(PATTERN_MATCH_BUDGET / size) + 1;
    expect(validateSkillInput(skill, { s: `${"a".repeat(200)}b` })).toBeUndefined();
    const err = thrown(() =>
      validateSkillInput(skill, { s: "a".repeat(length) }),
    ) as InvalidInputError;
    expect([err.code, err.message]).toEqual([
      "invalid_skill_input",
      expect.stringContaining("too long to check against the schema's patterns"),
    ]);
  });
});
