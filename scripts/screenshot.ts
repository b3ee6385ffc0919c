/**
 * `npm run screenshot`: regenerates the README's dashboard screenshot (`docs/dashboard-overview.png`).
 * Starts the app on a temporary database, installs two example skills and runs them over REST,
 * signs in with headless Chromium (Debian's `chromium`, or `CHROMIUM_PATH`, driven by
 * playwright-core) and captures the overview at 1280 × 900.
 */
import { join } from "node:path";
import { MGMT_TOKEN, startTestApp } from "../test/support/app.js";
import { launchChromium } from "../test/support/browser.js";

const OUT = join(process.cwd(), "docs", "dashboard-overview.png");

async function main(): Promise<void> {
  const t = await startTestApp();
  const browser = await launchChromium();
  try {
    for (const name of ["reverse-text", "word-count"]) {
      await t.api.post("/api/skills/install", {
        name,
        version: "1.0.0",
        description: `Example skill ${name}`,
        handlerCode: "echo-handler",
      });
      for (let i = 0; i < (name === "reverse-text" ? 6 : 3); i++) {
        await t.api.post("/api/skills/executions", {
          skillName: name,
          input: { text: `run ${i}` },
        });
      }
    }
    const page = await (
      await browser.newContext({ viewport: { width: 1280, height: 900 } })
    ).newPage();
    await page.goto(`${t.url}/dashboard/login`);
    await page.getByLabel("Management token or API key").fill(MGMT_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${t.url}/dashboard`);
    await page.screenshot({ path: OUT });
    console.log(`wrote ${OUT}`);
  } finally {
    await browser.close();
    await t.close();
  }
}

main().catch((err) => {
  console.error(`screenshot failed: ${(err as Error).message}`);
  process.exit(1);
});
