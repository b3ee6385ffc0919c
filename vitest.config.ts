import { defineConfig } from "vitest/config";

/**
 * Test projects: `node` (unit, integration, sandbox — real libSQL, real HTTP, real Docker) and
 * `workerd` (the Worker entry inside workerd; see test/workerd/vitest.config.ts).
 */
export default defineConfig({
  test: {
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
          ],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      "test/workerd/vitest.config.ts",
    ],
  },
});
