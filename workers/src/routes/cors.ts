/**
 * CORS for browser clients (Fetch standard, "CORS protocol"), with hono's `cors` middleware.
 * Mounted before authentication, so a preflight (`OPTIONS` with `Access-Control-Request-Method`)
 * is answered 204 without credentials; the actual request still needs its bearer token.
 * Credentials mode is off: the API authenticates with the `Authorization` header, never cookies.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";

/** How long a browser may cache a preflight answer, in seconds. */
export const CORS_MAX_AGE_S = 600;

/**
 * Request headers a browser may send: the API's, and those of MCP's Streamable HTTP transport
 * (MCP 2025-11-25 "Transports"; `Mcp-Method` and `Mcp-Name` of 2026-07-28) so that browser MCP
 * clients can call `/mcp` (docs/mcp.md#cors).
 */
export const CORS_ALLOW_HEADERS = [
  "Authorization",
  "Content-Type",
  "Accept",
  "MCP-Protocol-Version",
  "Mcp-Session-Id",
  "Last-Event-ID",
  "Mcp-Method",
  "Mcp-Name",
] as const;

/**
 * Response headers a browser lets the page read: `Retry-After`, `Allow`, and MCP's
 * (`WWW-Authenticate` carries the `resource_metadata` URL of a 401).
 */
export const CORS_EXPOSE_HEADERS = [
  "Retry-After",
  "Allow",
  "WWW-Authenticate",
  "MCP-Protocol-Version",
  "Mcp-Session-Id",
] as const;

/**
 * The CORS middleware for `origins` (from `CORS_ALLOWED_ORIGINS`), or undefined when the list
 * is empty (no CORS headers at all). `*` allows any origin.
 */
export function corsMiddleware(origins: readonly string[]): MiddlewareHandler | undefined {
  if (origins.length === 0) return undefined;
  return cors({
    origin: origins.includes("*") ? "*" : [...origins],
    allowMethods: ["GET", "HEAD", "POST", "PUT", "DELETE"],
    allowHeaders: [...CORS_ALLOW_HEADERS],
    exposeHeaders: [...CORS_EXPOSE_HEADERS],
    maxAge: CORS_MAX_AGE_S,
    credentials: false,
  });
}
