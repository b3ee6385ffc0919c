/**
 * The A2A agent (docs/a2a.md), built on the official SDK (`@a2a-js/sdk`: its request handler,
 * JSON-RPC transport handlers and protocol types; no Express):
 * - `GET /.well-known/agent-card.json`: the agent card (public);
 * - `POST /a2a`: JSON-RPC. With `A2A-Version: 1.0` the protocol 1.0 methods (`SendMessage`,
 *   `SendStreamingMessage`, `GetTask`, `ListTasks`, `CancelTask`, `SubscribeToTask`); without the
 *   header (or with `0.3`) the protocol 0.3 methods (`message/send`, `message/stream`, `tasks/get`,
 *   `tasks/cancel`, `tasks/resubscribe`). Streaming methods answer Server-Sent Events.
 * Auth: `Authorization: Bearer` with an API key or the management token; without valid credentials
 * 401 with `WWW-Authenticate: Bearer`. Tasks are stored in the database, scoped to the caller.
 */
import { A2A_VERSION_HEADER, AgentCard, formatSSEErrorEvent, formatSSEEvent } from "@a2a-js/sdk";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import {
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
} from "@a2a-js/sdk/server";
import { Hono } from "hono";
import { requireScope } from "../auth/scopes.js";
import { UnauthorizedError } from "../errors.js";
import type { AppEnv } from "../routes/context.js";
import { type FrontDoorServices, modelDoorServices } from "../services/index.js";
import { buildAgentCard } from "./card.js";
import { SkillgateAgentExecutor } from "./executor.js";
import type { A2ASkillRegistry } from "./skills.js";
import { DbTaskStore } from "./task-store.js";
import { PrincipalUser } from "./user.js";

/** Options of {@link a2aRoutes}. */
export interface A2ARouteOptions {
  services: FrontDoorServices;
  skills: A2ASkillRegistry;
}

const LEGACY_VERSION = "0.3";

function bearer(header: string | undefined): string | undefined {
  const m = header?.match(/^Bearer\s+(.+)$/i);
  return m?.[1]?.trim() || undefined;
}

/** The `id` of a JSON-RPC request text, or null. */
function requestId(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && "id" in parsed ? parsed.id : null;
  } catch {
    return null;
  }
}

type RpcAnswer =
  | Awaited<ReturnType<JsonRpcTransportHandler["handle"]>>
  | Awaited<ReturnType<LegacyJsonRpcTransportHandler["handle"]>>;
type RpcStream = Extract<RpcAnswer, AsyncGenerator<unknown, void, undefined>>;

function isStream(v: RpcAnswer): v is RpcStream {
  return typeof (v as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";
}

/** An SSE response over the JSON-RPC answers of a stream; a failure ends it with an error event. */
function sseResponse(
  events: RpcStream,
  id: unknown,
  mapError: (err: unknown) => unknown,
): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await events.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
      } catch (err) {
        const error = { jsonrpc: "2.0", id: id ?? null, error: mapError(err) };
        controller.enqueue(encoder.encode(formatSSEErrorEvent(error)));
        controller.close();
      }
    },
    async cancel() {
      await events.return(undefined);
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** Builds the A2A routes (mount at `/`). Also returns the executor, whose `settled()` a Worker awaits. */
export function a2aRoutes(opts: A2ARouteOptions) {
  const app = new Hono<AppEnv>();
  // A2A callers are agents: the skills they run see the model view of the services.
  const executor = new SkillgateAgentExecutor(modelDoorServices(opts.services), opts.skills);
  // The handler's card only serves version checks: the URL of the served card is per request.
  const cardFor = (base: string) => buildAgentCard(base, opts.skills.list());
  const handler = new DefaultRequestHandler(
    cardFor("http://localhost"),
    new DbTaskStore(opts.services.tasks),
    executor,
  );
  const v1 = new JsonRpcTransportHandler(handler);
  const legacy = new LegacyJsonRpcTransportHandler(handler);

  app.get("/.well-known/agent-card.json", (c) => {
    return c.json(AgentCard.toJSON(cardFor(new URL(c.req.url).origin)) as Record<string, unknown>);
  });

  app.post("/a2a", async (c) => {
    const token = bearer(c.req.header("authorization"));
    const principal = token ? await opts.services.keys.authenticate(token) : undefined;
    if (!principal)
      throw new UnauthorizedError(
        token
          ? "Invalid, revoked or expired credentials"
          : "Send Authorization: Bearer <API key or management token>",
      );
    // Every A2A skill reads what the key may see (docs/a2a.md#json-rpc): a key without the
    // `read` scope gets the same 403 `missing_scope` as on REST, before the JSON-RPC layer.
    requireScope(principal, "read");
    const requested = c.req.header(A2A_VERSION_HEADER) || undefined;
    const useLegacy = (requested ?? LEGACY_VERSION) === LEGACY_VERSION;
    const mapError = useLegacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
      : JsonRpcTransportHandler.mapToJSONRPCError;
    const text = await c.req.text();
    const context = new ServerCallContext({
      user: new PrincipalUser(principal),
      requestedVersion: requested,
    });
    let answer: RpcAnswer;
    try {
      validateVersion(context.requestedVersion, cardFor("http://localhost"), "JSONRPC");
      answer = await (useLegacy ? legacy : v1).handle(text, context);
    } catch (err) {
      return c.json({ jsonrpc: "2.0", id: null, error: mapError(err) }, 200);
    }
    try {
      c.executionCtx.waitUntil(executor.settled());
    } catch {
      // Node has no execution context: background work simply continues in the process.
    }
    if (isStream(answer)) return sseResponse(answer, requestId(text), mapError);
    return c.json(answer as Record<string, unknown>, 200);
  });

  return { app, executor };
}
