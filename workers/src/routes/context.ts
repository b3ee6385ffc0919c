/**
 * Hono environment shared by every route group: the authenticated principal and the services
 * (the application layer; routes call nothing below it).
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Principal } from "../auth/principal.js";
import { InvalidInputError } from "../errors.js";
import type { FrontDoorServices } from "../services/index.js";

/** Variables set by the app's middleware. */
export interface AppEnv {
  Variables: {
    services: FrontDoorServices;
    /** Undefined only on routes that allow anonymous access (`/api/health`). */
    principal: Principal | undefined;
    /**
     * Keeps the runtime alive for `promise` after the answer (the Worker's `waitUntil`);
     * undefined where the process simply goes on (Node).
     */
    waitUntil?: (promise: Promise<unknown>) => void;
  };
}

/**
 * A route group whose zod validation failures become 400 `invalid_input` errors naming the
 * failing fields (`details: [{ field, message }]`).
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const details = result.error.issues.map((i) => ({
          field: i.path.length ? i.path.join(".") : result.target,
          message: i.message,
        }));
        const where = result.target === "json" ? "body" : result.target;
        throw new InvalidInputError(
          `Invalid ${where}: ${details.map((d) => `${d.field} (${d.message})`).join(", ")}`,
          details,
        );
      }
    },
  });
}

/** The principal of an authenticated route (the auth middleware guarantees it). */
export function principalOf(c: { get(key: "principal"): Principal | undefined }): Principal {
  const p = c.get("principal");
  if (!p) throw new Error("route mounted without authentication");
  return p;
}
