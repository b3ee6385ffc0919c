import { defineConfig } from "drizzle-kit";

/** drizzle-kit configuration: SQL migrations for libSQL/Turso are generated into `migrations/`. */
export default defineConfig({
  dialect: "turso",
  schema: "./workers/src/db/schema.ts",
  out: "./migrations",
  dbCredentials: {
    url: process.env.LIBSQL_URL ?? "file:.data/skillgate.db",
    authToken: process.env.LIBSQL_AUTH_TOKEN,
  },
});
