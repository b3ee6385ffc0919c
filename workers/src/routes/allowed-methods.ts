/**
 * Which methods a path supports, for `405 Method Not Allowed` answers with an `Allow` header
 * (RFC 9110 §15.5.6): a request whose path matches a route under another method is a 405, not
 * a 404.
 */

/** A registered route as Hono lists it in `app.routes`. */
export interface RouteEntry {
  method: string;
  path: string;
}

interface CompiledRoute {
  method: string;
  pattern: RegExp;
}

const escapeRegExp = (s: string) => s.replace(/[.+?^$()[\]\\|]/g, "\\$&");

/**
 * Turns a Hono path (`/api/skills/:id`, `:name{regex}`, `*`) into an anchored regular
 * expression over the request path.
 */
function compile(path: string): RegExp {
  const parts = path.split("/").map((segment) => {
    if (segment === "*") return ".*";
    const param = segment.match(/^:[A-Za-z0-9_]+(?:\{(.+)\})?(\?)?$/);
    if (param) return param[1] ? `(?:${param[1]})` : "[^/]+";
    return escapeRegExp(segment).replace(/\*/g, ".*");
  });
  return new RegExp(`^${parts.join("/")}/?$`);
}

/**
 * Builds a lookup over `routes` (read on first use, so routes added while the app is assembled
 * count). Middleware (`ALL`) does not count as a route.
 * @returns a function from a request path to its methods, sorted, with `HEAD` wherever `GET` is
 *   (empty when no route matches the path).
 */
export function allowedMethodsOf(routes: () => readonly RouteEntry[]): (path: string) => string[] {
  let compiled: CompiledRoute[] | undefined;
  return (path) => {
    compiled ??= routes()
      .filter((r) => r.method !== "ALL")
      .map((r) => ({ method: r.method.toUpperCase(), pattern: compile(r.path) }));
    const methods = new Set<string>();
    for (const r of compiled) if (r.pattern.test(path)) methods.add(r.method);
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };
}
