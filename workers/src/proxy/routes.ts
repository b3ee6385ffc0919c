/**
 * Provider-compatible endpoints of the gateway proxy (docs/proxy.md), at the paths each official
 * SDK calls when its base URL points at Skillgate:
 * - `POST /v1/chat/completions`, `POST /v1/responses` (OpenAI, key in `Authorization: Bearer`),
 * - `POST /v1/messages` (Anthropic, key in `x-api-key`),
 * - `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent` (Gemini, key in
 *   `x-goog-api-key`).
 * The door authenticates, reads the body (its size and depth were checked by the app's request
 * limit), calls the proxy service and renders its answer. Every Skillgate error answers in the
 * provider's own error shape.
 */

import type { ErrorCode } from "@skillgate/errors";
import { type Context, Hono } from "hono";
import { hasScope } from "../auth/scopes.js";
import { getFormatAdapter } from "../formats/index.js";
import type { JsonObject, WireFormat } from "../formats/types.js";
import type { AppEnv } from "../routes/context.js";
import { relayStream } from "../services/gateway/relay.js";
import type { GatewayAnswer } from "../services/gateway/types.js";

/**
 * The Skillgate key of a request: where the format's SDK puts it first (`x-api-key`,
 * `x-goog-api-key`), then `Authorization: Bearer` (recent Anthropic SDKs send the key there),
 * then the format's query parameter (Gemini's `?key=`).
 */
function clientKey(format: WireFormat, headers: Headers, url: URL): string | undefined {
  const adapter = getFormatAdapter(format);
  const own = adapter.clientKeyHeader;
  const direct = own === "authorization" ? undefined : headers.get(own)?.trim();
  if (direct) return direct;
  const bearer = headers
    .get("authorization")
    ?.match(/^Bearer\s+(.+)$/i)?.[1]
    ?.trim();
  if (bearer) return bearer;
  const query = adapter.clientKeyQuery;
  return query ? url.searchParams.get(query)?.trim() || undefined : undefined;
}

/** Renders the service's answer: a JSON body or the stream as it is. */
function render(r: GatewayAnswer): Response {
  if ("stream" in r) return new Response(r.stream, { status: r.status, headers: r.headers });
  const headers = new Headers(r.headers);
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify(r.body), { status: r.status, headers });
}

/**
 * The request body as text and parsed, or why it is refused: not JSON or not an object (400
 * `invalid_json`), or a `stream` that is not a boolean (400 `invalid_input`).
 */
async function readBody(
  text: () => Promise<string>,
): Promise<{ raw: string; body: JsonObject } | { code: ErrorCode; message: string }> {
  const raw = await text();
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return { code: "invalid_json", message: "The request body is not valid JSON" };
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { code: "invalid_json", message: "The request body must be a JSON object" };
  const stream = (body as JsonObject).stream;
  if (stream !== undefined && stream !== null && typeof stream !== "boolean")
    return { code: "invalid_input", message: "stream must be a boolean" };
  return { raw, body: body as JsonObject };
}

/** Serves one proxy request of `format`. */
async function handle(
  c: Context<AppEnv>,
  format: WireFormat,
  model?: string,
  geminiStream = false,
): Promise<Response> {
  const services = c.get("services");
  const hono = c.req;
  const req = hono.raw;
  const adapter = getFormatAdapter(format);
  const fail = (status: number, message: string, code: ErrorCode) =>
    render({ status, body: adapter.errorBody(status, message, code), headers: {} });
  const token = clientKey(format, req.headers, new URL(req.url));
  if (!token)
    return fail(401, `Send your Skillgate API key in ${adapter.clientKeyHeader}`, "unauthorized");
  const principal = await services.keys.authenticate(token);
  if (!principal) return fail(401, "Invalid, revoked or expired Skillgate API key", "unauthorized");
  // The proxy injects skills and runs the calls it intercepts: the `inject` scope (docs/api.md).
  if (!hasScope(principal, "inject"))
    return fail(
      403,
      'This API key lacks the scope "inject" needed for the proxy endpoints',
      "missing_scope",
    );
  const read = await readBody(() => hono.text());
  if ("code" in read) return fail(400, read.message, read.code);
  const apiKeyId = principal.kind === "key" ? principal.apiKeyId : null;
  // A key over its daily token budget: 429 in the provider's shape (the app's error handler).
  await services.tokenUsage.checkBudget(apiKeyId);
  const session = req.headers.get("x-skillgate-session")?.trim().slice(0, 200);
  const answer = await services.proxy.handle({
    format,
    body: read.body,
    raw: read.raw,
    model,
    stream: geminiStream || read.body.stream === true,
    headers: req.headers,
    apiKeyId,
    sessionId: session || crypto.randomUUID(),
    sessionNew: !session,
    customSkills: req.headers.get("x-skillgate-custom-skills")?.trim().toLowerCase() !== "off",
    ranker: req.headers.get("x-skillgate-ranker")?.trim().toLowerCase(),
    signal: req.signal,
  });
  const keepAlive = c.get("waitUntil");
  if (!("stream" in answer) || !answer.stream || !keepAlive) return render(answer);
  // A stream records its usage and routing observation when it ends, after the app's own
  // `waitUntil` hook has run: the runtime is kept until their writes have ended too.
  let ended!: () => void;
  const end = new Promise<void>((resolve) => (ended = resolve));
  keepAlive(
    end.then(() => Promise.all([services.tokenUsage.settled(), services.routing.settled()])),
  );
  return render({ ...answer, stream: relayStream(answer.stream, ended) });
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
  return format ? getFormatAdapter(format).errorBody(status, message, code) : undefined;
}

/** The proxy's route group (mounted at the root; its own key auth, never the `/api/*` one). */
export function proxyRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/v1/chat/completions", (c) => handle(c, "openai-chat"));
  app.post("/v1/responses", (c) => handle(c, "openai-responses"));
  app.post("/v1/messages", (c) => handle(c, "anthropic"));
  app.post("/v1beta/models/:target", (c) => {
    const m = c.req.param("target").match(/^(.+):(generateContent|streamGenerateContent)$/);
    if (!m) {
      const body = getFormatAdapter("gemini").errorBody(
        404,
        `No route for POST ${c.req.path}`,
        "not_found",
      );
      return render({ status: 404, body, headers: {} });
    }
    return handle(c, "gemini", m[1], m[2] === "streamGenerateContent");
  });
  return app;
}
