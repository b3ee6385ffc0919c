/**
 * Provider-compatible endpoints of the gateway proxy (docs/proxy.md), at the paths each official
 * SDK calls when its base URL points at Skillgate:
 * - `POST /v1/chat/completions`, `POST /v1/responses` (OpenAI, key in `Authorization: Bearer`),
 * - `POST /v1/messages` (Anthropic, key in `x-api-key`),
 * - `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent` (Gemini, key in
 *   `x-goog-api-key`).
 * Every Skillgate error answers in the provider's own error shape.
 */
import type { ErrorCode } from "@skillgate/errors";
import { Hono } from "hono";
import { hasScope } from "../auth/scopes.js";
import { AppError, isStorageFull, STORAGE_FULL_MESSAGE } from "../errors.js";
import type { AppEnv } from "../routes/context.js";
import type { FrontDoorServices } from "../services/index.js";
import { isRankerName, RANKER_NAMES, type RankerName } from "../services/tools.js";
import { logPrefix } from "../telemetry/request-context.js";
import type { JsonObject, WireFormat } from "./domain.js";
import { proxyFormat } from "./formats.js";
import {
  failureResult,
  type ProxyRequest,
  type ProxyResult,
  type ProxyServices,
  runProxyLoop,
} from "./loop.js";
import { passThrough } from "./passthrough.js";
import { streamProxy } from "./stream.js";

/**
 * The loop's view of the services: the proxy service's settings, clock and mixed-turn storage,
 * and the tools service's injection and interception (the same policies and model-call policy
 * floors as `POST /api/skills/intercept` and the MCP skill tools).
 * @param customSkills false when the request turned custom skill execution off.
 * @param ranker the ranker the request chose (`x-skillgate-ranker`), if any.
 */
export function proxyServices(
  services: FrontDoorServices,
  customSkills: boolean,
  ranker?: RankerName,
): ProxyServices {
  const p = services.proxy;
  return {
    fetch: p.settings.fetch,
    upstream: p.settings.upstream,
    cache: p,
    maxRounds: p.settings.maxRounds,
    timeBudgetMs: p.settings.timeBudgetMs,
    keepAliveMs: p.settings.keepAliveMs,
    idleTimeoutMs: p.settings.idleTimeoutMs,
    limits: p.settings.limits,
    clock: p.clock,
    inject: (format, request, apiKeyId) =>
      services.tools.inject({ format, request, ranker }, apiKeyId),
    intercept: (call) =>
      services.tools.intercept(
        {
          format: call.format,
          response: call.response,
          injected: call.injected,
          clientTools: call.clientTools,
          sessionId: call.sessionId,
          customSkillExecutionEnabled: customSkills,
          signal: call.signal,
          maxOwnedCalls: p.settings.maxCallsPerTurn,
        },
        call.apiKeyId,
      ),
    recordUsage: (apiKeyId, format, usage, rounds, ownedCalls) =>
      services.tokenUsage.record(apiKeyId, format, usage, rounds, ownedCalls),
  };
}

/**
 * The Skillgate key of a request: where the format's SDK puts it first (`x-api-key`,
 * `x-goog-api-key`), then `Authorization: Bearer` (recent Anthropic SDKs send the key there),
 * then Gemini's `?key=` query parameter.
 */
function clientKey(format: WireFormat, headers: Headers, url: URL): string | undefined {
  const own = proxyFormat(format).clientKeyHeader;
  const direct = own === "authorization" ? undefined : headers.get(own)?.trim();
  if (direct) return direct;
  const bearer = headers
    .get("authorization")
    ?.match(/^Bearer\s+(.+)$/i)?.[1]
    ?.trim();
  if (bearer) return bearer;
  return format === "gemini" ? url.searchParams.get("key")?.trim() || undefined : undefined;
}

function respond(r: ProxyResult): Response {
  const headers = new Headers(r.headers);
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(r.body), { status: r.status, headers });
}

/** Why a request body is refused: status, code and message, in the provider's error shape. */
interface BodyRefusal {
  status: 400;
  code: ErrorCode;
  message: string;
}

/**
 * The request body as text and parsed, or why it is refused: not JSON or not an object (400
 * `invalid_json`), or a `stream` that is not a boolean (400 `invalid_input`). Its size and depth
 * were checked while it was read, by the app's request limit (docs/limits.md).
 */
async function readBody(req: Request): Promise<{ raw: string; body: JsonObject } | BodyRefusal> {
  const raw = await req.text();
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return { status: 400, code: "invalid_json", message: "The request body is not valid JSON" };
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { status: 400, code: "invalid_json", message: "The request body must be a JSON object" };
  const stream = (body as JsonObject).stream;
  if (stream !== undefined && stream !== null && typeof stream !== "boolean")
    return { status: 400, code: "invalid_input", message: "stream must be a boolean" };
  return { raw, body: body as JsonObject };
}

/** Serves one proxy request of `format`. */
async function handle(
  services: FrontDoorServices,
  format: WireFormat,
  req: Request,
  model?: string,
  geminiStream = false,
): Promise<Response> {
  const url = new URL(req.url);
  const fail = (status: number, message: string, code: ErrorCode) =>
    respond(failureResult(format, status, message, code));
  const token = clientKey(format, req.headers, url);
  if (!token)
    return fail(
      401,
      `Send your Skillgate API key in ${proxyFormat(format).clientKeyHeader}`,
      "unauthorized",
    );
  const principal = await services.keys.authenticate(token);
  if (!principal) return fail(401, "Invalid, revoked or expired Skillgate API key", "unauthorized");
  // The proxy injects skills and runs the calls it intercepts: the `inject` scope (docs/api.md).
  if (!hasScope(principal, "inject"))
    return fail(
      403,
      'This API key lacks the scope "inject" needed for the proxy endpoints',
      "missing_scope",
    );
  const read = await readBody(req);
  if ("status" in read) return fail(read.status, read.message, read.code);
  const { body } = read;
  const stream = geminiStream || body.stream === true;
  // The master switch off: the request goes to the upstream untouched (docs/proxy.md#master-switch).
  if (!(await services.settings.get()).skillsEnabled) {
    const p = services.proxy.settings;
    try {
      const r = await passThrough(p.fetch, p.upstream, {
        format,
        model,
        stream,
        raw: read.raw,
        headers: req.headers,
        signal: req.signal,
        timeBudgetMs: p.timeBudgetMs,
        idleMs: p.idleTimeoutMs,
      });
      return r instanceof Response ? r : respond(r);
    } catch (err) {
      if (req.signal.aborted) return fail(499, "The client closed the request", "client_closed");
      throw err;
    }
  }
  const sessionId =
    req.headers.get("x-skillgate-session")?.trim().slice(0, 200) || crypto.randomUUID();
  const customSkills = req.headers.get("x-skillgate-custom-skills")?.trim().toLowerCase() !== "off";
  const rankerHeader = req.headers.get("x-skillgate-ranker")?.trim().toLowerCase();
  if (rankerHeader !== undefined && !isRankerName(rankerHeader))
    return fail(
      400,
      `x-skillgate-ranker must be one of ${RANKER_NAMES.join(", ")}`,
      "invalid_input",
    );
  const proxyReq: ProxyRequest = {
    format,
    body,
    model,
    headers: req.headers,
    apiKeyId: principal.kind === "key" ? principal.apiKeyId : null,
    sessionId,
    signal: req.signal,
  };
  const svc = proxyServices(services, customSkills, rankerHeader);
  // A key over its daily token budget: 429 in the provider's shape (the app's error handler).
  await services.tokenUsage.checkBudget(proxyReq.apiKeyId);
  try {
    if (stream) return await streamProxy(svc, proxyReq);
    return respond(await runProxyLoop(svc, proxyReq));
  } catch (err) {
    if (req.signal.aborted) return fail(499, "The client closed the request", "client_closed");
    if (!(err instanceof AppError && err.status < 500) && isStorageFull(err)) {
      // A full disk refused a write as a whole (docs/execution.md#a-full-disk).
      console.error(
        `${logPrefix()}storage_full on the ${format} proxy: the database's disk is full`,
      );
      return fail(503, STORAGE_FULL_MESSAGE, "storage_full");
    }
    console.error(`${logPrefix()}proxy ${format} failed:`, err);
    return fail(500, "Internal server error", "internal_error");
  }
}

/** The proxy's paths and their wire formats (Gemini's path carries the model and the method). */
const PROXY_PATHS: ReadonlyArray<[RegExp, WireFormat]> = [
  [/^\/v1\/chat\/completions$/, "openai-chat"],
  [/^\/v1\/responses$/, "openai-responses"],
  [/^\/v1\/messages$/, "anthropic"],
  [/^\/v1beta\/models\/[^/]+$/, "gemini"],
];

/**
 * The error body of a proxy path in its provider's shape (docs/proxy.md#errors), for an error
 * raised before the proxy's handler runs (the app's request limit); undefined for other paths.
 */
export function proxyErrorBody(
  method: string,
  path: string,
  status: number,
  message: string,
  code: ErrorCode,
): JsonObject | undefined {
  if (method.toUpperCase() !== "POST") return undefined;
  const format = PROXY_PATHS.find(([pattern]) => pattern.test(path))?.[1];
  return format ? proxyFormat(format).errorBody(status, message, code) : undefined;
}

/** The proxy's route group (mounted at the root; its own key auth, never the `/api/*` one). */
export function proxyRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/v1/chat/completions", (c) => handle(c.get("services"), "openai-chat", c.req.raw));
  app.post("/v1/responses", (c) => handle(c.get("services"), "openai-responses", c.req.raw));
  app.post("/v1/messages", (c) => handle(c.get("services"), "anthropic", c.req.raw));
  app.post("/v1beta/models/:target", (c) => {
    const target = c.req.param("target");
    const m = target.match(/^(.+):(generateContent|streamGenerateContent)$/);
    if (!m)
      return respond(failureResult("gemini", 404, `No route for POST ${c.req.path}`, "not_found"));
    return handle(c.get("services"), "gemini", c.req.raw, m[1], m[2] === "streamGenerateContent");
  });
  return app;
}
