/**
 * `createApp(deps)`: the one Hono app served by the Worker and by the local Node entry
 * (docs/architecture.md#runtimes). Mounts the route groups, authenticates `/api/*`, maps every
 * error to the envelope `{ error: { code, message, details? } }` in one place, and serves the
 * OpenAPI document at `/openapi.json`.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { requireAuth, requireRouteScope } from "./auth/middleware.js";
import type { AppDeps } from "./deps.js";
import { AppError } from "./errors.js";
import { requestLimits } from "./request-limits.js";
import { adminRoutes } from "./routes/admin.js";
import { catalogsRoutes } from "./routes/catalogs.js";
import type { AppEnv } from "./routes/context.js";
import { executionRetentionRoutes } from "./routes/execution-retention.js";
import { executionsRoutes } from "./routes/executions.js";
import { healthRoutes } from "./routes/health.js";
import { skillsRoutes } from "./routes/skills.js";
import { toolsRoutes } from "./routes/tools.js";
import { createServices, type ServiceOptions, type Services } from "./services.js";

/** Error envelope body. */
function envelope(code: string, message: string, details?: unknown) {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

const HTTP_CODES: Record<number, string> = {
  400: "invalid_input",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

/** The app plus the services it was built with (tests and entry points use both). */
export interface BuiltApp {
  app: OpenAPIHono<AppEnv>;
  services: Services;
}

/**
 * Builds the app from its dependencies.
 * @param deps database, cache, config, clock, sandbox client, upstream fetch.
 * @param opts service options (tests: retry backoff, builtins).
 */
export function createApp(deps: AppDeps, opts: ServiceOptions = {}): BuiltApp {
  const services = createServices(deps, opts);
  const app = new OpenAPIHono<AppEnv>();

  app.use("*", async (c, next) => {
    c.set("services", services);
    await next();
  });
  app.use("/api/health", requireAuth(true));
  app.use("/api/*", async (c, next) => {
    if (c.req.path === "/api/health") return next();
    return requireAuth()(c, next);
  });
  app.use("/api/*", requireRouteScope());
  app.use("/api/*", requestLimits(deps.config));

  app.route("/", healthRoutes());
  app.route("/", adminRoutes());
  // Static `/api/skills/...` paths before `/api/skills/{id}`.
  app.route("/", executionRetentionRoutes());
  app.route("/", executionsRoutes());
  app.route("/", catalogsRoutes());
  app.route("/", toolsRoutes());
  app.route("/", skillsRoutes());

  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Skillgate API",
      version: "0.1.0",
      description:
        "Skills registry, provider-aware tool injection, interception and sandboxed execution.",
    },
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
  });

  app.notFound((c) =>
    c.json(envelope("not_found", `No route for ${c.req.method} ${c.req.path}`), 404),
  );

  app.onError((err, c) => {
    if (err instanceof AppError) {
      if (err.retryAfterS !== undefined) c.header("Retry-After", String(err.retryAfterS));
      else if (err.status === 503 && err.code === "skills_disabled") c.header("Retry-After", "60");
      return c.json(envelope(err.code, err.message, err.details), err.status as 400);
    }
    if (err instanceof HTTPException) {
      const status = err.status;
      const code = err.message.startsWith("Malformed JSON")
        ? "invalid_json"
        : (HTTP_CODES[status] ?? "http_error");
      return c.json(envelope(code, err.message || "Request failed"), status);
    }
    console.error(`[skillgate] unhandled error on ${c.req.method} ${c.req.path}:`, err);
    return c.json(envelope("internal_error", "Internal server error"), 500);
  });

  return { app, services };
}
