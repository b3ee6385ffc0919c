/**
 * Dashboard sessions (docs/dashboard.md#signing-in-and-sessions): a signed, expiring cookie that names the
 * principal and carries a session id and a per-session CSRF token. It never holds the token the
 * operator signed in with. Sign-out ends the session on the server too (by its id, through the
 * operator service), so a copied cookie stops working. The cookie is HttpOnly, SameSite=Strict, scoped to `/dashboard`, and Secure over https;
 * it is signed with HMAC-SHA256 (hono/cookie signed cookies).
 */
import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import { randomToken, sha256Hex, timingSafeEqualHex } from "../auth/crypto.js";
import type { Principal } from "../auth/principal.js";

/** Name of the session cookie. */
export const SESSION_COOKIE = "skillgate_session";
/** Lifetime of a session, ms (8 hours). */
export const SESSION_TTL_MS = 8 * 3_600_000;

/** What the cookie carries. */
export interface DashboardSession {
  /** Random id of the session: what sign-out revokes on the server. */
  sid: string;
  principal: Principal;
  /** Per-session CSRF token, sent back in every form as `_csrf`. */
  csrf: string;
  /** Expiry, ms since epoch. */
  exp: number;
}

function encode(s: DashboardSession): string {
  const bytes = new TextEncoder().encode(JSON.stringify(s));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decode(v: string): DashboardSession | undefined {
  try {
    const bin = atob(v.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
    const s = JSON.parse(new TextDecoder().decode(bytes)) as DashboardSession;
    if (
      typeof s.sid !== "string" ||
      s.sid === "" ||
      typeof s.csrf !== "string" ||
      typeof s.exp !== "number" ||
      !s.principal
    )
      return undefined;
    return s;
  } catch {
    return undefined;
  }
}

/** Starts a session for `principal`: sets the cookie; returns the session. */
export async function startSession(
  c: Context,
  secret: string,
  principal: Principal,
  now: number,
): Promise<DashboardSession> {
  const session: DashboardSession = {
    sid: randomToken(16),
    principal,
    csrf: randomToken(24),
    exp: now + SESSION_TTL_MS,
  };
  await setSignedCookie(c, SESSION_COOKIE, encode(session), secret, {
    httpOnly: true,
    sameSite: "Strict",
    secure: new URL(c.req.url).protocol === "https:",
    path: "/dashboard",
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
  return session;
}

/**
 * The validly signed, unexpired session of the request, or undefined (a cookie from before
 * sessions had ids counts as none). Whether sign-out ended it is the operator service's to say.
 */
export async function readSession(
  c: Context,
  secret: string,
  now: number,
): Promise<DashboardSession | undefined> {
  const raw = await getSignedCookie(c, secret, SESSION_COOKIE);
  if (!raw) return undefined;
  const session = decode(raw);
  return session && session.exp > now ? session : undefined;
}

/** Clears the session cookie (the server-side end is the operator service's `endSession`). */
export function endSession(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, {
    path: "/dashboard",
    secure: new URL(c.req.url).protocol === "https:",
  });
}

/** Constant-time check of a submitted CSRF token against the session's. */
export async function csrfMatches(session: DashboardSession, submitted: unknown): Promise<boolean> {
  if (typeof submitted !== "string" || submitted === "") return false;
  const [a, b] = await Promise.all([sha256Hex(session.csrf), sha256Hex(submitted)]);
  return timingSafeEqualHex(a, b);
}
