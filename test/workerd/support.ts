/**
 * Helpers for the workerd tests (runs inside workerd): JSON calls through the Worker entry's
 * `fetch` (the `exports.default` loopback of workers/src/runtime/worker/index.ts) and a direct libSQL client
 * over HTTP to the same database the Worker uses.
 */
import { env, exports } from "cloudflare:workers";
import { type Client, createClient } from "@libsql/client/web";

/** Origin of the requests sent to the Worker (any host reaches it). */
export const ORIGIN = "https://skillgate.test";

/** A JSON answer of the Worker. */
export interface JsonResponse {
  status: number;
  body: any;
  headers: Headers;
}

/** Options of {@link call}. */
export interface CallOptions {
  /** JSON-encoded unless a string; omitted when undefined. */
  body?: unknown;
  /** Bearer token; default the bound management token; `null` sends none. */
  token?: string | null;
}

/** Decodes a Worker response: JSON when it parses, text otherwise. */
export async function readJson(res: Response): Promise<JsonResponse> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: keep the text.
  }
  return { status: res.status, body, headers: res.headers };
}

/** Builds a request to the Worker. */
export function buildRequest(method: string, path: string, opts: CallOptions = {}): Request {
  const headers = new Headers();
  const token = opts.token === undefined ? env.MGMT_TOKEN : opts.token;
  if (token) headers.set("authorization", `Bearer ${token}`);
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers.set("content-type", "application/json");
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
  }
  return new Request(ORIGIN + path, { method, headers, body });
}

/**
 * Sends one request through the Worker entry (`exports.default.fetch`).
 * @param method HTTP method; @param path path and query, e.g. `/api/skills?q=x`.
 */
export async function call(
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<JsonResponse> {
  return readJson(await exports.default.fetch(buildRequest(method, path, opts)));
}

/** Creates an API key through the API. @returns the key (shown once) and its id. */
export async function createKey(name: string): Promise<{ key: string; id: string }> {
  const res = await call("POST", "/api/keys", { body: { name } });
  if (res.status !== 201)
    throw new Error(`POST /api/keys: ${res.status} ${JSON.stringify(res.body)}`);
  return { key: res.body.key, id: res.body.apiKey.id };
}

/** A `name`-unique install body in the shape of the README's example (`echo-handler`). */
export function installBody(
  name: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    version: "1.0.0",
    description: "Reverses a string",
    schema: {
      input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      output: { type: "object", properties: { text: { type: "string" } } },
    },
    handlerCode: "echo-handler",
    ...extra,
  };
}

/** A libSQL client over HTTP to the Worker's database (the test Hrana server). */
export function directDb(): Client {
  return createClient({ url: env.LIBSQL_URL });
}
