/**
 * `createApp(deps)`: the one Hono app served by the Worker and by the local Node entry (docs/architecture.md#runtimes;
 * README "Self-hosting"). Reports every request to `deps.metrics`, answers
 * CORS preflights for `CORS_ALLOWED_ORIGINS` before authentication, authenticates `/api/*`,
 * mounts the route groups, maps every error to the envelope `{ error: { code, message,
 * details? } }` in one place (404 for unknown paths, 405 with `Allow` for unsupported methods),
 * and serves the OpenAPI document at `/openapi.json` and, with a pull-based metrics backend,
 * `/metrics`.
 */

import { OpenAPIHono } from "@hono/zod-openapi";
import { describeNetworkError } from "@skillgate/sandbox-protocol";
import { HTTPException } from "hono/http-exception";
import { a2aRoutes } from "./a2a/route.js";
import { A2ASkillRegistry, listCapabilitiesSkill, memoryAwareRoutingSkill } from "./a2a/skills.js";
import { AgentSkillsCatalog } from "./agent-skills/catalog.js";
import { agentSkillsRoutes } from "./agent-skills/route.js";
import { requireAuth, requireRouteScope } from "./auth/middleware.js";
import { dashboardRoutes } from "./dashboard/routes.js";
import type { AppDeps } from "./deps.js";
import { AppError, type ErrorCode, isStorageFull, STORAGE_FULL_MESSAGE } from "./errors.js";
import { agentSkillsTools } from "./mcp/agent-skills-tools.js";
import { MANAGEMENT_TOOLS } from "./mcp/management-tools.js";
import { protectedResourceRoutes } from "./mcp/protected-resource.js";
import { mcpErrorBody, mcpRoutes } from "./mcp/route.js";
import { noopMetrics } from "./metrics/types.js";
import { proxyErrorBody, proxyRoutes } from "./proxy/routes.js";
import { requestLimits } from "./request-limits.js";
import { allowedMethodsOf } from "./routes/allowed-methods.js";
import { catalogsRoutes } from "./routes/catalogs.js";
import type { AppEnv } from "./routes/context.js";
import { corsMiddleware } from "./routes/cors.js";
import { executionRetentionRoutes } from "./routes/execution-retention.js";
import { executionsRoutes } from "./routes/executions.js";
import { healthRoutes } from "./routes/health.js";
import { keysRoutes } from "./routes/keys.js";
import { mcpServersRoutes } from "./routes/mcp-servers.js";
import { metricsHandler, observeRequests } from "./routes/metrics.js";
import { OPENAPI_DOCUMENT, serveOpenApiDocument } from "./routes/openapi.js";
import { requestIds } from "./routes/request-id.js";
import { settingsRoutes } from "./routes/settings.js";
import { skillsRoutes } from "./routes/skills.js";
import { toolsRoutes } from "./routes/tools.js";
import { routingRoutes } from "./routing/route.js";
import { createServices, type ServiceOptions, type Services } from "./services/index.js";
import { logPrefix } from "./telemetry/request-context.js";

/** Error envelope body. */
function envelope(code: string, message: string, details?: unknown) {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/** The registry code of an HTTP exception Hono throws, by status (others: `http_error`). */
const HTTP_CODES: Record<number, ErrorCode> = {
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
  /** The Agent Skills catalog of the app's own API (built from its OpenAPI document). */
  agentSkills: AgentSkillsCatalog;
  /** The A2A skills; code embedding Skillgate adds its own with `a2aSkills.registerA2ASkill`. */
  a2aSkills: A2ASkillRegistry;
}

/**
 * Builds the app from its dependencies.
 * @param deps database, cache, config, clock, sandbox client, upstream fetch.
 * @param opts service options (tests: retry backoff, builtins).
 */
export function createApp(deps: AppDeps, opts: ServiceOptions = {}): BuiltApp {
  const services = createServices(deps, opts);
  const app = new OpenAPIHono<AppEnv>();
  const agentSkills = new AgentSkillsCatalog(() => app.getOpenAPI31Document(OPENAPI_DOCUMENT));
  const a2aSkills = new A2ASkillRegistry();
  a2aSkills.registerA2ASkill(
    listCapabilitiesSkill({
      agentSkills,
      toolPrefix: deps.config.MCP_TOOL_PREFIX,
      registry: a2aSkills,
    }),
  );
  a2aSkills.registerA2ASkill(memoryAwareRoutingSkill);

  const metrics = deps.metrics ?? noopMetrics;
  // First, so that every answer (errors and 404s included) carries `x-request-id`.
  app.use("*", requestIds());
  app.use("*", observeRequests(metrics));
  // Node has no execution context (Hono's getter throws, which costs a stack trace per answer).
  const withContext = deps.runtime !== "node";
  app.use("*", async (c, next) => {
    const ctx = withContext ? executionContextOf(c) : undefined;
    if (ctx) c.set("waitUntil", (promise) => ctx.waitUntil(promise));
    await next();
    // Node has no execution context: deliveries and buffered writes go on in the process (the
    // Node server writes what waits when it stops), and the batch processor exports spans.
    if (!ctx) return;
    // Approval notifications and observation writes go on after the answer: the Worker keeps
    // the isolate for them.
    if (services.approvalNotifier.busy || services.tokenUsage.busy || services.routing.busy) {
      ctx.waitUntil(
        Promise.all([
          services.approvalNotifier.settled(),
          services.tokenUsage.settled(),
          services.routing.settled(),
        ]),
      );
    }
    // The Worker exports the request's spans before the isolate may go.
    if (services.tracing) ctx.waitUntil(services.tracing.flush());
  });
  app.use("*", async (c, next) => {
    c.set("services", services);
    await next();
  });
  const cors = corsMiddleware(deps.config.CORS_ALLOWED_ORIGINS);
  if (cors) app.use("*", cors);
  app.use("/api/health", requireAuth(true));
  app.use("/api/*", async (c, next) => {
    if (c.req.path === "/api/health") return next();
    return requireAuth()(c, next);
  });
  app.use("/api/*", requireRouteScope());
  // One body limit in front of every route (docs/limits.md): on `/api/*` after the bearer check,
  // so that an anonymous caller has nothing read; the other doors check their credentials in
  // their handlers, after it.
  app.use("*", requestLimits(deps.config, { nodeServer: deps.runtime === "node" }));

  // The dashboard authenticates with its own session cookie, not the `/api/*` bearer token.
  app.route("/dashboard", dashboardRoutes());
  // The root leads a browser to the dashboard (docs/dashboard.md) rather than to a JSON 404.
  app.get("/", (c) => c.redirect("/dashboard", 302));
  app.route("/", healthRoutes());
  app.route("/", keysRoutes());
  app.route("/", settingsRoutes());
  // Static `/api/skills/...` paths before `/api/skills/{id}`.
  app.route("/", executionRetentionRoutes());
  app.route("/", executionsRoutes());
  app.route("/", catalogsRoutes());
  app.route("/", toolsRoutes());
  app.route("/", skillsRoutes());
  app.route("/", mcpServersRoutes());
  // Provider-compatible proxy endpoints (`/v1/*`, `/v1beta/*`): API key auth of their own.
  app.route("/", proxyRoutes());

  app.route("/", agentSkillsRoutes(agentSkills));
  app.route("/", routingRoutes());
  app.route(
    "/mcp",
    mcpRoutes({
      toolPrefix: deps.config.MCP_TOOL_PREFIX,
      tools: [...MANAGEMENT_TOOLS, ...agentSkillsTools(agentSkills)],
      allowedOrigins: [
        ...deps.config.MCP_ALLOWED_ORIGINS,
        ...deps.config.CORS_ALLOWED_ORIGINS,
        ...(deps.config.PUBLIC_BASE_URL ? [new URL(deps.config.PUBLIC_BASE_URL).origin] : []),
      ],
      publicBaseUrl: deps.config.PUBLIC_BASE_URL,
      maxBodyBytes: deps.config.MAX_BODY_BYTES,
      maxJsonDepth: deps.config.MAX_JSON_DEPTH,
    }),
  );
  app.route("/", protectedResourceRoutes({ publicBaseUrl: deps.config.PUBLIC_BASE_URL }));
  app.route("/", a2aRoutes({ services, skills: a2aSkills }).app);

  serveOpenApiDocument(app);
  if (metrics.scrape) app.get("/metrics", metricsHandler(metrics.scrape, deps.config));

  const allowedMethods = allowedMethodsOf(() => app.routes);
  app.notFound((c) => {
    const allow = allowedMethods(c.req.path);
    if (allow.length === 0)
      return c.json(envelope("not_found", `No route for ${c.req.method} ${c.req.path}`), 404);
    c.header("Allow", allow.join(", "));
    return c.json(
      envelope(
        "method_not_allowed",
        `${c.req.method} is not allowed on ${c.req.path} (allowed: ${allow.join(", ")})`,
      ),
      405,
    );
  });

  app.onError((err, c) => {
    if (!(err instanceof AppError && err.status < 500) && isStorageFull(err)) {
      // A full disk: SQLite refused the write as a whole (its transaction rolled back), so the
      // request changed nothing; health reports the state (docs/execution.md#a-full-disk).
      services.health.noteStorageFull();
      console.error(
        `${logPrefix()}storage_full on ${c.req.method} ${c.req.path}: the database's disk is full`,
      );
      c.header("Retry-After", "30");
      return c.json(envelope("storage_full", STORAGE_FULL_MESSAGE), 503);
    }
    if (err instanceof AppError) {
      // The cause is for the operator's log; the client gets the code, message and details only.
      // One line, no stack: the message already names the cause in words (docs/api.md#errors).
      if (err.status >= 500 && err.cause !== undefined) {
        console.error(
          `${logPrefix()}${err.code} on ${c.req.method} ${c.req.path}: ${err.message}; cause: ${describeNetworkError(err.cause).phrase}`,
        );
      }
      // RFC 6750 section 3: a 401 names the scheme (MCP clients read it to decide how to authenticate).
      if (err.status === 401) c.header("WWW-Authenticate", 'Bearer realm="skillgate"');
      if (err.retryAfterS !== undefined) c.header("Retry-After", String(err.retryAfterS));
      else if (err.code === "skills_disabled") c.header("Retry-After", "60");
      for (const [name, value] of Object.entries(err.headers ?? {})) c.header(name, value);
      // A body refused before it was read leaves bytes on the connection: the serving layer
      // discards them after the answer (docs/limits.md#reading-the-refusal), so no close here.
      // The proxy's paths answer in their provider's error shape (docs/proxy.md#errors).
      const proxied = proxyErrorBody(c.req.method, c.req.path, err.status, err.message, err.code);
      if (proxied) return c.json(proxied, err.status as 400);
      // `POST /mcp` answers in JSON-RPC's error shape (docs/mcp.md).
      const rpc = mcpErrorBody(c.req.method, c.req.path, err.status, err.message, err.code);
      if (rpc) return c.json(rpc, err.status as 400);
      return c.json(envelope(err.code, err.message, err.details), err.status as 400);
    }
    if (err instanceof HTTPException) {
      const status = err.status;
      const code = err.message.startsWith("Malformed JSON")
        ? "invalid_json"
        : (HTTP_CODES[status] ?? "http_error");
      return c.json(envelope(code, err.message || "Request failed"), status);
    }
    console.error(`${logPrefix()}unhandled error on ${c.req.method} ${c.req.path}:`, err);
    return c.json(envelope("internal_error", "Internal server error"), 500);
  });

  return { app, services, agentSkills, a2aSkills };
}

/**
 * The request's execution context (the Worker's `waitUntil`), undefined where there is none
 * (Node). Hono's getter throws when the runtime passed none.
 */
function executionContextOf(c: {
  executionCtx: ExecutionContextLike;
}): ExecutionContextLike | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

/** The part of an execution context the app uses. */
interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
}
