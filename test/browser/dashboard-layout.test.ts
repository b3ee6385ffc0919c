/**
 * The dashboard's look and its safety steps in headless Chromium (Debian's `chromium`, driven by
 * playwright-core): the stylesheet is served as CSS (the sans-serif font stack applies), every
 * page fits a 420 px and a 1280 px wide window without horizontal overflow (screenshots of each go
 * to `test-results/dashboard-layout/`, gitignored), the hourly chart's axis has whole, distinct
 * ticks for empty and small data, keys are shown by name, a revoke needs a second step, scopes are
 * chosen at key creation, `/` leads to the dashboard, and the forms refuse what REST refuses.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { MGMT_TOKEN } from "../support/app.js";
import { dashboardStand } from "../support/browser.js";

const stand = dashboardStand("dashboard-layout");

async function signIn(width: number, token = MGMT_TOKEN): Promise<Page> {
  const context = await stand.browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${stand.app.url}/dashboard/login`);
  await page.getByLabel("Management token or API key").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${stand.app.url}/dashboard`);
  return page;
}

/** The hourly chart's tick labels, bottom to top. */
const tickLabels = (page: Page) =>
  page.locator('svg[data-chart="hourly"] g[data-tick] text').allTextContents();

describe("dashboard layout in a browser", () => {
  it("serves the stylesheet as CSS: the body's font is the sans-serif stack, not the serif default", async () => {
    const page = await signIn(1280);
    const font = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
    expect(font).toContain('"Segoe UI"');
    expect(font).toMatch(/sans-serif$/);
    const css = await page.evaluate(() => document.querySelector("style")?.textContent ?? "");
    expect(css).not.toContain("&quot;");
    await page.context().close();
  });

  it("every page fits 420 px and 1280 px without horizontal overflow", async () => {
    const key = await stand.app.api.createKey(
      "layout-key-with-a-rather-long-name-for-narrow-screens",
    );
    const skill = await stand.app.api.post("/api/skills/install", {
      name: "layout-echo-skill-with-a-long-name",
      version: "1.0.0",
      description: "An echo skill whose description is long enough to wrap on a phone screen.",
      handlerCode: "echo-handler",
      apiKeyId: key.id,
    });
    const run = await stand.app.api.as(key.key).post("/api/skills/executions", {
      skillName: "layout-echo-skill-with-a-long-name",
      input: { msg: "hello" },
    });
    expect(run.status).toBe(200);
    const pages = {
      overview: "/dashboard",
      skills: "/dashboard/skills",
      install: "/dashboard/skills/new",
      skill: `/dashboard/skills/${skill.body.skill.id}`,
      "skill-delete": `/dashboard/skills/${skill.body.skill.id}/delete`,
      executions: "/dashboard/executions",
      execution: `/dashboard/executions/${run.body.execution.id}`,
      catalogs: "/dashboard/catalogs",
      settings: "/dashboard/settings",
      key: `/dashboard/keys/${key.id}`,
      "key-revoke": `/dashboard/keys/${key.id}/revoke`,
    };
    const overflowing: string[] = [];
    for (const width of [420, 1280]) {
      const page = await signIn(width);
      for (const [name, path] of Object.entries(pages)) {
        const res = await page.goto(`${stand.app.url}${path}`);
        expect(res?.status(), path).toBe(200);
        await page.screenshot({ path: join(stand.shots, `${width}-${name}.png`), fullPage: true });
        const fits = await page.evaluate(
          () => document.documentElement.scrollWidth <= window.innerWidth,
        );
        if (!fits) overflowing.push(`${path} at ${width} px`);
      }
      // The header bar spans the whole width, and "Settings" is readable on it.
      await page.goto(`${stand.app.url}/dashboard`);
      const header = await page.locator("header").boundingBox();
      expect(header?.width).toBe(width);
      const settings = page.getByRole("navigation", { name: "Main" }).getByText("Settings");
      const box = await settings.boundingBox();
      expect(box && box.x + box.width <= width).toBe(true);
      expect(await settings.evaluate((a) => getComputedStyle(a).color)).toBe("rgb(207, 214, 228)");
      await page.context().close();
    }
    const login = await (await stand.browser.newContext({ viewport: { width: 420, height: 900 } }))
      .newPage()
      .then(async (p) => {
        await p.goto(`${stand.app.url}/dashboard/login`);
        await p.screenshot({ path: join(stand.shots, "420-login.png"), fullPage: true });
        return p;
      });
    expect(
      await login.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    ).toBe(true);
    await login.context().close();
    expect(overflowing).toEqual([]);
  });

  it("the hourly chart's axis has whole, distinct ticks for empty and small data", async () => {
    const page = await signIn(1280);
    expect(await tickLabels(page)).toEqual(["0", "1"]);
    await expect(page.locator('svg[data-chart="hourly"]').textContent()).resolves.toContain(
      "No executions in the last 24 hours",
    );
    await stand.app.api.post("/api/skills/install", {
      name: "tick-echo",
      version: "1.0.0",
      handlerCode: "echo-handler",
    });
    for (let i = 0; i < 3; i++) {
      const run = await stand.app.api.post("/api/skills/executions", {
        skillName: "tick-echo",
        input: { i },
      });
      expect(run.status).toBe(200);
    }
    await page.reload();
    expect(await tickLabels(page)).toEqual(["0", "1", "2", "3"]);
    await page.context().close();
  });

  it("shows keys by name in the execution and skill lists and pages", async () => {
    const key = await stand.app.api.createKey("billing-bot");
    const skill = await stand.app.api.post("/api/skills/install", {
      name: "owned-echo",
      version: "1.0.0",
      handlerCode: "echo-handler",
      apiKeyId: key.id,
    });
    const run = await stand.app.api.as(key.key).post("/api/skills/executions", {
      skillName: "owned-echo",
      input: { msg: "x" },
    });
    const page = await signIn(1280);
    for (const path of [
      "/dashboard/executions",
      `/dashboard/executions/${run.body.execution.id}`,
      "/dashboard/skills",
      `/dashboard/skills/${skill.body.skill.id}`,
    ]) {
      await page.goto(`${stand.app.url}${path}`);
      const ref = page.locator(`[data-key-ref="${key.id}"]`).first();
      await expect(ref.getByRole("link").textContent(), path).resolves.toBe("billing-bot");
      expect(await ref.getByRole("link").getAttribute("href")).toBe(`/dashboard/keys/${key.id}`);
    }
    await page.context().close();
  });

  it("a revoke takes a second step; the first click revokes nothing", async () => {
    const key = await stand.app.api.createKey("to-revoke");
    const page = await signIn(1280);
    await page.goto(`${stand.app.url}/dashboard/settings`);
    await page.getByRole("link", { name: "Revoke key to-revoke" }).click();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/keys/${key.id}/revoke`);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(
      "Revoke key to-revoke?",
    );
    expect((await stand.app.api.get(`/api/keys/${key.id}`)).body.apiKey.revokedAt).toBeNull();
    expect((await stand.app.api.as(key.key).get("/api/tools")).status).not.toBe(401);
    // Cancel leaves it alone.
    await page.getByRole("link", { name: "Cancel" }).click();
    expect(new URL(page.url()).pathname).toBe("/dashboard/settings");
    expect((await stand.app.api.get(`/api/keys/${key.id}`)).body.apiKey.revokedAt).toBeNull();
    // A post without the confirmation field (an old page) revokes nothing either.
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const stray = (
      await page.request.post(`${stand.app.url}/dashboard/keys/${key.id}/revoke`, {
        form: { _csrf: csrf },
        headers: { origin: stand.app.url },
        maxRedirects: 0,
      })
    ).status();
    expect(stray).toBe(400);
    expect((await stand.app.api.get(`/api/keys/${key.id}`)).body.apiKey.revokedAt).toBeNull();
    // The second step revokes.
    await page.goto(`${stand.app.url}/dashboard/keys/${key.id}/revoke`);
    await page.getByRole("button", { name: "Revoke to-revoke permanently" }).click();
    await expect(page.getByRole("status").first().textContent()).resolves.toContain(
      "Revoked key to-revoke.",
    );
    expect((await stand.app.api.get(`/api/keys/${key.id}`)).body.apiKey.revokedAt).not.toBeNull();
    await page.context().close();
  });

  it("offers scopes at key creation and creates the key with the ones ticked", async () => {
    const page = await signIn(1280);
    await page.goto(`${stand.app.url}/dashboard/settings`);
    const form = page.getByRole("form", { name: "Create an API key" });
    await form.getByLabel("Name").fill("read-only-viewer");
    for (const s of ["inject", "execute", "read", "skills:write", "catalog:install"]) {
      await expect(form.getByLabel(s, { exact: true }).isChecked()).resolves.toBe(true);
    }
    for (const s of ["inject", "execute", "skills:write", "catalog:install"]) {
      await form.getByLabel(s, { exact: true }).uncheck();
    }
    await form.getByRole("button", { name: "Create key" }).click();
    await expect(page.locator('[data-field="new-key"]').textContent()).resolves.toMatch(/^sg_/);
    const listed = await stand.app.api.get("/api/keys");
    const created = listed.body.data.find((k: { name: string }) => k.name === "read-only-viewer");
    expect(created.scopes).toEqual(["read"]);
    await expect(page.locator('tr[data-key="read-only-viewer"]').textContent()).resolves.toContain(
      "read",
    );
    await page.context().close();
  });

  it("/ leads to the dashboard", async () => {
    const context = await stand.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const res = await page.goto(`${stand.app.url}/`);
    expect(res?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe("/dashboard/login");
    await context.close();
  });

  it("the install and edit forms refuse a description REST refuses, and change nothing", async () => {
    const page = await signIn(1280);
    await page.goto(`${stand.app.url}/dashboard/skills/new`);
    await page.getByLabel("Name").fill("long-desc");
    await page.getByLabel("Handler").selectOption("echo-handler");
    await page.getByLabel("Description").fill("d".repeat(5000));
    await page.getByRole("button", { name: "Install" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain(
      "at most 4096 characters",
    );
    expect((await stand.app.api.get("/api/skills?q=long-desc")).body.data).toEqual([]);

    const installed = await stand.app.api.post("/api/skills/install", {
      name: "short-desc",
      version: "1.0.0",
      description: "short",
      handlerCode: "echo-handler",
    });
    const id = installed.body.skill.id as string;
    await page.goto(`${stand.app.url}/dashboard/skills/${id}`);
    const edit = page.getByRole("form", { name: "Edit skill" });
    await edit.getByLabel("Description").fill("e".repeat(5000));
    await edit.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain(
      "at most 4096 are allowed",
    );
    expect((await stand.app.api.get(`/api/skills/${id}`)).body.skill.description).toBe("short");
    await page.context().close();
  });
});
