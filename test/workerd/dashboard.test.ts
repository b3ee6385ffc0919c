/**
 * The dashboard inside workerd through the Worker entry: the sign-in form renders, a sign-in
 * with the management token sets the signed session cookie, and the overview renders with it.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ORIGIN } from "./support.js";

describe("dashboard in workerd", () => {
  it("renders the sign-in form, signs in and renders the overview", async () => {
    const form = await exports.default.fetch(new Request(`${ORIGIN}/dashboard/login`));
    expect(form.status).toBe(200);
    expect(await form.text()).toContain("Sign in to Skillgate");

    const signIn = await exports.default.fetch(
      new Request(`${ORIGIN}/dashboard/login`, {
        method: "POST",
        headers: { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: env.MGMT_TOKEN as string }).toString(),
        redirect: "manual",
      }),
    );
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^skillgate_session=.*HttpOnly.*SameSite=Strict/i);
    expect(cookie).toMatch(/;\s*Secure/i); // served over https
    expect(cookie).not.toContain(env.MGMT_TOKEN as string);

    const overview = await exports.default.fetch(
      new Request(`${ORIGIN}/dashboard`, { headers: { cookie: cookie.split(";")[0]! } }),
    );
    expect(overview.status).toBe(200);
    expect(await overview.text()).toContain('data-chart="hourly"');
  });
});
