/**
 * `/mcp`: the Model Context Protocol endpoint (docs/mcp.md), Streamable HTTP without sessions
 * (MCP specification 2025-11-25, "Transports" → "Streamable HTTP", and 2026-07-28 for the modern
 * era): every POST stands alone and is answered by a new server and transport (the SDK's
 * web-standard `WebStandardStreamableHTTPServerTransport`, `sessionIdGenerator: undefined`, JSON
 * responses), so it runs the same in a Worker and on Node and any instance can answer any request.
 *
 * In order, a `POST /mcp`:
 * 1. `Origin` not allowed (http-rules.ts): 403 `origin_not_allowed` (DNS-rebinding protection);
 * 2. no valid bearer token: 401 with `WWW-Authenticate: Bearer … resource_metadata="…"`;
 * 3. an `Accept` that allows neither JSON nor SSE: 406; a `Content-Type` other than JSON: 415;
 *    a body over `MAX_BODY_BYTES`: 413; deeper than `MAX_JSON_DEPTH` or not JSON: 400 (-32700);
 * 4. a batch (array): 400 (-32600) from 2025-06-18 on and in the modern era; for 2025-03-26 and
 *    earlier, each message is answered on its own and the answers come back as an array;
 * 5. a modern message (modern.ts): checked against the 2026-07-28 rules, `server/discover`
 *    answered here, `tools/*` run by the same server and given `resultType` and cache hints;
 * 6. anything else: the SDK transport (202 for notifications, 400 for an unknown
 *    `MCP-Protocol-Version`, the JSON-RPC answer otherwise).
 * An answer goes out as JSON, or as one SSE event when the client accepts only `text/event-stream`.
 * `GET` / `DELETE /mcp`: 405 (no server-initiated stream, no session to end).
 */
import { readRequestBody } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type Context, Hono } from "hono";
import type { Principal } from "../auth/principal.js";
import { AppError, ForbiddenError } from "../errors.js";
import { jsonDepthExceeds } from "../json-depth.js";
import type { AppEnv } from "../routes/context.js";
import { modelDoorServices } from "../services/index.js";
import {
  type AnswerFormat,
  answerFormat,
  batchesAllowed,
  LEGACY_VERSIONS,
  legacyVersionOf,
  mcpOriginAllowed,
} from "./http-rules.js";
import type { ManagementTool } from "./management-tools.js";
import {
  checkModernRequest,
  discoverResult,
  isModernMessage,
  modernResult,
  type RawMessage,
} from "./modern.js";
import { mcpChallenge, resourceBase } from "./protected-resource.js";
import { createMcpServer, MCP_INSTRUCTIONS, MCP_SERVER_INFO } from "./server.js";

/** Options of {@link mcpRoutes} (read from the configuration by the app). */
export interface McpRouteOptions {
  /** Prefix of the management tool names (`MCP_TOOL_PREFIX`). */
  toolPrefix: string;
  /** The management tools and any extra tools (names without the prefix). */
  tools: readonly ManagementTool[];
  /** Origins allowed besides loopback ones (`MCP_ALLOWED_ORIGINS`, `CORS_ALLOWED_ORIGINS`, …). */
  allowedOrigins: readonly string[];
  /** `PUBLIC_BASE_URL`: the base of the `resource_metadata` URL (default: the request's origin). */
  publicBaseUrl: string | undefined;
  /** Largest body, in bytes (`MAX_BODY_BYTES`). */
  maxBodyBytes: number;
  /** Deepest JSON nesting (`MAX_JSON_DEPTH`). */
  maxJsonDepth: number;
}

/** Most messages in one JSON-RPC batch (the SDK's own bound). */
export const MAX_BATCH_MESSAGES = 100;

/** The version the SDK serves a modern request as (same tools, same results). */
const SDK_VERSION = LEGACY_VERSIONS[0];

type Ctx = Context<AppEnv>;

function bearer(header: string | undefined): string | undefined {
  const m = header?.match(/^Bearer\s+(.+)$/i);
  return m?.[1]?.trim() || undefined;
}

function rpcError(
  status: number,
  code: number,
  message: string,
  id: unknown = null,
  data?: unknown,
) {
  const error = data === undefined ? { code, message } : { code, message, data };
  return Response.json({ jsonrpc: "2.0", error, id }, { status });
}

/**
 * The JSON-RPC error body of a refusal by the request limits in front of every route
 * (docs/limits.md#request-bodies: `payload_too_large`, `json_too_deep`), raised before the MCP
 * handler ran, for `POST /mcp`; undefined for anything else (the MCP handler answers its own
 * errors). Nested too deep → -32700 Parse error; too large → -32600 Invalid Request; `data.code`
 * keeps the error registry's code.
 */
export function mcpErrorBody(
  method: string,
  path: string,
  status: number,
  message: string,
  code: string,
):
  | { jsonrpc: "2.0"; id: null; error: { code: number; message: string; data: { code: string } } }
  | undefined {
  if (method.toUpperCase() !== "POST" || path !== "/mcp") return undefined;
  if (code !== "payload_too_large" && code !== "json_too_deep") return undefined;
  const rpc = code === "json_too_deep" ? -32700 : status >= 500 ? -32603 : -32600;
  return { jsonrpc: "2.0", id: null, error: { code: rpc, message, data: { code } } };
}

/** Sends a JSON answer as it is, or as one SSE `message` event for an SSE-only client. */
async function render(res: Response, as: AnswerFormat): Promise<Response> {
  if (as === "json" || res.status !== 200) return res;
  const text = await res.text();
  return new Response(`event: message\ndata: ${text}\n\n`, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** Builds the server for this caller, hands it one message, and closes it when answered. */
async function dispatch(
  c: Ctx,
  opts: McpRouteOptions,
  principal: Principal,
  message: unknown,
  versionOverride?: string,
): Promise<Response> {
  const server = createMcpServer({
    // An MCP client is a model: its execute requests meet the policy floors.
    services: modelDoorServices(c.get("services")),
    principal,
    toolPrefix: opts.toolPrefix,
    tools: opts.tools,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    // The format was negotiated already; the transport answers JSON whatever the client accepts.
    const headers = new Headers(c.req.raw.headers);
    headers.set("accept", "application/json, text/event-stream");
    if (versionOverride) headers.set("mcp-protocol-version", versionOverride);
    const req = new Request(c.req.url, { method: "POST", headers });
    return await transport.handleRequest(req, { parsedBody: message });
  } finally {
    await server.close();
  }
}

/** Answers a 2025-03-26 batch: each message on its own, the answers as one array (or 202). */
async function answerBatch(
  c: Ctx,
  opts: McpRouteOptions,
  principal: Principal,
  messages: unknown[],
): Promise<Response> {
  const answers = await Promise.all(
    messages.map(async (m) => {
      const msg = m as RawMessage | null;
      const id = msg && typeof msg === "object" && "id" in msg ? msg.id : undefined;
      if (msg?.method === "initialize") {
        // 2025-03-26 "Lifecycle": the initialize request MUST NOT be part of a batch.
        return { jsonrpc: "2.0", id: id ?? null, error: invalid("initialize may not be batched") };
      }
      const res = await dispatch(c, opts, principal, m);
      if (res.status === 202) return undefined;
      const body = (await res.json()) as { id?: unknown };
      return body.id === null && id !== undefined ? { ...body, id } : body;
    }),
  );
  const out = answers.filter((a) => a !== undefined);
  if (out.length === 0) return new Response(null, { status: 202 });
  return Response.json(out, { status: 200 });
}

function invalid(message: string) {
  return { code: -32600, message: `Invalid Request: ${message}` };
}

/** Answers one modern (2026-07-28) message. */
async function answerModern(
  c: Ctx,
  opts: McpRouteOptions,
  principal: Principal,
  message: RawMessage,
): Promise<Response> {
  const refusal = checkModernRequest((name) => c.req.header(name), message);
  const id = message.id ?? null;
  if (refusal)
    return rpcError(
      refusal.status,
      refusal.error.code,
      refusal.error.message,
      id,
      refusal.error.data,
    );
  if (message.id === undefined) return new Response(null, { status: 202 });
  const method = message.method as string;
  if (method === "server/discover") {
    const result = discoverResult({ serverInfo: MCP_SERVER_INFO, instructions: MCP_INSTRUCTIONS });
    return Response.json({ jsonrpc: "2.0", id, result });
  }
  const res = await dispatch(c, opts, principal, message, SDK_VERSION);
  if (res.status !== 200) return res;
  const body = (await res.json()) as { result?: Record<string, unknown> };
  if (body.result) body.result = modernResult(method, body.result);
  return Response.json(body);
}

/** Builds the `/mcp` route group (mount it at `/mcp`). */
export function mcpRoutes(opts: McpRouteOptions) {
  const app = new Hono<AppEnv>();

  app.use("*", async (c, next) => {
    const origin = c.req.header("origin");
    if (!mcpOriginAllowed(origin, c.req.header("host"), opts.allowedOrigins)) {
      throw new ForbiddenError(
        `Origin ${origin} may not call /mcp; allow it with MCP_ALLOWED_ORIGINS`,
        "origin_not_allowed",
      );
    }
    await next();
  });

  app.on(["GET", "DELETE", "PUT", "PATCH"], "/", (c) =>
    c.json(
      {
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed: POST only (stateless server)" },
        id: null,
      },
      405,
      { Allow: "POST" },
    ),
  );

  app.post("/", async (c) => {
    const services = c.get("services");
    const token = bearer(c.req.header("authorization"));
    const principal = token ? await services.keys.authenticate(token) : undefined;
    if (!principal) {
      const base = resourceBase(opts.publicBaseUrl, c.req.url);
      throw new AppError(
        "unauthorized",
        token
          ? "Invalid, revoked or expired credentials"
          : "Send Authorization: Bearer <API key or management token>",
        { headers: { "WWW-Authenticate": mcpChallenge(base) } },
      );
    }
    const format = answerFormat(c.req.header("accept"));
    if (!format) {
      return rpcError(
        406,
        -32000,
        "Not Acceptable: Accept must allow application/json or text/event-stream",
      );
    }
    const mediaType = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (mediaType !== "application/json") {
      return rpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    }
    const body = c.req.raw.bodyUsed
      ? { tooLarge: false, text: await c.req.text() }
      : await readRequestBody(c.req.raw, opts.maxBodyBytes);
    if (body.tooLarge || body.text.length > opts.maxBodyBytes) {
      return rpcError(413, -32000, `Request body is larger than ${opts.maxBodyBytes} bytes`);
    }
    if (jsonDepthExceeds(body.text, opts.maxJsonDepth)) {
      return rpcError(
        400,
        -32700,
        `Parse error: JSON nested deeper than ${opts.maxJsonDepth} levels`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      return rpcError(400, -32700, "Parse error: Invalid JSON");
    }
    const headerVersion = c.req.header("mcp-protocol-version");

    if (Array.isArray(parsed)) {
      const version = legacyVersionOf(headerVersion, parsed);
      if (parsed.length === 0) return rpcError(400, -32600, invalid("empty batch").message);
      if (parsed.length > MAX_BATCH_MESSAGES) {
        return rpcError(
          400,
          -32600,
          invalid(`a batch holds at most ${MAX_BATCH_MESSAGES} messages`).message,
        );
      }
      const modern = parsed.some((m) => isModernMessage(headerVersion, m as RawMessage));
      if (modern || !batchesAllowed(version)) {
        return rpcError(
          400,
          -32600,
          invalid(
            `JSON-RPC batches are not supported in protocol version ${modern ? headerVersion : version}; send one message per POST`,
          ).message,
        );
      }
      return render(await answerBatch(c, opts, principal, parsed), format);
    }
    if (
      parsed &&
      typeof parsed === "object" &&
      isModernMessage(headerVersion, parsed as RawMessage)
    ) {
      return render(await answerModern(c, opts, principal, parsed as RawMessage), format);
    }
    return render(await dispatch(c, opts, principal, parsed), format);
  });

  return app;
}
