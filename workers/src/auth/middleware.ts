/**
 * Authentication middleware (docs/api.md#authentication): `Authorization: Bearer <token>` carries
 * either the management token (compared in constant time; when none is configured, management calls
 * are refused — fail closed) or an API key.
 */
import type { MiddlewareHandler } from "hono";
import { UnauthorizedError } from "../errors.js";
import type { AppEnv } from "../routes/context.js";
import { sha256Hex, timingSafeEqualHex } from "./crypto.js";
import type { Principal } from "./principal.js";
import { requireScope, type Scope, scopeForRoute } from "./scopes.js";

function bearer(header: string | undefined): string | undefined {
  const m = header?.match(/^Bearer\s+(.+)$/i);
  return m?.[1]?.trim() || undefined;
}

const mgmtDigests = new Map<string, Promise<string>>();

/** SHA-256 (hex) of the configured management token, computed once per token. */
function mgmtDigest(token: string): Promise<string> {
  let d = mgmtDigests.get(token);
  if (!d) {
    d = sha256Hex(token);
    mgmtDigests.set(token, d);
  }
  return d;
}

/**
 * Resolves the principal of a bearer token, or undefined when it matches nothing. The token is
 * hashed once: its SHA-256 is compared in constant time with the management token's, then used
 * to look the API key up by hash.
 */
export async function authenticate(
  token: string,
  mgmtToken: string | undefined,
  apiKeys: {
    authenticateHash(
      hash: string,
    ): Promise<{ id: string; name: string; scopes: readonly Scope[] } | null>;
  },
): Promise<Principal | undefined> {
  const hash = await sha256Hex(token);
  if (mgmtToken && timingSafeEqualHex(hash, await mgmtDigest(mgmtToken)))
    return { kind: "management" };
  const key = await apiKeys.authenticateHash(hash);
  return key ? { kind: "key", apiKeyId: key.id, name: key.name, scopes: key.scopes } : undefined;
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
    const services = c.get("services");
    const principal = await authenticate(token, services.deps.config.MGMT_TOKEN, services.apiKeys);
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
