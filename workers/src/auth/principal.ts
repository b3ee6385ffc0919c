/**
 * Who is calling (docs/api.md#acting-for-a-key): the management token holder, or an API key. A key
 * can never act for another key; management may act for a key by naming its `apiKeyId`.
 */
import { ForbiddenError, UnauthorizedError } from "../errors.js";
import type { Scope } from "./scopes.js";

/** The authenticated caller. A key carries its scopes (docs/api.md#scopes); management has all. */
export type Principal =
  | { kind: "management" }
  | { kind: "key"; apiKeyId: string; name: string; scopes: readonly Scope[] };

/**
 * The key a request acts for.
 * @param requested the `apiKeyId` named in the request, if any.
 * @returns the caller's own key for a key caller; for management, `requested` or null (global).
 * @throws ForbiddenError when a key names another key's id.
 */
export function actingKey(
  principal: Principal,
  requested: string | null | undefined,
): string | null {
  if (principal.kind === "key") {
    if (requested !== undefined && requested !== null && requested !== principal.apiKeyId) {
      throw new ForbiddenError("An API key cannot act for another key", "forbidden_api_key");
    }
    return principal.apiKeyId;
  }
  return requested ?? null;
}

/**
 * Requires the management token (README "Errors": bad credentials 401, valid credentials without
 * the right 403).
 * @throws UnauthorizedError `unauthorized` without credentials; ForbiddenError
 *   `management_required` for a valid API key.
 */
export function requireManagement(principal: Principal | undefined): void {
  if (principal === undefined) throw new UnauthorizedError();
  if (principal.kind !== "management") {
    throw new ForbiddenError(
      "This endpoint needs the management token; an API key cannot use it",
      "management_required",
    );
  }
}

/** True when the caller may see or act on a resource owned by `ownerKeyId` (null = global / management-owned). */
export function canAccessOwned(principal: Principal, ownerKeyId: string | null): boolean {
  return principal.kind === "management" || ownerKeyId === principal.apiKeyId;
}
