/**
 * `GET /api/health` with a real sandbox host whose configured image is missing from the Docker
 * engine (docs/api.md#health): `degraded`, with the missing image named as the sandbox's reason,
 * for management and anonymous callers alike.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { requireDocker, startTestHost, type TestHost } from "./helpers.js";

const MISSING = "skillgate-local/not-built-here:0.0.0";

let t: TestApp | undefined;
let host: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  await host?.close();
  t = undefined;
  host = undefined;
});

describe("health with a missing sandbox image", () => {
  it("reports degraded and names the missing image", async () => {
    await requireDocker();
    host = await startTestHost("health-images", {
      SANDBOX_IMAGE_PYTHON: MISSING,
      SKILLS_ALLOWED_SANDBOX_IMAGES: `skillgate-local/node:latest,skillgate-local/busybox:latest,${MISSING}`,
    });
    t = await startTestApp({ deps: { sandbox: host.client } });
    // Image presence is checked in the background by the host: wait for its first answer.
    let body: { status: string; details: Record<string, any> } | undefined;
    for (let i = 0; i < 100; i++) {
      body = (await t.api.get("/api/health")).body;
      if (body?.details.sandbox.imagesPresent?.python === false) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(body?.details.sandbox.imagesPresent.python).toBe(false);
    expect(body?.status).toBe("degraded");
    expect(body?.details.sandbox.ok).toBe(false);
    expect(body?.details.reasons).toContainEqual({
      component: "sandbox",
      reason: `sandbox image for python is missing: ${MISSING}`,
    });
    // Within the 3 s failure memory the anonymous answer agrees.
    expect((await t.api.as(undefined).get("/api/health")).body).toEqual({ status: "degraded" });
  }, 60_000);
});
