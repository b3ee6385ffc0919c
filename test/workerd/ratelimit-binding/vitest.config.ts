/**
 * The `workerd-ratelimit` test project: the Worker entry inside workerd as in the `workerd`
 * project (test/workerd/project.ts), with its own database, plus the `EXECUTION_RATE_LIMITER`
 * rate limiting binding (`[[ratelimits]]` in wrangler.toml; docs/rate-limits.md#the-rate-limiting-binding) at a
 * small limit. Only the files in this folder see the binding, so its limit cannot refuse the
 * executions of the other workerd tests.
 */
import { defineProject } from "vitest/config";
import { workerdProject } from "../project.js";
import { BINDING_LIMIT } from "./limit.js";

export default defineProject(
  workerdProject({
    name: "workerd-ratelimit",
    include: ["test/workerd/ratelimit-binding/**/*.test.ts"],
    ratelimits: {
      EXECUTION_RATE_LIMITER: {
        namespace_id: "1001",
        simple: { limit: BINDING_LIMIT, period: 60 },
      },
    },
  }),
);
