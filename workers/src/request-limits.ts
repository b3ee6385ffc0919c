/**
 * The one request limit of the app (docs/limits.md), a middleware in front of every route — REST,
 * the provider-compatible proxy, MCP, A2A, the dashboard's forms, unknown paths and any route
 * added later — applied before any handler reads the body (on `/api/*` after the bearer check, so
 * an anonymous caller has nothing read there):
 * - body size: each route's limit comes from {@link BODY_LIMIT_ROUTES} (`MAX_BODY_BYTES` for every
 *   route not listed). A declared `Content-Length` over it is refused without reading; every
 *   body, declared or chunked, is then read here chunk by chunk and refused as soon as the bytes
 *   received pass the limit, so no more than the limit is ever held (a declared length is not
 *   trusted: a caller inside workerd can send more than it declares). Refused: 413
 *   `payload_too_large`, and nothing is written;
 * - nesting depth of a JSON body (`MAX_JSON_DEPTH`), measured on the bytes as they arrive, before
 *   validation or any recursive code runs: deeper answers 400 `json_too_deep`. Every body except a
 *   form (`application/x-www-form-urlencoded`, `multipart/form-data`) is measured, whatever its
 *   declared type, because the proxy, MCP and A2A parse JSON without looking at the type.
 * The handlers then read the complete body from memory. Only Web APIs are used (Workers and Node).
 * Behind Node's HTTP server a body with a declared length is read in one piece instead (the
 * adapter's direct read, without a web stream): Node's parser never delivers more bytes than the
 * declared length, which was checked first, so no more than the limit is held either. The bytes
 * are then left in Hono's body cache, which `c.req.text()`/`json()`/`parseBody()` answer from,
 * instead of a new request over them (handlers read bodies through those methods, never through
 * `c.req.raw`).
 */
import type { MiddlewareHandler } from "hono";
import type { Config } from "./config.js";
import { AppError, InvalidInputError, PayloadTooLargeError } from "./errors.js";
import { JsonDepthScanner } from "./json-depth.js";

/** The configuration variables that size a request body. */
export type BodyLimitVariable =
  | "MAX_BODY_BYTES"
  | "MAX_BODY_BYTES_EXECUTE"
  | "MAX_BODY_BYTES_INJECT"
  | "MAX_BODY_BYTES_INTERCEPT";

/** A route with a body limit of its own: method, Hono path pattern (`:name` is one segment). */
export interface BodyLimitRoute {
  method: string;
  path: string;
  variable: BodyLimitVariable;
}

/**
 * Routes with a limit of their own; every other route has `MAX_BODY_BYTES`. The proxy takes
 * whole conversations, as inject does; an MCP `tools/call` can carry an execution's input, as
 * `POST /api/skills/executions` does.
 */
export const BODY_LIMIT_ROUTES: readonly BodyLimitRoute[] = [
  { method: "POST", path: "/api/skills/executions", variable: "MAX_BODY_BYTES_EXECUTE" },
  { method: "POST", path: "/api/skills/inject", variable: "MAX_BODY_BYTES_INJECT" },
  { method: "POST", path: "/api/skills/intercept", variable: "MAX_BODY_BYTES_INTERCEPT" },
  { method: "POST", path: "/v1/chat/completions", variable: "MAX_BODY_BYTES_INJECT" },
  { method: "POST", path: "/v1/responses", variable: "MAX_BODY_BYTES_INJECT" },
  { method: "POST", path: "/v1/messages", variable: "MAX_BODY_BYTES_INJECT" },
  { method: "POST", path: "/v1beta/models/:target", variable: "MAX_BODY_BYTES_INJECT" },
  { method: "POST", path: "/mcp", variable: "MAX_BODY_BYTES_EXECUTE" },
];

const utf8 = new TextDecoder();

/** Media types of HTML forms: their fields are text, never parsed as JSON. */
const FORM_MEDIA_TYPE = /^(application\/x-www-form-urlencoded|multipart\/form-data)$/i;

/** Whether `path` matches the pattern `pattern` (`:name` matches one non-empty segment). */
function matches(pattern: string, path: string): boolean {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return false;
  return want.every((seg, i) => (seg.startsWith(":") ? got[i] !== "" : seg === got[i]));
}

/**
 * The body limit of a request, in bytes, and the variable that sets it.
 * @param method HTTP method; @param path request path.
 */
export function bodyLimitFor(
  config: Config,
  method: string,
  path: string,
): { bytes: number; variable: BodyLimitVariable } {
  const m = method.toUpperCase();
  const route = BODY_LIMIT_ROUTES.find((r) => r.method === m && matches(r.path, path));
  const variable = route?.variable ?? "MAX_BODY_BYTES";
  return { bytes: config[variable], variable };
}

function tooLarge(bytes: number, variable: BodyLimitVariable): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `Request body is larger than ${bytes} bytes, the limit of this route (${variable})`,
    { maxBytes: bytes },
  );
}

function tooDeep(maxDepth: number): InvalidInputError {
  return new InvalidInputError(
    `JSON body is nested deeper than ${maxDepth} levels (MAX_JSON_DEPTH)`,
    { maxDepth },
    "json_too_deep",
  );
}

/**
 * The connection ended before the body did: nobody waits for an answer, and the request is not a
 * fault of the app (499, never a 500).
 */
function clientClosed(cause: unknown): AppError {
  return new AppError(
    "client_closed",
    "The client closed the connection before its request body arrived",
    { cause },
  );
}

/**
 * Reads `body` whole, refusing it once it passes `maxBytes` or (with a scanner) nests too deep.
 * A refused body is left unread, not cancelled: the serving layer discards the rest after the
 * answer, so a client still sending can read the refusal (docs/limits.md#reading-the-refusal).
 * @throws PayloadTooLargeError past the size; InvalidInputError `json_too_deep` past the depth;
 *   AppError `client_closed` (499) when the body ends in an error (the client went away).
 */
async function readLimited(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  variable: BodyLimitVariable,
  depth: JsonDepthScanner | null,
  maxDepth: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const reader = body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        throw clientClosed(err);
      }
      const { done, value } = chunk;
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw tooLarge(maxBytes, variable);
      if (depth?.push(value)) throw tooDeep(maxDepth);
      chunks.push(value as Uint8Array<ArrayBuffer>);
    }
  } finally {
    reader.releaseLock();
  }
  if (chunks.length === 1) return chunks[0]!;
  const whole = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return whole;
}

/**
 * Middleware enforcing the body size and JSON depth limits on every request (see the module
 * docstring). Mount it once, with `app.use("*", …)`, before the routes.
 * @throws PayloadTooLargeError (413) past the size limit; InvalidInputError `json_too_deep` (400)
 *   past the depth limit.
 */
export function requestLimits(
  config: Config,
  opts: { nodeServer?: boolean } = {},
): MiddlewareHandler {
  return async (c, next) => {
    const { bytes, variable } = bodyLimitFor(config, c.req.method, c.req.path);
    const declared = c.req.raw.headers.get("content-length");
    // Checked even when the runtime hands the app no body (GET, HEAD): nothing is read then.
    if (declared !== null && Number(declared) > bytes) throw tooLarge(bytes, variable);
    const mediaType = (c.req.raw.headers.get("content-type") ?? "").split(";")[0]!.trim();
    const depth = FORM_MEDIA_TYPE.test(mediaType)
      ? null
      : new JsonDepthScanner(config.MAX_JSON_DEPTH);
    if (declared !== null && opts.nodeServer && behindNodeServer(c.env)) {
      // The parser stops at the declared length (checked above): one direct read, no stream.
      if (c.req.method === "GET" || c.req.method === "HEAD") return next();
      let whole: Uint8Array<ArrayBuffer>;
      try {
        whole = new Uint8Array(await c.req.raw.arrayBuffer());
      } catch (err) {
        throw clientClosed(err);
      }
      if (whole.byteLength > bytes) throw tooLarge(bytes, variable);
      if (depth?.push(whole)) throw tooDeep(config.MAX_JSON_DEPTH);
      // The handlers read it through Hono's request methods (`c.req.text()`, `json()`,
      // `parseBody()`), which answer from this cache; the raw request's body is spent.
      // (Hono keeps the promises of the reads there, whatever its type says.)
      const cache = c.req.bodyCache as Record<string, Promise<unknown>>;
      cache.arrayBuffer = Promise.resolve(whole.buffer);
      cache.text = Promise.resolve(utf8.decode(whole));
      return next();
    }
    let body: ReadableStream<Uint8Array> | null;
    try {
      body = c.req.raw.body;
    } catch (err) {
      // Node's adapter cannot open the body of a connection that is already gone.
      throw clientClosed(err);
    }
    if (!body) return next();
    const whole = await readLimited(body, bytes, variable, depth, config.MAX_JSON_DEPTH);
    const headers = new Headers(c.req.raw.headers);
    headers.delete("transfer-encoding");
    headers.set("content-length", String(whole.byteLength));
    // A new request over the bytes read (not over the original, which would first be turned
    // into a full web request only to be replaced), following the client's disconnect.
    c.req.raw = new Request(c.req.url, {
      method: c.req.method,
      headers,
      body: whole,
      signal: c.req.raw.signal,
    });
    await next();
  };
}

/** True when the request came through Node's HTTP server (the adapter passes its objects). */
function behindNodeServer(env: unknown): boolean {
  return typeof env === "object" && env !== null && "incoming" in env && "outgoing" in env;
}
