/**
 * The shape of a workerd test project (see ./vitest.config.ts): the Worker entry inside workerd
 * through `@cloudflare/vitest-plugin` with wrangler.toml's settings, the `SKILLS_KV` namespace,
 * `LIBSQL_URL` pointing at the Hrana server of ./global-setup.ts (one database per project), the
 * scripted upstream of the proxy tests and a test management token; plus any extra Miniflare
 * worker options a project needs (a rate limiting binding, for example).
 */
import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import type { UserWorkspaceConfig } from "vitest/config";

/** Management token bound as the `MGMT_TOKEN` secret in these tests. */
export const WORKERD_MGMT_TOKEN = "workerd-test-management-token-0123456789";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Options of {@link workerdProject}. */
export interface WorkerdProjectOptions {
  /** The vitest project name (`--project <name>`). */
  name: string;
  /** Test file globs, relative to the repository root. */
  include: string[];
  exclude?: string[];
  /** Rate limiting bindings of the Worker, in Miniflare's `ratelimits` shape. */
  ratelimits?: Record<string, { namespace_id: string; simple: { limit: number; period: 10 | 60 } }>;
}

/** A workerd test project's config (pass it to `defineProject`). */
export function workerdProject(opts: WorkerdProjectOptions): UserWorkspaceConfig {
  return {
    root,
    plugins: [
      cloudflareTest(({ inject }) => ({
        main: "./workers/src/runtime/worker/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          kvNamespaces: ["SKILLS_KV"],
          bindings: {
            LIBSQL_URL: inject("libsqlUrl"),
            MGMT_TOKEN: WORKERD_MGMT_TOKEN,
            UPSTREAM_OPENAI_BASE_URL: `${inject("llmUrl")}/v1`,
          },
          ...(opts.ratelimits ? { ratelimits: opts.ratelimits } : {}),
        },
      })),
    ],
    test: {
      name: opts.name,
      include: opts.include,
      exclude: opts.exclude,
      globalSetup: ["test/workerd/global-setup.ts"],
      // Every file talks to the one shared database (one engine connection): run files one by one.
      fileParallelism: false,
      // Random order, like the node project (the seed is shared and printed by the root config).
      sequence: { shuffle: true },
      // Hang bounds, as in the node project: a file's first request starts a fresh isolate of the
      // whole Worker bundle, which takes seconds on a busy machine.
      testTimeout: 60_000,
      hookTimeout: 120_000,
    },
  };
}
