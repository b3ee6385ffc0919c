/**
 * The dashboard (docs/dashboard.md), mounted at `/dashboard`: sign-in with the management token or
 * an API key, a signed session cookie, CSRF protection on every form (an Origin check by
 * hono/csrf plus the session's token in each form), the scope each page and form needs of an API
 * key (scopes.ts; 403 otherwise), and the pages. Pages call services only.
 */
import { Hono } from "hono";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import { hasScope } from "../auth/scopes.js";
import { AppError } from "../errors.js";
import { logPrefix } from "../telemetry/request-context.js";
import { catalogPages } from "./catalog-pages.js";
import { type DashContext, type DashEnv, formOf, pageProps } from "./env.js";
import { executionPages } from "./executions-pages.js";
import { keyPages } from "./key-pages.js";
import { Page } from "./layout.js";
import { dashboardScope } from "./scopes.js";
import { selectionPages } from "./selection-pages.js";
import { csrfMatches, endSession, readSession, startSession } from "./session.js";
import { settingsPages } from "./settings-pages.js";
import { skillPages } from "./skills-pages.js";

const LoginForm = ({ error }: { error?: string }) => (
  <Page title="Sign in">
    <div class="login card">
      <h1>Sign in to Skillgate</h1>
      <p class="muted">
        Use the management token, or an API key to see that key's skills and executions.
      </p>
      {error ? (
        <div class="flash err" role="alert">
          {error}
        </div>
      ) : null}
      <form method="post" action="/dashboard/login">
        <div class="field">
          <label for="token">Management token or API key</label>
          <input
            id="token"
            name="token"
            type="password"
            autocomplete="current-password"
            required
            autofocus
          />
        </div>
        <button type="submit">Sign in</button>
      </form>
    </div>
  </Page>
);

/**
 * Security headers of every dashboard answer (docs/dashboard.md#security-headers), through Hono's
 * `secureHeaders` (its defaults: `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`,
 * HSTS, cross-origin isolation headers, ...) with a Content-Security-Policy that fits the pages:
 * they are server-rendered HTML with one inline `<style>` and inline `style` attributes, plain
 * links and forms posting to the dashboard itself, inline SVG charts, and no script at all. So:
 * nothing loads from anywhere (`default-src 'none'`, scripts included), styles only inline, forms
 * only to this origin, no `<base>`, and no framing (`frame-ancestors 'none'`, with
 * `X-Frame-Options: DENY` for older browsers) against clickjacking.
 */
const DASHBOARD_SECURITY_HEADERS: Parameters<typeof secureHeaders>[0] = {
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    styleSrc: ["'unsafe-inline'"],
    imgSrc: ["'self'", "data:"],
    formAction: ["'self'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
  },
  xFrameOptions: "DENY",
};

function refuse(c: DashContext, status: 401 | 403, message: string) {
  return c.html(
    <Page title="Refused">
      <div class="card">
        <h1>{status === 401 ? "Signed out" : "Request refused"}</h1>
        <p>{message}</p>
        <p>
          <a href="/dashboard">Back to the dashboard</a>
        </p>
      </div>
    </Page>,
    status,
  );
}

/** Builds the `/dashboard` routes (mount with `app.route("/dashboard", dashboardRoutes())`). */
export function dashboardRoutes(): Hono<DashEnv> {
  const app = new Hono<DashEnv>();
  app.use("*", secureHeaders(DASHBOARD_SECURITY_HEADERS));
  app.use("*", csrf());

  app.get("/login", (c) => c.html(<LoginForm />));
  app.post("/login", async (c) => {
    const services = c.get("services");
    const secret = await services.operator.sessionSecret();
    if (!secret) {
      return c.html(
        <LoginForm error="Sign-in is disabled: set MGMT_TOKEN or DASHBOARD_SESSION_SECRET on the server." />,
        503,
      );
    }
    const token = (await formOf(c)).token?.trim() ?? "";
    const principal = token ? await services.operator.signIn(token) : undefined;
    if (!principal) {
      return c.html(
        <LoginForm error="That token is not valid (or the key was revoked or expired)." />,
        401,
      );
    }
    await startSession(c, secret, principal, services.operator.now());
    return c.redirect("/dashboard", 303);
  });

  app.use("*", async (c, next) => {
    const services = c.get("services");
    const secret = await services.operator.sessionSecret();
    const session = secret ? await readSession(c, secret, services.operator.now()) : undefined;
    if (
      !session ||
      !(await services.operator.sessionActive(session.sid)) ||
      !(await services.operator.stillValid(session.principal))
    ) {
      if (c.req.method === "GET") return c.redirect("/dashboard/login", 303);
      return refuse(c, 401, "Your session has ended. Sign in again.");
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const form = await formOf(c);
      if (!(await csrfMatches(session, form._csrf))) {
        return refuse(
          c,
          403,
          "The form's security token is missing or stale. Reload the page and try again.",
        );
      }
    }
    c.set("session", session);
    c.set("principal", session.principal);
    const scope = dashboardScope(c.req.method, c.req.path.replace(/^\/dashboard/, ""));
    if (scope && !hasScope(session.principal, scope)) {
      return refuse(
        c,
        403,
        `This API key lacks the scope "${scope}" needed here. Ask an operator for a key with that scope.`,
      );
    }
    await next();
  });

  app.post("/logout", async (c) => {
    const session = c.get("session");
    // Ended on the server first: a copy of the cookie must not outlive the sign-out.
    await c.get("services").operator.endSession(session.sid, session.exp);
    endSession(c);
    return c.redirect("/dashboard/login", 303);
  });

  app.route("/", executionPages());
  app.route("/", skillPages());
  app.route("/", catalogPages());
  app.route("/", settingsPages());
  app.route("/", keyPages());
  app.route("/", selectionPages());

  app.onError((err, c) => {
    // hono/csrf refuses a cross-site form post with an HTTPException 403: an answer, not a fault.
    const status =
      err instanceof AppError ? err.status : err instanceof HTTPException ? err.status : 500;
    if (status >= 500) console.error(`${logPrefix()}dashboard error on ${c.req.path}:`, err);
    const message =
      err instanceof AppError
        ? err.message
        : status === 403
          ? "This form was not sent from this dashboard (cross-site request refused). Open the page again and submit it from there."
          : status < 500
            ? err.message
            : "Something went wrong on the server.";
    const session = c.get("session");
    return c.html(
      <Page
        title={status === 404 ? "Not found" : "Error"}
        {...(session ? pageProps(c, c.req.path) : {})}
      >
        <div class="card">
          <h1>{status === 404 ? "Not found" : "Error"}</h1>
          <p>{message}</p>
          <p>
            <a href="/dashboard">Back to the overview</a>
          </p>
        </div>
      </Page>,
      status as 400,
    );
  });
  return app;
}
