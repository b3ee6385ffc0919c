import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandboxClient } from "../../workers/src/sandbox/client.js";
import { startTestApp, type TestApp } from "../support/app.js";
import {
  imageOnEngine,
  LOCAL_IMAGES,
  requireDocker,
  SKIP_DOCKER,
  startTestHost,
  type TestHost,
} from "./helpers.js";

describe.skipIf(SKIP_DOCKER)("sandbox builtins through the REST API", () => {
  let host: TestHost;
  let t: TestApp;
  beforeAll(async () => {
    await requireDocker();
    host = await startTestHost("api");
    t = await startTestApp({ deps: { sandbox: host.client } });
  });
  afterAll(async () => {
    await t?.close();
    await host?.close();
  });

  it("runs eval_code python print(6*7) with status success and stdout 42", async () => {
    const res = await t.api.post("/api/skills/executions", {
      skillName: "eval_code",
      input: { language: "python", code: "print(6*7)" },
    });
    expect(res.status).toBe(200);
    expect(res.body.execution).toMatchObject({
      skillName: "eval_code",
      status: "success",
      attempts: 1,
    });
    expect(res.body.execution.output.stdout).toBe("42\n");
    expect(res.body.execution.output.exitCode).toBe(0);
  });

  it("records a non-zero exit as error, keeping the whole result as output", async () => {
    const res = await t.api.post("/api/skills/executions", {
      skillName: "eval_code",
      input: {
        language: "node",
        code: "console.log('partial'); console.error('bad'); process.exit(3)",
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.execution.status).toBe("error");
    expect(res.body.execution.errorMessage).toMatch(/exit/i);
    expect(res.body.execution.output).toMatchObject({
      exitCode: 3,
      stdout: "partial\n",
      stderr: "bad\n",
    });
  });

  it("runs execute_command with argv (never a shell string) for management", async () => {
    const res = await t.api.post("/api/skills/executions", {
      skillName: "execute_command",
      input: { command: "echo", args: ["a;b", 2, true] },
    });
    expect(res.body.execution.status).toBe("success");
    expect(res.body.execution.output.stdout).toBe("a;b 2 true\n");
  });

  it("reports the sandbox host's health to management only", async () => {
    const mgmt = await t.api.get("/api/health");
    expect(mgmt.body.details.sandbox).toMatchObject({ ok: true, docker: true });
    // Every image the host runs, the browser's included, and whether the engine holds it.
    expect(mgmt.body.details.sandbox.images).toEqual({
      ...LOCAL_IMAGES,
      browser: "skillgate-local/browser:latest",
    });
    expect(mgmt.body.details.sandbox.imagesPresent).toEqual({
      node: true,
      python: true,
      shell: true,
      browser: await imageOnEngine("skillgate-local/browser:latest"),
    });
    const anon = await t.api.as(undefined).get("/api/health");
    expect(anon.body).toEqual({ status: "ok" });
  });
});

describe("an unreachable sandbox host", () => {
  it("answers 503 sandbox_unavailable and records the execution as error, without hanging", async () => {
    const dead = createSandboxClient({ baseUrl: "http://127.0.0.1:9", secret: "x".repeat(32) });
    const t = await startTestApp({ deps: { sandbox: dead }, services: { retryBackoffMs: 10 } });
    try {
      const res = await t.api.post("/api/skills/executions", {
        skillName: "eval_code",
        input: { language: "python", code: "print(1)" },
      });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("sandbox_unavailable");
      const history = await t.api.get("/api/skills/executions?skill=eval_code");
      expect(history.body.data[0]).toMatchObject({
        status: "error",
        errorCode: "sandbox_unavailable",
      });
      expect(history.body.data[0].attempts).toBe(3);
      const health = await t.api.get("/api/health");
      expect(health.body.status).toBe("degraded");
      expect(health.body.details.sandbox.ok).toBe(false);
    } finally {
      await t.close();
    }
  });
});
