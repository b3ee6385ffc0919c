/**
 * The caller of an A2A request as the SDK sees it: a `User` carrying Skillgate's principal, so that
 * the task store and the executor scope everything to the calling key (docs/a2a.md#tasks).
 */
import type { ServerCallContext, User } from "@a2a-js/sdk/server";
import type { Principal } from "../auth/principal.js";

/** An authenticated Skillgate caller. */
export class PrincipalUser implements User {
  constructor(readonly principal: Principal) {}

  get isAuthenticated(): boolean {
    return true;
  }

  /** `key:<id>` for an API key, `management` for the management token (scopes the SDK's buses). */
  get userName(): string {
    return this.principal.kind === "key" ? `key:${this.principal.apiKeyId}` : "management";
  }
}

/**
 * The principal of a call context.
 * @throws Error when the context carries no Skillgate user (the route always sets one).
 */
export function principalOfContext(ctx: ServerCallContext): Principal {
  const user = ctx.user;
  if (!(user instanceof PrincipalUser)) throw new Error("A2A call without an authenticated user");
  return user.principal;
}
