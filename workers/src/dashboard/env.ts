/**
 * Hono environment of the dashboard routes, and small helpers shared by its pages: the signed-in
 * session, form fields as strings, and redirects that carry a flash message.
 */
import type { Context } from "hono";
import type { Principal } from "../auth/principal.js";
import type { FrontDoorServices } from "../services/index.js";
import type { Flash } from "./layout.js";
import type { DashboardSession } from "./session.js";

/** Variables of dashboard requests. */
export interface DashEnv {
  Variables: {
    services: FrontDoorServices;
    principal: Principal | undefined;
    /** Set by the session middleware on every page but the sign-in form. */
    session: DashboardSession;
  };
}

/** Context of a dashboard request. */
export type DashContext = Context<DashEnv>;

/** The string fields of a submitted form (files ignored). */
export async function formOf(c: DashContext): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === "string") out[k] = v;
  return out;
}

/** Flash message of the current request (`?ok=` / `?err=` after a redirect). */
export function flashOf(c: DashContext): Flash {
  return { ok: c.req.query("ok") || undefined, err: c.req.query("err") || undefined };
}

/** 303 redirect to `path` with a flash message. */
export function redirectWith(c: DashContext, path: string, flash: Flash): Response {
  const q = new URLSearchParams();
  if (flash.ok) q.set("ok", flash.ok);
  if (flash.err) q.set("err", flash.err);
  const sep = path.includes("?") ? "&" : "?";
  return c.redirect(q.size ? `${path}${sep}${q.toString()}` : path, 303);
}

/** Common page props of a signed-in request. */
export function pageProps(c: DashContext, path: string) {
  const session = c.get("session");
  return { path, principal: session.principal, csrf: session.csrf, flash: flashOf(c) };
}
