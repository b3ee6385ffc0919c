/**
 * The health check of the sandbox host (`sandbox-host/src/healthcheck.ts`, used by the image's
 * HEALTHCHECK and the systemd unit) as a child process against a real host: it signs its request
 * with the secret of its environment, exits 0 when the host answers and reaches Docker, 1
 * otherwise, names the images the engine lacks, and never prints the secret.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loopbackFor } from "../../sandbox-host/src/healthcheck.js";
import {
  imageOnEngine,
  LOCAL_IMAGE_ENV,
  newSecret,
  requireDocker,
  SKIP_DOCKER,
  startTestHost,
  type TestHost,
} from "./helpers.js";

function runCheck(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "sandbox-host/src/healthcheck.ts"], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
}

describe("loopbackFor", () => {
  it("reaches a wildcard listener on loopback and brackets IPv6", () => {
    expect(loopbackFor("0.0.0.0")).toBe("127.0.0.1");
    expect(loopbackFor("::")).toBe("[::1]");
    expect(loopbackFor("127.0.0.1")).toBe("127.0.0.1");
    expect(loopbackFor("::1")).toBe("[::1]");
  });
});

describe.skipIf(SKIP_DOCKER)("sandbox host health check", () => {
  let t: TestHost;
  let env: Record<string, string>;
  beforeAll(async () => {
    await requireDocker();
    t = await startTestHost("healthcheck");
    env = {
      ...LOCAL_IMAGE_ENV,
      SANDBOX_HOST: "0.0.0.0",
      SANDBOX_PORT: String(t.host.port),
      SANDBOX_SECRET: t.secret,
    };
  });
  afterAll(() => t?.close());

  it("exits 0 for a running host that reaches Docker", async () => {
    const { code, output } = await runCheck(env);
    const browser = "skillgate-local/browser:latest";
    const missing = (await imageOnEngine(browser)) ? "" : `; images missing: browser (${browser})`;
    expect(output).toBe(`ok: 0 running, 0 queued${missing}\n`);
    expect(code).toBe(0);
  });

  it("exits 1 when its secret is not the host's, without printing it", async () => {
    const wrong = newSecret();
    const { code, output } = await runCheck({ ...env, SANDBOX_SECRET: wrong });
    expect(code).toBe(1);
    expect(output).toBe("unhealthy: the host answered 401\n");
    expect(output).not.toContain(wrong);
  });

  it("names an image the engine lacks, and stays healthy (the image is pulled when needed)", async () => {
    const absent = `skillgate-local/absent-browser-${process.pid}:latest`;
    const other = await startTestHost("healthcheck-absent", { SANDBOX_IMAGE_BROWSER: absent });
    try {
      const { code, output } = await runCheck({
        ...env,
        SANDBOX_IMAGE_BROWSER: absent,
        SANDBOX_PORT: String(other.host.port),
        SANDBOX_SECRET: other.secret,
      });
      expect(output).toBe(`ok: 0 running, 0 queued; images missing: browser (${absent})\n`);
      expect(code).toBe(0);
    } finally {
      await other.close();
    }
  });

  it("exits 1 when nothing listens", async () => {
    const { code, output } = await runCheck({ ...env, SANDBOX_PORT: "1" });
    expect(code).toBe(1);
    expect(output).toMatch(/^unhealthy: /);
  });
});
