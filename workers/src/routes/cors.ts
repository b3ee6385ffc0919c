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
 * The CORS middleware for `origins` (from `CORS_ALLOWED_ORIGINS`), or undefined when the list
 * is empty (no CORS headers at all). `*` allows any origin.
 */
export function corsMiddleware(origins: readonly string[]): MiddlewareHandler | undefined {
  if (origins.length === 0) return undefined;
  return cors({
    origin: origins.includes("*") ? "*" : [...origins],
    allowMethods: ["GET", "HEAD", "POST", "PUT", "DELETE"],
    allowHeaders: ["Authorization", "Content-Type"],
    exposeHeaders: ["Retry-After", "Allow"],
    maxAge: CORS_MAX_AGE_S,
    credentials: false,
  });
}
