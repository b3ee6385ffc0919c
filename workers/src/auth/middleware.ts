/**
 * Authentication middleware (SPEC §9): `Authorization: Bearer <token>` carries either the
 * management token (compared in constant time; when none is configured, management calls are
 * refused — fail closed) or an API key.
 */
import type { MiddlewareHandler } from "hono";
import { UnauthorizedError } from "../errors.js";
import type { AppEnv } from "../routes/context.js";
import { timingSafeEqualStrings } from "./crypto.js";
import type { Principal } from "./principal.js";

function bearer(header: string | undefined): string | undefined {
  const m = header?.match(/^Bearer\s+(.+)$/i);
  return m?.[1]?.trim() || undefined;
}

/** Resolves the principal of a bearer token, or undefined when it matches nothing. */
export async function authenticate(
  token: string,
  mgmtToken: string | undefined,
  apiKeys: { authenticate(key: string): Promise<{ id: string; name: string } | null> },
): Promise<Principal | undefined> {
  if (mgmtToken && (await timingSafeEqualStrings(token, mgmtToken))) return { kind: "management" };
  const key = await apiKeys.authenticate(token);
  return key ? { kind: "key", apiKeyId: key.id, name: key.name } : undefined;
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
