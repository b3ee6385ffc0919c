/**
 * Authentication middleware (docs/api.md#authentication): `Authorization: Bearer <token>` carries
 * either the management token or an API key; the keys service tells which (and refuses management
 * calls when no management token is configured — fail closed).
 */
import type { MiddlewareHandler } from "hono";
import { UnauthorizedError } from "../errors.js";
import type { AppEnv } from "../routes/context.js";
import { requireScope, scopeForRoute } from "./scopes.js";

function bearer(header: string | undefined): string | undefined {
  const m = header?.match(/^Bearer\s+(.+)$/i);
  return m?.[1]?.trim() || undefined;
}

/**
 * Requires a valid management token or API key; sets `principal`.
 * @param optional when true, anonymous requests pass with `principal` undefined, but a bad token is still a 401.
 */
export function requireAuth(optional = false): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearer(c.req.header("authorization"));
    if (!token) {
      if (optional) {
        c.set("principal", undefined);
        return next();
      }
      throw new UnauthorizedError("Send Authorization: Bearer <management token or API key>");
    }
    const principal = await c.get("services").keys.authenticate(token);
    if (!principal) throw new UnauthorizedError("Invalid, revoked or expired credentials");
    c.set("principal", principal);
    return next();
  };
}

/**
 * Enforces the scope each route declares (docs/api.md#scopes, table in `auth/scopes.ts`): an API key
 * without it gets 403 `missing_scope` naming the scope. Runs after {@link requireAuth}; anonymous
 * requests and routes that declare no scope pass through to their own checks.
 */
export function requireRouteScope(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = c.get("principal");
    const scope = scopeForRoute(c.req.method, c.req.path);
    if (principal && scope) requireScope(principal, scope);
    return next();
  };
}
