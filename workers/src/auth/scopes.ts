/**
 * Key scopes (docs/api.md#scopes): what an API key may do. A key carries a subset of
 * {@link SCOPES}; a new key gets all of them unless it is created with fewer. The management token
 * holds every scope. Each REST route declares the scope it needs in {@link ROUTE_SCOPES}; the
 * auth layer checks it in one place ({@link scopeMiddleware}), and other front doors (proxy, MCP)
 * call {@link requireScope} with the same names.
 */
import { ForbiddenError } from "../errors.js";
import type { Principal } from "./principal.js";

/** Every scope, in documentation order. */
export const SCOPES = ["inject", "execute", "read", "skills:write", "catalog:install"] as const;

/**
 * One scope:
 * - `inject`: inject tools into requests and intercept tool calls in responses (which may run them),
 *   report upstream call outcomes for routing;
 * - `execute`: explicit executions, approving or rejecting a pending one;
 * - `read`: read the key's skills, executions, catalog listings, workspace, the Agent Skills
 *   catalog and the routing recommendation;
 * - `skills:write`: install, edit and remove the key's own skills;
 * - `catalog:install`: install skills from a catalog (SkillsMP, skills.sh).
 */
export type Scope = (typeof SCOPES)[number];

/** True when `s` is a known scope name. */
export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

/**
 * Normalises a requested scope list: known names only, no duplicates, in {@link SCOPES} order.
 * @returns the normalised list; undefined input means every scope (the default of a new key).
 */
export function normalizeScopes(scopes: readonly Scope[] | undefined): Scope[] {
  if (scopes === undefined) return [...SCOPES];
  return SCOPES.filter((s) => scopes.includes(s));
}

/**
 * Parses the stored JSON scope list of a key. Unknown names are dropped; text that is not a JSON
 * array of strings yields no scopes at all (fail closed).
 */
export function parseStoredScopes(text: string | null | undefined): Scope[] {
  if (text === null || text === undefined) return [];
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return SCOPES.filter((s) => value.includes(s));
  } catch {
    return [];
  }
}

/** True when the principal holds `scope` (management holds every scope). */
export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.kind === "management" || principal.scopes.includes(scope);
}

/**
 * Requires a scope of the caller.
 * @throws ForbiddenError 403 `missing_scope` (details `{ scope }`) when an API key lacks it.
 */
export function requireScope(principal: Principal, scope: Scope): void {
  if (hasScope(principal, scope)) return;
  throw missingScope(scope);
}

/** The 403 `missing_scope` error (details `{ scope }`) for a call that needs `scope`. */
export function missingScope(scope: Scope): ForbiddenError {
  return new ForbiddenError(
    `This API key lacks the scope "${scope}" needed for this call`,
    "missing_scope",
    { scope },
  );
}

/** The scope one REST route needs. `path` uses OpenAPI templates (`{id}` = one path segment). */
export interface RouteScope {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  scope: Scope;
}

/**
 * The scope of every REST route an API key can call. Routes missing here are management-only or
 * anonymous (`/api/keys`, `/api/settings`, `/api/health`, `/api/skills/cache/invalidate`, the
 * deletion of executions), which their handlers enforce. Static paths come before templated ones.
 */
export const ROUTE_SCOPES: readonly RouteScope[] = [
  { method: "POST", path: "/api/skills/inject", scope: "inject" },
  { method: "POST", path: "/api/skills/intercept", scope: "inject" },
  { method: "GET", path: "/api/skills/executions", scope: "read" },
  { method: "POST", path: "/api/skills/executions", scope: "execute" },
  { method: "GET", path: "/api/skills/executions/{id}", scope: "read" },
  { method: "POST", path: "/api/skills/executions/{id}/approve", scope: "execute" },
  { method: "POST", path: "/api/skills/executions/{id}/reject", scope: "execute" },
  { method: "GET", path: "/api/skills/marketplace", scope: "read" },
  { method: "GET", path: "/api/skills/skillssh", scope: "read" },
  { method: "POST", path: "/api/skills/marketplace/install", scope: "catalog:install" },
  { method: "POST", path: "/api/skills/skillssh/install", scope: "catalog:install" },
  { method: "GET", path: "/api/skills", scope: "read" },
  { method: "POST", path: "/api/skills/install", scope: "skills:write" },
  { method: "GET", path: "/api/skills/{id}", scope: "read" },
  { method: "PUT", path: "/api/skills/{id}", scope: "skills:write" },
  { method: "DELETE", path: "/api/skills/{id}", scope: "skills:write" },
  { method: "GET", path: "/api/agent-skills", scope: "read" },
  { method: "GET", path: "/api/agent-skills/{name}", scope: "read" },
  // A gateway reports its own upstream calls as it forwards requests, like injection does.
  { method: "POST", path: "/api/routing/observations", scope: "inject" },
  { method: "GET", path: "/api/routing/recommendation", scope: "read" },
];

const compiled = ROUTE_SCOPES.map((r) => ({
  ...r,
  re: new RegExp(`^${r.path.replace(/\{[^}]+\}/g, "[^/]+")}/?$`),
}));

/**
 * The scope a request needs, from {@link ROUTE_SCOPES}.
 * @param method HTTP method (any case); `HEAD` is treated as `GET`.
 * @returns the scope, or undefined for a route that declares none.
 */
export function scopeForRoute(method: string, path: string): Scope | undefined {
  const m = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
  return compiled.find((r) => r.method === m && r.re.test(path))?.scope;
}
