/**
 * The `workerd` test project: the Worker entry (workers/src/runtime/worker/index.ts) inside workerd through
 * `@cloudflare/vitest-plugin`, with wrangler.toml's compatibility date, flags (`nodejs_compat`),
 * vars and `SKILLS_KV` namespace, `LIBSQL_URL` pointing at the test Hrana server started by
 * ./global-setup.ts, and a test management token. No outbound fetch mock: the database traffic
 * is real HTTP to 127.0.0.1.
 *
 * Files under `test/workerd/ratelimit-binding/` run in a project of their own
 * (./ratelimit-binding/vitest.config.ts) whose Worker also has the `EXECUTION_RATE_LIMITER` rate
 * limiting binding, so that the binding's small limit never touches the other files.
 */
import { defineProject } from "vitest/config";
import { workerdProject } from "./project.js";

export default defineProject(
  workerdProject({
    name: "workerd",
    include: ["test/workerd/**/*.test.ts"],
    exclude: ["test/workerd/ratelimit-binding/**"],
  }),
);
