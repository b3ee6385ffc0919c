import { defineConfig } from "vitest/config";

/**
 * Test projects: `node` (unit, integration, sandbox — real libSQL, real HTTP, real Docker —,
 * deployed: the Worker under `wrangler dev`, the dashboard in Chromium, the CLI), `workerd` (the Worker entry inside workerd; see
 * test/workerd/vitest.config.ts) and `workerd-ratelimit` (the same with the rate limiting binding;
 * see test/workerd/ratelimit-binding/vitest.config.ts).
 *
 * Files and the tests in each file run in a random order (every test must stand alone). Vitest
 * prints the seed at start (`Running tests with seed "<n>"`); replay an order with
 * `npm test -- --sequence.seed=<n>` or `npx vitest run --sequence.seed=<n>`.
 */
export default defineConfig({
  test: {
    sequence: { shuffle: true },
    projects: [
      {
        test: {
          name: "node",
          environment: "node",
          include: [
            "test/unit/**/*.test.ts",
            "test/integration/**/*.test.ts",
            "test/sandbox/**/*.test.ts",
            "test/deployed/**/*.test.ts",
            "test/browser/**/*.test.ts",
            "test/cli/**/*.test.ts",
          ],
          sequence: { shuffle: true },
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      "test/workerd/vitest.config.ts",
      "test/workerd/ratelimit-binding/vitest.config.ts",
    ],
  },
});
