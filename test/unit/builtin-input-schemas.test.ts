/**
 * Builtin inputs are declared once (docs/builtins.md): the schema a builtin advertises is its
 * handler's zod schema converted by zod, so what the model is told and what the handler accepts
 * cannot drift apart.
 */
import { BROWSE_MAX_ACTIONS, BROWSE_MAX_URL_LENGTH } from "@skillgate/sandbox-protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { browserDefinitions, browserInput } from "../../workers/src/skills/builtins/browser.js";
import {
  fileDefinitions,
  fileReadInput,
  fileWriteInput,
} from "../../workers/src/skills/builtins/files.js";
import {
  HTTP_METHODS,
  httpRequestDefinitions,
  httpRequestInput,
  MAX_HTTP_TIMEOUT_MS,
} from "../../workers/src/skills/builtins/http-request.js";
import { BUILTIN_DEFINITIONS } from "../../workers/src/skills/builtins/index.js";
import { inputSchemaOf } from "../../workers/src/skills/builtins/input-schema.js";
import {
  evalCodeInput,
  executeCommandInput,
  MAX_COMMAND_ARGS,
  MAX_COMMAND_CHARS,
  sandboxDefinitions,
} from "../../workers/src/skills/builtins/sandbox.js";
import {
  MAX_SEARCH_LIMIT,
  webSearchDefinitions,
  webSearchInput,
} from "../../workers/src/skills/builtins/web-search.js";
import { SafeSchemaValidator } from "../../workers/src/skills/execution/safe-schema.js";

const declared = (name: string) =>
  [
    ...fileDefinitions,
    ...webSearchDefinitions,
    ...httpRequestDefinitions,
    ...sandboxDefinitions,
    ...browserDefinitions,
  ].find((d) => d.name === name)!.inputSchema;

/** True when the advertised schema of `name` admits `input` (the preflight's own validator). */
const validators = new Map<string, SafeSchemaValidator>();
const admits = (name: string, input: unknown) => {
  let v = validators.get(name);
  if (!v) {
    v = new SafeSchemaValidator(declared(name));
    validators.set(name, v);
  }
  return v.validate(input).valid;
};

describe("builtin input schemas", () => {
  it("every builtin advertises exactly the zod schema its handler validates with", () => {
    const handlerSchemas: Record<string, z.ZodType> = {
      file_read: fileReadInput,
      file_write: fileWriteInput,
      web_search: webSearchInput,
      http_request: httpRequestInput,
      eval_code: evalCodeInput,
      execute_command: executeCommandInput,
      browser: browserInput,
    };
    expect(BUILTIN_DEFINITIONS.map((d) => d.name).sort()).toEqual(
      Object.keys(handlerSchemas).sort(),
    );
    for (const d of BUILTIN_DEFINITIONS) {
      expect(d.inputSchema, d.name).toEqual(inputSchemaOf(handlerSchemas[d.name]!));
    }
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

  it("http_request advertises the fields clients saw before, with the upper-case method enum", () => {
    expect(declared("http_request")).toEqual({
      type: "object",
      properties: {
        url: { type: "string", minLength: 1, description: "Absolute http or https URL." },
        method: { type: "string", enum: [...HTTP_METHODS], description: "Default GET." },
        headers: {
          type: "object",
          additionalProperties: { type: "string" },
          default: {},
          description: "Request headers (credentials and hop-by-hop headers are removed).",
        },
        body: { type: "string", description: "Request body (not with GET or HEAD)." },
        timeoutMs: {
          type: "integer",
          minimum: 1,
          maximum: MAX_HTTP_TIMEOUT_MS,
          description: "Time limit in ms (default 15000).",
        },
        maxBytes: { type: "integer", minimum: 1, description: "Cap on the returned body bytes." },
      },
      required: ["url"],
      additionalProperties: false,
    });
    // The preflight checks the advertised enum; the handler's schema also takes another case.
    expect(admits("http_request", { url: "https://example.com", method: "POST" })).toBe(true);
    expect(admits("http_request", { url: "https://example.com", method: "post" })).toBe(false);
    expect(httpRequestInput.parse({ url: "https://example.com", method: "post" }).method).toBe(
      "POST",
    );
    expect(admits("http_request", { url: "" })).toBe(false);
  });

  it("eval_code and execute_command advertise their bounds and no safe-integer artefact", () => {
    const evalCode = declared("eval_code") as { properties: Record<string, object> };
    expect(evalCode.properties.timeoutMs).toEqual({
      type: "integer",
      minimum: 100,
      description: "Time limit in milliseconds (default from the server, at most 60000).",
    });
    expect(evalCode.properties.memoryMb).toMatchObject({ type: "integer", minimum: 16 });
    expect(evalCode.properties.memoryMb).not.toHaveProperty("maximum");
    expect(declared("eval_code")).toMatchObject({
      required: ["language", "code"],
      additionalProperties: false,
    });
    expect(declared("execute_command")).toMatchObject({
      properties: {
        command: { type: "string", minLength: 1, maxLength: MAX_COMMAND_CHARS },
        args: {
          type: "array",
          items: { type: ["string", "number", "boolean"] },
          maxItems: MAX_COMMAND_ARGS,
        },
      },
      required: ["command"],
      additionalProperties: false,
    });
    expect(admits("execute_command", { command: "ls", args: ["-l", 1, true] })).toBe(true);
    expect(admits("execute_command", { command: "ls", args: [null] })).toBe(false);
  });

  it("browser advertises the host's bounds, and the advertised schema and the handler agree", () => {
    expect(declared("browser")).toMatchObject({
      properties: {
        url: { type: "string", minLength: 1, maxLength: BROWSE_MAX_URL_LENGTH },
        actions: { type: "array", maxItems: BROWSE_MAX_ACTIONS },
        extract: { enum: ["text", "html", "screenshot"] },
        timeoutMs: { type: "integer", minimum: 1000, maximum: 60_000 },
      },
      required: ["url"],
      additionalProperties: false,
    });
    // ASCII strings (JSON Schema counts code points, zod UTF-16 units), short or around a bound.
    const text = (bound: number) =>
      fc.oneof(
        fc.string({ unit: "binary-ascii", maxLength: 3 }),
        fc.string({ unit: "binary-ascii", minLength: bound - 2, maxLength: bound + 2 }),
      );
    const action = fc.oneof(
      fc.record({ click: text(1000) }),
      fc.record({ fill: text(1000), value: text(100_000) }),
      fc.record({ waitFor: text(1000) }),
      fc.record({ press: text(100), selector: text(1000) }, { requiredKeys: ["press"] }),
      fc.record({ click: text(3), press: text(3) }),
    );
    fc.assert(
      fc.property(
        fc.record(
          {
            url: text(BROWSE_MAX_URL_LENGTH),
            actions: fc.array(action, { maxLength: 3 }),
            timeoutMs: fc.integer({ min: 0, max: 70_000 }),
          },
          { requiredKeys: ["url"] },
        ),
        (input) => {
          expect(admits("browser", input)).toBe(browserInput.safeParse(input).success);
        },
      ),
      { numRuns: 200 },
    );
  });
});
