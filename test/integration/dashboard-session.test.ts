/**
 * Dashboard sessions and headers over real HTTP (docs/dashboard.md#signing-in-and-sessions,
 * docs/dashboard.md#security-headers): sign-out ends the session on the server, so a copy of its
 * cookie no longer works (other sessions go on), and every dashboard answer carries a
 * Content-Security-Policy without scripts or framing, and X-Frame-Options.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface Session {
  cookie: string;
  csrf: string;
}

async function signIn(token: string): Promise<Session> {
  const login = await fetch(`${t.url}/dashboard/login`, {
    method: "POST",
    headers: { origin: t.url, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token }).toString(),
    redirect: "manual",
  });
  expect(login.status).toBe(303);
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  const page = await get(cookie, "/dashboard/settings");
  expect(page.status).toBe(200);
  const csrf = (await page.text()).match(/name="_csrf" value="([^"]+)"/)![1]!;
  return { cookie, csrf };
}

const get = (cookie: string, path: string) =>
  fetch(t.url + path, { headers: { cookie }, redirect: "manual" });

const post = (s: Session, path: string, fields: Record<string, string> = {}) =>
  fetch(t.url + path, {
    method: "POST",
    headers: {
      cookie: s.cookie,
      origin: t.url,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ _csrf: s.csrf, ...fields }).toString(),
    redirect: "manual",
  });

describe("dashboard sign-out", () => {
  it("revokes the session on the server: a copied cookie stops working, other sessions go on", async () => {
    const session = await signIn(MGMT_TOKEN);
    const other = await signIn(MGMT_TOKEN);
    const copied = session.cookie;
    expect((await get(copied, "/dashboard")).status).toBe(200);

    const out = await post(session, "/dashboard/logout");
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/dashboard/login");
    expect(out.headers.get("set-cookie")).toMatch(/skillgate_session=;/);

    // The copy still has a valid signature and expiry, but the server ended its session.
    const page = await get(copied, "/dashboard");
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/dashboard/login");
    const form = await post({ cookie: copied, csrf: session.csrf }, "/dashboard/settings", {
      skillsEnabled: "on",
    });
    expect(form.status).toBe(401);
    expect(await form.text()).toContain("Your session has ended");

    expect((await get(other.cookie, "/dashboard")).status).toBe(200);
  });

  it("an API key's session is revoked the same way", async () => {
    const key = await t.api.createKey(`dash-${Math.random().toString(36).slice(2)}`);
    const session = await signIn(key.key);
    expect((await post(session, "/dashboard/logout")).status).toBe(303);
    expect((await get(session.cookie, "/dashboard/executions")).status).toBe(303);
    // Signing in again gives a new, working session.
    const again = await signIn(key.key);
    expect((await get(again.cookie, "/dashboard/executions")).status).toBe(200);
  });
});

describe("dashboard security headers", () => {
  const expectHeaders = (res: Response) => {
    const csp = res.headers.get("content-security-policy") ?? "";
    const directives = new Map(
      csp.split(";").map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values.join(" ")] as const;
      }),
    );
    expect(directives.get("default-src")).toBe("'none'");
    expect(directives.get("frame-ancestors")).toBe("'none'");
    expect(directives.get("form-action")).toBe("'self'");
    expect(directives.get("base-uri")).toBe("'none'");
    expect(directives.has("script-src")).toBe(false);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  };

  it("the sign-in page, signed-in pages, redirects and refusals all carry them", async () => {
    expectHeaders(await fetch(`${t.url}/dashboard/login`));
    const session = await signIn(MGMT_TOKEN);
    for (const path of ["/dashboard", "/dashboard/skills", "/dashboard/settings"]) {
      const res = await get(session.cookie, path);
      expect(res.status).toBe(200);
      expectHeaders(res);
    }
    expectHeaders(await fetch(`${t.url}/dashboard`, { redirect: "manual" }));
    expectHeaders(await post({ cookie: session.cookie, csrf: "wrong" }, "/dashboard/settings", {}));
  });

  it("the REST API is left as it was (no dashboard CSP on /api)", async () => {
    const res = await fetch(`${t.url}/api/health`);
    expect(res.headers.get("content-security-policy")).toBeNull();
  });
});
