/**
 * Builtin `http_request` (docs/outbound.md): method allowlist, header stripping, no
 * redirects followed, public addresses only (outbound guard), body cut at the cap with
 * `truncated: true`, and a time limit.
 */
import { z } from "zod";
import { ExecutionFailure } from "../../errors.js";
import { createFetchConnector } from "../../outbound/fetch-connector.js";
import { guardOutboundUrl } from "../../outbound/guard.js";
import type { OutboundResponse } from "../../outbound/types.js";
import type { HandlerContext, SkillHandler } from "../types.js";
import { bytesToBase64, concatBytes, utf8Encode } from "./bytes.js";
import { inputSchemaOf } from "./input-schema.js";
import type { BuiltinDefinition, BuiltinHandlerFactory } from "./types.js";

/** Methods `http_request` may use (docs/outbound.md#the-request). */
export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/**
 * Outgoing headers removed before sending: the fixed list (`host`, `connection`,
 * `content-length`, `cookie`, `set-cookie`, `authorization`, `proxy-authorization`) plus the other
 * hop-by-hop headers of RFC 9110 §7.6.1, which only the connection layer may set
 * (docs/outbound.md#the-request).
 */
export const STRIPPED_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "connection",
  "content-length",
  "cookie",
  "set-cookie",
  "authorization",
  "proxy-authorization",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "keep-alive",
  "proxy-connection",
]);

/** Default time limit of one request, in ms. */
export const DEFAULT_HTTP_TIMEOUT_MS = 15_000;
/** Largest time limit a call may ask for, in ms. */
export const MAX_HTTP_TIMEOUT_MS = 60_000;
/** Time the executor waits past the limit for the handler to report its own timeout, in ms. */
const HTTP_REPORT_GRACE_MS = 2_000;

/**
 * Input of `http_request`, also its advertised schema (docs/outbound.md#the-request). The
 * advertised `method` is the upper-case enum, which the API checks before the handler runs; the
 * handler itself upper-cases a method given in another case.
 */
export const httpRequestInput = z.object({
  url: z.string().min(1).describe("Absolute http or https URL."),
  method: z
    .preprocess((m) => (typeof m === "string" ? m.toUpperCase() : m), z.enum(HTTP_METHODS))
    .default("GET")
    .describe("Default GET."),
  headers: z
    .record(z.string(), z.string())
    .default({})
    .describe("Request headers (credentials and hop-by-hop headers are removed)."),
  body: z.string().optional().describe("Request body (not with GET or HEAD)."),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(MAX_HTTP_TIMEOUT_MS)
    .optional()
    .describe(`Time limit in ms (default ${DEFAULT_HTTP_TIMEOUT_MS}).`),
  maxBytes: z.number().int().min(1).optional().describe("Cap on the returned body bytes."),
});

/** Result of `http_request`. `body` is UTF-8 text, or base64 when `bodyEncoding` says so. */
export interface HttpRequestResult {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
  bodyEncoding: "utf8" | "base64";
  truncated: boolean;
  /** The URL requested, normalised (redirects are not followed, so it is also the final one). */
  url: string;
}

/** Declaration of `http_request` (policy `auto`; docs/registry.md#builtins). */
export const httpRequestDefinitions: BuiltinDefinition[] = [
  {
    name: "http_request",
    description:
      "Make an HTTP request to a public URL and return status, headers and body. Redirects are not followed; private addresses are refused.",
    inputSchema: inputSchemaOf(httpRequestInput),
    policy: "auto",
    mode: "auto",
    tags: ["http", "request", "fetch", "url", "api", "web"],
    timing: () => ({
      limitFromInput: (input) => {
        const t = (input as { timeoutMs?: unknown } | null)?.timeoutMs;
        return typeof t === "number" && t > 0 ? t : undefined;
      },
      defaultLimitMs: DEFAULT_HTTP_TIMEOUT_MS,
      maxLimitMs: MAX_HTTP_TIMEOUT_MS,
      graceMs: HTTP_REPORT_GRACE_MS,
    }),
  },
];

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function outgoingHeaders(input: Record<string, string>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(input)) {
    const key = name.trim().toLowerCase();
    if (!TOKEN.test(key)) {
      throw new ExecutionFailure(`Invalid header name \`${name}\``, { code: "invalid_input" });
    }
    if (/[\0\r\n]/.test(value)) {
      throw new ExecutionFailure(`Header \`${name}\` contains a line break or NUL`, {
        code: "invalid_input",
      });
    }
    if (!STRIPPED_HEADERS.has(key)) out.push([key, value]);
  }
  return out;
}

function isTextual(contentType: string | undefined): boolean {
  if (!contentType) return true;
  const t = contentType.toLowerCase();
  return (
    t.startsWith("text/") ||
    /[/+](json|xml|javascript|ecmascript|x-www-form-urlencoded|yaml|csv|html)\b/.test(t) ||
    t.includes("charset=")
  );
}

/**
 * Reads a body up to `cap` bytes; stops reading (and cancels the transfer) as soon as more
 * arrives. `truncated` is true only when the body really is longer than `cap`.
 */
export async function readCapped(
  res: OutboundResponse,
  cap: number,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; truncated: boolean }> {
  if (!res.body) return { bytes: new Uint8Array(0), truncated: false };
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  try {
    for await (const chunk of res.body) {
      chunks.push(chunk);
      total += chunk.length;
      if (total > cap) {
        truncated = true;
        break;
      }
    }
  } finally {
    res.cancel();
  }
  return { bytes: concatBytes(chunks, Math.min(total, cap)), truncated };
}

/**
 * Builds the `http_request` handler. Uses `deps.outbound.resolve` (names resolved and checked;
 * absent in the Worker) and `deps.outbound.connect` (default: fetch with `redirect: "manual"`).
 * With `deps.runtime === "node"` both are required (`createNodeOutbound()`); without them every
 * call fails with `outbound_not_configured` rather than fetching names unchecked.
 * Effective body cap: min(`maxBytes`, `SKILLS_MAX_HTTP_RESPONSE_BYTES`); time limit:
 * min(`timeoutMs` ?? 15 s, the executor's remaining budget), covering resolution, connection
 * and reading. Errors (ExecutionFailure): `invalid_input`, `invalid_url`, `outbound_blocked`,
 * `dns_failed`, `http_failed`, `outbound_not_configured`, and status `timeout` with code `http_timeout`.
 */
export const createHttpRequestHandlers: BuiltinHandlerFactory = (deps) => {
  const connect = deps.outbound?.connect ?? createFetchConnector();
  const resolve = deps.outbound?.resolve;
  const configCap = deps.config.SKILLS_MAX_HTTP_RESPONSE_BYTES;

  const handler: SkillHandler = async (input, ctx: HandlerContext): Promise<HttpRequestResult> => {
    if (deps.runtime === "node" && !(resolve && deps.outbound?.connect)) {
      // Fail closed: without the resolver and the pinning connector, Node would fetch names
      // unchecked (the Worker's platform egress rules do not apply there).
      throw new ExecutionFailure(
        "http_request is not configured: the Node entry must pass createNodeOutbound() as deps.outbound",
        { code: "outbound_not_configured" },
      );
    }
    const parsed = httpRequestInput.safeParse(input);
    if (!parsed.success) {
      const where = parsed.error.issues.map((i) => i.path.join(".") || "input").join(", ");
      throw new ExecutionFailure(`Invalid http_request input: ${where}`, { code: "invalid_input" });
    }
    const args = parsed.data;
    if (args.body !== undefined && (args.method === "GET" || args.method === "HEAD")) {
      throw new ExecutionFailure(`A ${args.method} request cannot have a body`, {
        code: "invalid_input",
      });
    }
    const headers = outgoingHeaders(args.headers);
    const cap = Math.min(args.maxBytes ?? configCap, configCap);
    const budget = ctx.timeoutMs > 0 ? ctx.timeoutMs : DEFAULT_HTTP_TIMEOUT_MS;
    const limitMs = Math.min(args.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS, budget);
    const timer = AbortSignal.timeout(limitMs);
    const signal = AbortSignal.any([ctx.signal, timer]);

    try {
      const target = await guardOutboundUrl(args.url, { resolve, signal });
      const res = await connect({
        url: target.url,
        method: args.method,
        headers,
        body: args.body === undefined ? undefined : utf8Encode(args.body),
        addresses: target.addresses,
        signal,
      });
      const { bytes, truncated } = await readCapped(res, cap);
      const headerMap = new Map<string, string>();
      for (const [name, value] of res.headers) {
        const prev = headerMap.get(name);
        headerMap.set(name, prev === undefined ? value : `${prev}, ${value}`);
      }
      const textual = isTextual(headerMap.get("content-type"));
      return {
        status: res.status,
        statusText: res.statusText,
        headers: Object.fromEntries(headerMap),
        // stream: true keeps an incomplete trailing UTF-8 sequence (cut by the cap) out of the text.
        body: textual
          ? new TextDecoder().decode(bytes, { stream: truncated })
          : bytesToBase64(bytes),
        bodyEncoding: textual ? "utf8" : "base64",
        truncated,
        url: target.url.href,
      };
    } catch (err) {
      if (err instanceof ExecutionFailure) throw err;
      if (timer.aborted) {
        throw new ExecutionFailure(`http_request timed out after ${limitMs} ms`, {
          status: "timeout",
          code: "http_timeout",
        });
      }
      if (ctx.signal.aborted) throw err;
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      const code = (err as { code?: string }).code ?? cause;
      throw new ExecutionFailure(
        `http_request failed: ${(err as Error).message}${code ? ` (${code})` : ""}`,
        { code: "http_failed", cause: err },
      );
    }
  };

  return { http_request: handler };
};
