/**
 * Request metrics and the `GET /metrics` endpoint. Every answered request is reported to the
 * {@link Metrics} backend with its route pattern (never the raw path, so ids do not multiply
 * the series). `/metrics` exists only when the backend is pull-based (Prometheus on Node) and
 * answers its text exposition to `Authorization: Bearer <METRICS_TOKEN>` or the management
 * token; anything else is a 401.
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { sha256Hex, timingSafeEqualHex } from "../auth/crypto.js";
import type { Config } from "../config.js";
import { UnauthorizedError } from "../errors.js";
import type { Metrics } from "../metrics/types.js";

/** Route label of requests no route matched (404, 405, CORS preflights). */
export const UNMATCHED_ROUTE = "unmatched";

/** The route pattern that answered `c` (the last matched route that is not middleware). */
function routeOf(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i]!;
    if (route.method !== "ALL") return route.path;
  }
  return UNMATCHED_ROUTE;
}

/** Middleware reporting each answered request (method, route, status, duration) to `metrics`. */
export function observeRequests(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      metrics.observeRequest({
        method: c.req.method,
        route: routeOf(c),
        status: c.res.status,
        durationMs: performance.now() - started,
      });
    }
  };
}

/**
 * Handler of `GET /metrics` for a pull-based backend.
 * @throws UnauthorizedError unless the bearer token is `METRICS_TOKEN` or `MGMT_TOKEN`
 *   (compared as SHA-256 digests in constant time; an unset token matches nothing).
 */
export function metricsHandler(
  scrape: NonNullable<Metrics["scrape"]>,
  config: Pick<Config, "METRICS_TOKEN" | "MGMT_TOKEN">,
) {
  const accepted = Promise.all(
    [config.METRICS_TOKEN, config.MGMT_TOKEN].filter((t): t is string => !!t).map(sha256Hex),
  );
  return async (c: Context) => {
    const token = c.req
      .header("authorization")
      ?.match(/^Bearer\s+(.+)$/i)?.[1]
      ?.trim();
    if (!token) throw new UnauthorizedError("Send Authorization: Bearer <metrics token>");
    const digest = await sha256Hex(token);
    let ok = false;
    for (const expected of await accepted) ok = timingSafeEqualHex(digest, expected) || ok;
    if (!ok) throw new UnauthorizedError("Invalid metrics token");
    const { contentType, body } = await scrape();
    return c.body(body, 200, { "content-type": contentType, "cache-control": "no-store" });
  };
}
