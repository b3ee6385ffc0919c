/**
 * `npm run cli-types`: writes the CLI's types of the API, generated from the OpenAPI document, to
 * `cli/src/api-types.ts` (scripts/cli-api-types.ts, docs/cli.md#api-types). Run it after changing
 * a route or a schema; a test fails while the committed file differs.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CLI_API_TYPES_MODULE, cliApiTypesModule } from "./cli-api-types.js";

const root = fileURLToPath(new URL("..", import.meta.url));
writeFileSync(join(root, CLI_API_TYPES_MODULE), await cliApiTypesModule());
console.log(`wrote ${CLI_API_TYPES_MODULE}`);
