/**
 * The `workerd` test project: the Worker entry (workers/src/index.ts) inside workerd through
 * `@cloudflare/vitest-plugin`, with wrangler.toml's compatibility date, flags (`nodejs_compat`),
 * vars and `SKILLS_KV` namespace, `LIBSQL_URL` pointing at the test Hrana server started by
 * ./global-setup.ts, and a test management token. No outbound fetch mock: the database traffic
 * is real HTTP to 127.0.0.1.
 */
import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";

/** Management token bound as the `MGMT_TOKEN` secret in these tests. */
export const WORKERD_MGMT_TOKEN = "workerd-test-management-token-0123456789";

const root = fileURLToPath(new URL("../..", import.meta.url));

export default defineProject({
  root,
  plugins: [
    cloudflareTest(({ inject }) => ({
      main: "./workers/src/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        kvNamespaces: ["SKILLS_KV"],
        bindings: {
          LIBSQL_URL: inject("libsqlUrl"),
          MGMT_TOKEN: WORKERD_MGMT_TOKEN,
          UPSTREAM_OPENAI_BASE_URL: `${inject("llmUrl")}/v1`,
        },
      },
    })),
  ],
  test: {
    name: "workerd",
    include: ["test/workerd/**/*.test.ts"],
    globalSetup: ["test/workerd/global-setup.ts"],
    // Every file talks to the one shared database (one engine connection): run files one by one.
    fileParallelism: false,
    // Random order, like the node project (the seed is shared and printed by the root config).
    sequence: { shuffle: true },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
