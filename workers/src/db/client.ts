/**
 * drizzle database factory over a libSQL client. The client is created by the entry point:
 * `@libsql/client/web` over HTTP in the Worker, `@libsql/client` (embedded file) in Node.
 */
import type { Client } from "@libsql/client";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import * as schema from "./schema.js";

/** The typed drizzle database every repository uses, with its libSQL client as `$client`. */
export type Db = LibSQLDatabase<typeof schema> & { $client: Client };

/** Wraps a libSQL client (embedded or web) in drizzle with the registry schema. */
export function createDb(client: Client): Db {
  return drizzle(client, { schema });
}
