/**
 * The CLI's types of the API are generated from the OpenAPI document (docs/cli.md#api-types): the
 * committed `cli/src/api-types.ts` is exactly what `npm run cli-types` writes for the current
 * routes and schemas, it is plain types (no import, no value), and the client's `ApiAnswer`
 * reads a route's success body out of it.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { ApiAnswer, ApiSchema } from "../../cli/src/client.js";
import {
  CLI_API_TYPES_COMMAND,
  CLI_API_TYPES_MODULE,
  cliApiTypesModule,
} from "../../scripts/cli-api-types.js";

const path = new URL(`../../${CLI_API_TYPES_MODULE}`, import.meta.url);
const stale = `${CLI_API_TYPES_MODULE} differs from the OpenAPI document: run \`${CLI_API_TYPES_COMMAND}\` and commit the result`;

describe("CLI API types", () => {
  it("are what npm run cli-types generates from the OpenAPI document", async () => {
    expect(existsSync(path), stale).toBe(true);
    expect(readFileSync(path, "utf8"), stale).toBe(await cliApiTypesModule());
  });

  it("are plain types: the module imports nothing and declares no value", () => {
    const text = readFileSync(path, "utf8");
    expect(text).not.toMatch(/^\s*(import|require)\b/m);
    const exports = text.match(/^export .*$/gm) ?? [];
    expect(exports.length).toBeGreaterThan(0);
    for (const line of exports) expect(line).toMatch(/^export (interface|type) /);
  });

  it("give the client a route's success body (checked by tsc)", () => {
    expectTypeOf<ApiAnswer<"/api/skills/{id}", "get">>().toEqualTypeOf<{
      skill: ApiSchema<"Skill">;
    }>();
    expectTypeOf<ApiAnswer<"/api/skills", "get">>().toEqualTypeOf<ApiSchema<"SkillPage">>();
    expectTypeOf<ApiAnswer<"/api/keys", "post">>().toEqualTypeOf<{
      key: string;
      apiKey: ApiSchema<"ApiKey">;
    }>();
    expectTypeOf<ApiAnswer<"/api/keys/{id}/limits", "put">>().toEqualTypeOf<{
      limits: ApiSchema<"ApiKeyLimits">;
    }>();
    // A route that answers 204 has no body to read.
    expectTypeOf<ApiAnswer<"/api/skills/{id}", "delete">>().toBeNever();
  });
});
