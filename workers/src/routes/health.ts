/**
 * `GET /api/health` (docs/api.md#acting-for-a-key): no auth needed; anonymous callers get only
 * `{ status }`, the management token adds details (database, registry, sandbox host; with several
 * hosts, each host with its state, docs/sandbox.md#several-hosts).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { isMultiHost } from "../sandbox/multi-host.js";
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
    const services = c.get("services");
    let dbOk = true;
    let dbError: string | undefined;
    try {
      await services.deps.db.run(sql`select 1`);
    } catch (err) {
      dbOk = false;
      dbError = (err as Error).message;
    }
    if (!dbOk && c.get("principal")?.kind !== "management")
      return c.json({ status: "down" as const }, 503);
    if (c.get("principal")?.kind !== "management") return c.json({ status: "ok" as const }, 200);
    const details: Record<string, unknown> = {
      runtime: services.deps.runtime ?? "unknown",
      database: dbOk ? { ok: true } : { ok: false, error: dbError },
      registry: await services.registry.snapshot().then(
        (snap) => ({ skills: snap.skills.length }),
        (err: Error) => ({ error: err.message }),
      ),
      handlers: services.executor.handlerNames(),
    };
    let sandboxOk = true;
    if (services.deps.sandbox) {
      try {
        const sandbox = services.deps.sandbox;
        if (isMultiHost(sandbox)) {
          const hosts = await sandbox.hosts();
          sandboxOk = hosts.some((h) => h.state === "up");
          details.sandbox = { ok: sandboxOk, hosts };
        } else details.sandbox = { ...(await sandbox.health()), ok: true };
      } catch (err) {
        sandboxOk = false;
        details.sandbox = { ok: false, error: (err as Error).message };
      }
    } else {
      details.sandbox = { ok: false, configured: false };
    }
    const status = dbOk && sandboxOk ? ("ok" as const) : ("degraded" as const);
    return c.json({ status, details }, 200);
  });
  return app;
}
