/**
 * vitest globalSetup of the `workerd` project (runs in Node, before any Worker starts): creates a
 * temp libSQL database, serves it over Hrana HTTP (test/workerd/hrana-server.ts), applies the
 * migrations in `migrations/` through that server and provides its URL as `libsqlUrl`, which
 * test/workerd/vitest.config.ts binds to the Worker as `LIBSQL_URL`; and a scripted Chat
 * Completions upstream for the proxy (`llmUrl`): a first turn calling `workerdEcho_v1_0_0` with
 * `{ text }` from the question, then a final text quoting the tool result.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client/web";
import type { TestProject } from "vitest/node";
import { createDb } from "../../workers/src/db/client.js";
import { applyMigrations } from "../../workers/src/runtime/node/migrate.js";
import { startScriptedLlm } from "../support/fakes/llm-script.js";
import { textTurn, toolResults, toolTurn } from "../support/proxy-fixtures.js";
import { sseOf } from "../support/proxy-sse.js";
import { startHranaServer } from "./hrana-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the test Hrana server (`http://127.0.0.1:<port>`). */
    libsqlUrl: string;
    /** Base URL of the scripted LLM upstream of the proxy tests (`http://127.0.0.1:<port>`). */
    llmUrl: string;
  }
}

/**
 * Starts the database server for the workerd tests.
 * @returns the teardown: stops the server and removes the temp folder.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), "skillgate-workerd-"));
  const file = join(dir, "registry.db");
  const server = await startHranaServer({ path: file }).catch((err: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  const llm = await startScriptedLlm((_req, body, n) => {
    const results = toolResults("openai-chat", body);
    const answer =
      results.length === 0
        ? toolTurn(
            "openai-chat",
            [{ id: `call_${n}`, name: "workerdEcho_v1_0_0", args: { text: "from workerd" } }],
            n,
          )
        : textTurn("openai-chat", `tool said ${results[0]!.text}`, n);
    return body.stream === true
      ? { kind: "sse", events: sseOf("openai-chat", answer), chunkBytes: 11 }
      : { kind: "json", body: answer };
  });
  const teardown = async () => {
    await llm.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  };
  // Migrate over HTTP, like `npm run db:migrate` against Turso (the plugin's resolve conditions
  // select the web build of `@libsql/client` here, and the server owns the file's only connection).
  const migrator = createClient({ url: server.url });
  try {
    await applyMigrations(createDb(migrator));
  } catch (err) {
    await teardown();
    throw err;
  } finally {
    migrator.close();
  }
  project.provide("libsqlUrl", server.url);
  project.provide("llmUrl", llm.url);
  return teardown;
}
