/**
 * The dashboard in headless Chromium (Debian's `chromium`, driven by playwright-core): sign-in,
 * install, mode switch, an execution run over REST seen in the list, detail and charts, approval
 * of a pending hybrid execution, sign-out; key isolation (404) and CSRF refusal; a key's limits
 * and usage page, its overrides and the default limits edited through the forms. Screenshots of
 * every page go to `test-results/dashboard/` (gitignored) for review.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { MGMT_TOKEN, startTestApp } from "../support/app.js";
import { dashboardStand } from "../support/browser.js";
import { skillMd, startFakeGithubRaw, startFakeSkillsSh } from "../support/fakes/catalogs.js";

const stand = dashboardStand("dashboard");

async function signIn(token: string, base = stand.app.url): Promise<Page> {
  const context = await stand.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/dashboard`);
  expect(new URL(page.url()).pathname).toBe("/dashboard/login");
  await page.getByLabel("Management token or API key").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${base}/dashboard`);
  return page;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(stand.shots, `${name}.png`), fullPage: true });

describe("dashboard in a browser", () => {
  it("signs in, installs a skill, switches its mode, shows a REST run and its chart, approves, signs out", async () => {
    const context = await stand.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const login = await context.newPage();
    await login.goto(`${stand.app.url}/dashboard/login`);
    await shot(login, "01-login");
    await login.getByLabel("Management token or API key").fill("wrong-token");
    await login.getByRole("button", { name: "Sign in" }).click();
    await expect(login.getByRole("alert").textContent()).resolves.toContain("not valid");
    await context.close();

    const page = await signIn(MGMT_TOKEN);
    // The Content-Security-Policy fits the pages: the inline <style> and style attributes apply,
    // and the browser reports no violation on any page of this walk.
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    const policy = (await page.reload())?.headers()["content-security-policy"];
    expect(policy).toContain("frame-ancestors 'none'");
    const navMargin = await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link")
      .first()
      .evaluate((a) => getComputedStyle(a).marginRight);
    expect(navMargin).toBe("16px");
    const styled = await page.evaluate(() => document.styleSheets.length);
    expect(styled).toBeGreaterThan(0);
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === "skillgate_session");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/dashboard" });
    expect(session?.value).not.toContain(MGMT_TOKEN);

    // Install: first with an invalid schema (feedback), then a valid one.
    await page.goto(`${stand.app.url}/dashboard/skills/new`);
    await page.getByLabel("Name").fill("dash-echo");
    await page.getByLabel("Handler").selectOption("echo-handler");
    await page.getByLabel("Input JSON schema").fill("{ not json");
    await page.getByRole("button", { name: "Install" }).click();
    const feedback = await page.getByRole("alert").textContent();
    expect(feedback).toContain("Input JSON schema: not valid JSON");
    await shot(page, "02-install-feedback");
    await page
      .getByLabel("Input JSON schema")
      .fill('{"type":"object","properties":{"msg":{"type":"string"}},"required":["msg"]}');
    await page.getByRole("button", { name: "Install" }).click();
    await expect(page.getByRole("status").first().textContent()).resolves.toContain(
      "Installed dash-echo@1.0.0",
    );
    const skillId = new URL(page.url()).pathname.split("/").pop()!;

    // Mode switch on the detail page.
    await page.getByLabel("mode of dash-echo@1.0.0", { exact: true }).selectOption("auto");
    await page.getByRole("button", { name: "Set mode of dash-echo@1.0.0" }).click();
    await expect(page.getByRole("status").first().textContent()).resolves.toContain(
      "mode is now auto",
    );
    expect((await stand.app.api.get(`/api/skills/${skillId}`)).body.skill.mode).toBe("auto");
    await shot(page, "03-skill");

    await page.goto(`${stand.app.url}/dashboard/skills?q=dash`);
    expect(await page.locator("tr[data-skill]").count()).toBe(1);
    await shot(page, "04-skills");

    // A run over REST shows up in the list, the detail and the charts.
    const run = await stand.app.api.post("/api/skills/executions", {
      skillName: "dash-echo",
      input: { msg: "hello from REST" },
    });
    expect(run.body.execution.status).toBe("success");
    const id = run.body.execution.id as string;
    await page.goto(`${stand.app.url}/dashboard/executions?skill=dash-echo`);
    const row = page.locator(`tr[data-execution="${id}"]`);
    await expect(row.textContent()).resolves.toContain("success");
    await shot(page, "05-executions");
    await row.getByRole("link").click();
    await expect(page.locator('[data-field="input"]').textContent()).resolves.toContain(
      "hello from REST",
    );
    await expect(page.locator('[data-field="output"]').textContent()).resolves.toContain(
      "hello from REST",
    );
    await shot(page, "06-execution");
    await page.goto(`${stand.app.url}/dashboard`);
    const bars = page.locator('svg[data-chart="hourly"] rect[data-status="success"]');
    expect(await bars.count()).toBe(1);
    expect(await bars.first().getAttribute("data-count")).toBe("1");
    expect(await page.locator('svg[data-chart="skills"] g[data-skill="dash-echo"]').count()).toBe(
      1,
    );

    // A pending hybrid execution, approved from the list.
    const key = await stand.app.api.createKey("approver");
    const installed = await stand.app.api.post("/api/skills/install", {
      name: "needs-ok",
      version: "1.0.0",
      schema: { input: { type: "object", properties: { v: { type: "integer" } } } },
      handlerCode: "echo-handler",
      policy: "hybrid",
      apiKeyId: key.id,
    });
    const skill = (await stand.app.services.registry.snapshot()).getById(installed.body.skill.id)!;
    const pending = await stand.app.services.executor.requestApproval(
      skill,
      { v: 7 },
      { apiKeyId: key.id, sessionId: "s1" },
    );
    await page.goto(`${stand.app.url}/dashboard`);
    await expect(page.getByRole("status").first().textContent()).resolves.toContain(
      "1 execution awaiting approval",
    );
    await shot(page, "07-overview");
    await page.goto(`${stand.app.url}/dashboard/executions?status=pending`);
    await page.getByRole("button", { name: `Approve execution ${pending.id}` }).click();
    await expect(page.getByRole("status").first().textContent()).resolves.toContain(
      "ended as success",
    );
    const after = await stand.app.api.get(`/api/skills/executions/${pending.id}`);
    expect(after.body.execution).toMatchObject({ approval: "approved", status: "success" });

    await page.goto(`${stand.app.url}/dashboard/settings`);
    await shot(page, "08-settings");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${stand.app.url}/dashboard/login`);
    await page.goto(`${stand.app.url}/dashboard/executions`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/login");
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it("a key cannot open another key's execution page", async () => {
    const owner = await stand.app.api.createKey("owner");
    const other = await stand.app.api.createKey("other");
    await stand.app.api.post("/api/skills/install", {
      name: "mine",
      version: "1.0.0",
      handlerCode: "echo-handler",
      apiKeyId: owner.id,
    });
    const run = await stand.app.api.as(owner.key).post("/api/skills/executions", {
      skillName: "mine",
      input: { a: 1 },
    });
    const id = run.body.execution.id as string;

    const asOwner = await signIn(owner.key);
    const ok = await asOwner.goto(`${stand.app.url}/dashboard/executions/${id}`);
    expect(ok?.status()).toBe(200);
    await asOwner.context().close();

    const page = await signIn(other.key);
    const res = await page.goto(`${stand.app.url}/dashboard/executions/${id}`);
    expect(res?.status()).toBe(404);
    await page.goto(`${stand.app.url}/dashboard/executions`);
    expect(await page.locator(`tr[data-execution="${id}"]`).count()).toBe(0);
    await page.context().close();
  });

  it("shows a key's limits and usage, and edits its overrides and the defaults", async () => {
    await stand.app.api.put("/api/settings", { defaultLimits: { executionsPerMinute: 60 } });
    const key = await stand.app.api.createKey("limited");
    await stand.app.api.put(`/api/keys/${key.id}/limits`, { dailySandboxSeconds: 120 });
    const page = await signIn(MGMT_TOKEN);
    await page.goto(`${stand.app.url}/dashboard/settings`);
    await expect(page.locator('[data-default="executionsPerMinute"]').textContent()).resolves.toBe(
      "60",
    );
    await page.getByRole("link", { name: "Key limited: limits and usage" }).click();
    const effective = (name: string) =>
      page.locator(`tr[data-limit="${name}"] [data-field="effective"]`).textContent();
    const source = (name: string) =>
      page.locator(`tr[data-limit="${name}"] [data-field="source"]`).getAttribute("data-source");
    await expect(effective("executionsPerMinute")).resolves.toBe("60");
    await expect(source("executionsPerMinute")).resolves.toBe("default");
    await expect(effective("dailySandboxSeconds")).resolves.toBe("120");
    await expect(source("dailySandboxSeconds")).resolves.toBe("override");
    await expect(
      page.locator('tr[data-usage="remainingSandboxSeconds"] [data-field="value"]').textContent(),
    ).resolves.toBe("120 s");
    await shot(page, "10-key-limits");

    await page.getByLabel("Executions per minute").fill("9");
    await page.getByLabel("Daily sandbox seconds").fill("");
    await page.getByRole("button", { name: "Save limits of limited" }).click();
    await expect(page.getByRole("status").first().textContent()).resolves.toContain(
      "Saved the limits of limited: Executions per minute 9",
    );
    await expect(effective("executionsPerMinute")).resolves.toBe("9");
    await expect(source("dailySandboxSeconds")).resolves.toBe("default");
    const rest = (await stand.app.api.get(`/api/keys/${key.id}`)).body.limits;
    expect(rest.overrides).toEqual({ executionsPerMinute: 9 });

    await page.goto(`${stand.app.url}/dashboard/settings`);
    const defaults = page.getByRole("form", { name: "Default limits" });
    await defaults.getByLabel("Concurrent sandbox runs").fill("x");
    await defaults.getByRole("button", { name: "Save default limits" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain(
      "The default limits were not changed",
    );
    await expect(defaults.getByLabel("Concurrent sandbox runs").inputValue()).resolves.toBe("x");
    await shot(page, "11-default-limits-refused");
    await defaults.getByLabel("Concurrent sandbox runs").fill("4");
    await defaults.getByRole("button", { name: "Save default limits" }).click();
    await expect(page.getByRole("status").first().textContent()).resolves.toContain(
      "Default limits saved.",
    );
    expect((await stand.app.api.get("/api/settings")).body.settings.defaultLimits).toEqual({
      executionsPerMinute: 60,
      concurrentSandboxRuns: 4,
      dailySandboxSeconds: null,
    });
    await page.context().close();
  });

  it("refuses a form without the session's CSRF token", async () => {
    const page = await signIn(MGMT_TOKEN);
    const before = (await stand.app.api.get("/api/settings")).body.settings.skillsEnabled;
    expect(before).toBe(true);
    const noToken = await page.request.post(`${stand.app.url}/dashboard/settings`, {
      form: { activeProvider: "skillssh" },
      headers: { origin: stand.app.url },
      maxRedirects: 0,
    });
    expect(noToken.status()).toBe(403);
    const wrongToken = await page.request.post(`${stand.app.url}/dashboard/settings`, {
      form: { activeProvider: "skillssh", _csrf: "forged" },
      headers: { origin: stand.app.url },
      maxRedirects: 0,
    });
    expect(wrongToken.status()).toBe(403);
    const settings = (await stand.app.api.get("/api/settings")).body.settings;
    expect(settings).toMatchObject({ skillsEnabled: true, activeProvider: "skillsmp" });
    await page.context().close();
  });

  it("searches the active catalog, shows a SKILL.md and installs it for the signed-in key", async () => {
    const sh = await startFakeSkillsSh([
      { source: "acme/skills", skillId: "pdf-tools", name: "pdf-tools", installs: 12 },
    ]);
    const gh = await startFakeGithubRaw({
      "acme/skills": {
        defaultBranch: "main",
        branches: {
          main: {
            "skills/pdf-tools/SKILL.md": skillMd(
              { name: "pdf-tools", description: "Merge and fill PDFs" },
              "# PDF tools\nUse pdftk to merge files.",
            ),
          },
        },
      },
    });
    const app = await startTestApp({
      env: { SKILLSSH_BASE_URL: sh.url, GITHUB_RAW_BASE_URL: gh.url },
    });
    try {
      await app.api.put("/api/settings", { activeProvider: "skillssh" });
      const key = await app.api.createKey("catalog-user");
      const page = await signIn(key.key, app.url);
      await page.goto(`${app.url}/dashboard/catalogs`);
      await page.getByLabel("Search", { exact: true }).fill("pdf");
      await page.getByRole("button", { name: "Search" }).click();
      await page.locator('tr[data-catalog-skill] a:text("View")').click();
      await expect(page.locator('[data-field="skill-md"]').textContent()).resolves.toContain(
        "Use pdftk to merge files.",
      );
      await shot(page, "09-catalog-skill-md");
      await page.getByRole("button", { name: "Install" }).click();
      await expect(page.getByRole("status").first().textContent()).resolves.toContain(
        "Installed pdf-tools@1.0.0",
      );
      const listed = await app.api.get(`/api/skills?q=pdf-tools&apiKeyId=${key.id}`);
      expect(listed.body.data).toHaveLength(1);
      expect(listed.body.data[0]).toMatchObject({ sourceProvider: "skillssh", apiKeyId: key.id });
      await page.context().close();
    } finally {
      await app.close();
      await sh.close();
      await gh.close();
    }
  });
});
