/**
 * Headless Chromium for the dashboard's browser tests and the screenshot script: Debian's
 * `chromium` (or `CHROMIUM_PATH`) driven by playwright-core, with one set of flags, and a stand
 * that gives each test a fresh app (CONTRIBUTING.md, "Tests").
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { startTestApp, type TestApp } from "./app.js";

/** Chromium's executable: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Launches headless Chromium without its sandbox, GPU, QUIC, first-run page and background
 * traffic (component updates, sync), so a run talks only to the app under test.
 * @throws what playwright-core throws when the executable is missing or does not start.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** What {@link dashboardStand} gives a test file; read its members inside tests and hooks only. */
export interface DashboardStand {
  /** The file's browser, launched once. */
  readonly browser: Browser;
  /** The current test's app on its own temporary database. */
  readonly app: TestApp;
  /** The folder of the file's screenshots, `test-results/<name>/` (gitignored). */
  readonly shots: string;
}

/**
 * Registers the hooks of a browser test file: one Chromium for the file (closed after it), a
 * fresh app per test (closed after it), and the screenshot folder `test-results/<shotsName>/`.
 */
export function dashboardStand(shotsName: string): DashboardStand {
  const shots = join(process.cwd(), "test-results", shotsName);
  let browser: Browser | undefined;
  let app: TestApp | undefined;
  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    app = await startTestApp();
  });
  afterEach(async () => {
    await app?.close();
  });
  return {
    get browser() {
      if (!browser) throw new Error("the browser starts in beforeAll");
      return browser;
    },
    get app() {
      if (!app) throw new Error("the app starts in beforeEach");
      return app;
    },
    shots,
  };
}
