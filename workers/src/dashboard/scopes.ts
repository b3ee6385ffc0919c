/**
 * The API key scope each dashboard page and form needs (docs/dashboard.md#scopes), the same names
 * as the REST routes (docs/api.md#scopes): reading pages need `read`, approve / reject need
 * `execute`, installing from a catalog needs `catalog:install`, a key's own limits and usage page
 * needs `read`. Skill editing, settings, limits and API keys are management-only and checked by
 * their handlers. Management holds every scope.
 */
import type { Scope } from "../auth/scopes.js";

/** One dashboard route and its scope; `path` is below `/dashboard`, `:x` matches one segment. */
interface DashboardRouteScope {
  method: "GET" | "POST";
  path: string;
  scope: Scope;
}

/** Every dashboard route an API key may use, with its scope. */
export const DASHBOARD_SCOPES: readonly DashboardRouteScope[] = [
  { method: "GET", path: "/", scope: "read" },
  { method: "GET", path: "/executions", scope: "read" },
  { method: "GET", path: "/executions/:id", scope: "read" },
  { method: "POST", path: "/executions/:id/approve", scope: "execute" },
  { method: "POST", path: "/executions/:id/reject", scope: "execute" },
  { method: "GET", path: "/skills", scope: "read" },
  { method: "GET", path: "/skills/:id", scope: "read" },
  { method: "GET", path: "/catalogs", scope: "read" },
  { method: "GET", path: "/catalogs/view", scope: "read" },
  { method: "POST", path: "/catalogs/install", scope: "catalog:install" },
  { method: "GET", path: "/keys/:id", scope: "read" },
];

const compiled = DASHBOARD_SCOPES.map((r) => ({
  ...r,
  re: new RegExp(`^${r.path === "/" ? "" : r.path.replace(/:[^/]+/g, "[^/]+")}/?$`),
}));

/**
 * The scope a dashboard request needs.
 * @param path the request path below `/dashboard` (`/dashboard/executions` → `/executions`).
 * @returns the scope, or undefined when the route declares none (`HEAD` counts as `GET`).
 */
export function dashboardScope(method: string, path: string): Scope | undefined {
  const m = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
  return compiled.find((r) => r.method === m && r.re.test(path))?.scope;
}
