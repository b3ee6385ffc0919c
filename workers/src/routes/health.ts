/**
 * `GET /api/health` (docs/api.md#acting-for-a-key): no auth needed; anonymous callers get only
 * `{ status }`, the management token adds details (database, registry, sandbox host; with several
 * hosts, each host with its state, docs/sandbox.md#several-hosts).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "./context.js";
import { errorResponses, jsonResponse, KEY_OR_MANAGEMENT, TAGS } from "./schemas.js";

const healthRoute = createRoute({
  method: "get",
  path: "/api/health",
  operationId: "getHealth",
  tags: [TAGS.health],
  security: [{}, ...KEY_OR_MANAGEMENT],
  summary: "Liveness; details for management",
  responses: {
    200: jsonResponse(
      z.object({
        status: z.enum(["ok", "degraded"]),
        details: z.record(z.string(), z.unknown()).optional(),
      }),
      "Health",
    ),
    ...errorResponses(401),
    503: jsonResponse(z.object({ status: z.literal("down") }), "Database unreachable"),
  },
});

/** Builds the health route. */
export function healthRoutes() {
  const app = createRouter();
  app.openapi(healthRoute, async (c) => {
    const detailed = c.get("principal")?.kind === "management";
    const report = await c.get("services").health.check(detailed);
    if (report.status === "down") return c.json(report, 503);
    return c.json(report, 200);
  });
  return app;
}
