/**
 * A dashboard session over real HTTP for tests (docs/dashboard.md): signs in through the login
 * form, keeps the session cookie, and posts forms with the session's CSRF token read from the
 * last page fetched.
 */
import { expect } from "vitest";
import type { TestApp } from "./app.js";

/** A signed-in dashboard session: GET pages, post forms with the session's CSRF token. */
export interface DashboardClient {
  get(path: string): Promise<{ status: number; html: string }>;
  post(path: string, fields: Record<string, string>): Promise<{ status: number; html: string }>;
}

/**
 * Signs in with `token` (the management token or an API key) and reads the session's CSRF token
 * from the settings page. @returns the session's client.
 */
export async function signIn(t: TestApp, token: string): Promise<DashboardClient> {
  const login = await fetch(`${t.url}/dashboard/login`, {
    method: "POST",
    headers: { origin: t.url, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token }).toString(),
    redirect: "manual",
  });
  expect(login.status).toBe(303);
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  let csrf = "";
  const get = async (path: string) => {
    const res = await fetch(t.url + path, { headers: { cookie }, redirect: "manual" });
    const html = await res.text();
    csrf = html.match(/name="_csrf" value="([^"]+)"/)?.[1] ?? csrf;
    return { status: res.status, html };
  };
  await get("/dashboard/settings");
  return {
    get,
    async post(path, fields) {
      const res = await fetch(t.url + path, {
        method: "POST",
        headers: { cookie, origin: t.url, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
        redirect: "manual",
      });
      return { status: res.status, html: await res.text() };
    },
  };
}
