/**
 * Builtin inputs are declared once (docs/builtins.md): the schema a builtin advertises is its
 * handler's zod schema converted by zod, so what the model is told and what the handler accepts
 * cannot drift apart.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  fileDefinitions,
  fileReadInput,
  fileWriteInput,
} from "../../workers/src/skills/builtins/files.js";
import { inputSchemaOf } from "../../workers/src/skills/builtins/input-schema.js";
import {
  MAX_SEARCH_LIMIT,
  webSearchDefinitions,
  webSearchInput,
} from "../../workers/src/skills/builtins/web-search.js";

const declared = (name: string) =>
  [...fileDefinitions, ...webSearchDefinitions].find((d) => d.name === name)!.inputSchema;

describe("builtin input schemas", () => {
  it("advertise exactly the zod schema their handler validates with", () => {
    expect(declared("web_search")).toEqual(inputSchemaOf(webSearchInput));
    expect(declared("file_read")).toEqual(inputSchemaOf(fileReadInput));
    expect(declared("file_write")).toEqual(inputSchemaOf(fileWriteInput));
  });

  it("web_search advertises the query length and limit bounds the handler enforces", () => {
    const schema = declared("web_search") as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(schema.properties.query).toMatchObject({
      type: "string",
      minLength: 1,
      maxLength: 1000,
    });
    expect(schema.properties.limit).toMatchObject({ type: "integer", maximum: MAX_SEARCH_LIMIT });
    expect(schema.required).toEqual(["query"]);
    expect(schema.additionalProperties).toBe(false);
    // Every query length the handler accepts is one the schema allows, and the other way round.
    fc.assert(
      fc.property(
        fc.string({ maxLength: 1100 }).filter((q) => q.trim() === q),
        (query) => {
          const accepted = webSearchInput.safeParse({ query }).success;
          expect(accepted).toBe(query.length >= 1 && query.length <= 1000);
        },
      ),
    );
  });

  it("file_write advertises its defaults and required fields", () => {
    expect(declared("file_write")).toMatchObject({
      required: ["path", "content"],
      properties: { append: { type: "boolean", default: false }, overwrite: { default: true } },
      additionalProperties: false,
    });
  });
});
