/**
 * The API's OpenAPI document, built without a server: the app is made over an in-memory libSQL
 * database that is never queried, and the document is read through `app.request`. Used by
 * `npm run openapi` (scripts/openapi.ts) and `npm run cli-types` (scripts/cli-api-types.ts).
 */
import { createClient } from "@libsql/client";
import { createApp } from "../workers/src/app.js";
import { MemoryCache } from "../workers/src/cache/memory-cache.js";
import { parseConfig } from "../workers/src/config.js";
import { createDb } from "../workers/src/db/client.js";

/**
 * The OpenAPI document of the app, as `GET /openapi.json` answers it (the parsed JSON).
 * @throws Error when the app does not answer 200.
 */
export async function openApiDocument(): Promise<unknown> {
  const client = createClient({ url: ":memory:" });
  try {
    const { app } = createApp({
      db: createDb(client),
      cache: new MemoryCache(),
      config: parseConfig({}),
    });
    const res = await app.request("/openapi.json");
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
    return await res.json();
  } finally {
    client.close();
  }
}
