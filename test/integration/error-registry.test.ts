/**
 * One registry of error codes for the API and the sandbox host (docs/api.md#errors): every code
 * has a status, a retryable flag and a public message; the host's codes are the registry's
 * entries; the API's errors take their status from it; a host code reaches the API's caller
 * unchanged (a real sandbox host over a stand-in Docker engine that is down answers 503
 * `docker_unavailable`, and so does the API); and an error's `cause` reaches the log, never the
 * client.
 */
import { ERROR_CODES, errorSpec, isErrorCode } from "@skillgate/errors";
import { SANDBOX_ERROR_CODES } from "@skillgate/sandbox-protocol";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parseHostConfig } from "../../sandbox-host/src/config.js";
import { type SandboxHost, startSandboxHost } from "../../sandbox-host/src/server.js";
import { AppError, ConflictError, NotFoundError, UpstreamError } from "../../workers/src/errors.js";
import { createSandboxClient } from "../../workers/src/sandbox/client.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { StandInEngine } from "../support/stand-in-engine.js";

describe("the error registry", () => {
  it("gives every code a snake_case name, an error status, a retryable flag and a message", () => {
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(spec.status).toBeGreaterThanOrEqual(400);
      expect(spec.status).toBeLessThan(600);
      expect(typeof spec.retryable).toBe("boolean");
      expect(spec.message.length).toBeGreaterThan(0);
    }
    expect(errorSpec("skill_not_found")).toEqual(ERROR_CODES.skill_not_found);
    expect(errorSpec("no_such_code")).toBeUndefined();
    expect(isErrorCode("hasOwnProperty")).toBe(false);
  });

  it("holds the sandbox host's codes as they are: one entry per code, shared", () => {
    for (const [code, spec] of Object.entries(SANDBOX_ERROR_CODES)) {
      expect(ERROR_CODES[code as keyof typeof ERROR_CODES]).toBe(spec);
    }
    expect(SANDBOX_ERROR_CODES.docker_unavailable).toEqual({
      status: 503,
      retryable: true,
      message: "Docker engine is not available on the sandbox host",
    });
  });

  it("gives the API's errors their status and retryable flag from the registry", () => {
    const missing = new NotFoundError("Skill x not found", "skill_not_found");
    expect([missing.status, missing.code, missing.retryable]).toEqual([
      404,
      "skill_not_found",
      false,
    ]);
    const limited = new UpstreamError("slow down", "catalog_rate_limited");
    expect([limited.status, limited.retryable]).toEqual([429, true]);
    const exists = new ConflictError("dup", "skill_exists");
    expect(exists.status).toBe(409);
    const cause = new Error("connect ECONNREFUSED");
    const wrapped = new AppError("catalog_unreachable", undefined, { cause });
    expect(wrapped.message).toBe(ERROR_CODES.catalog_unreachable.message);
    expect(wrapped.cause).toBe(cause);
  });
});

describe("a sandbox host whose Docker engine is down", () => {
  let host: SandboxHost;
  let t: TestApp;
  const secret = "registry-test-secret-0123456789abcdef";

  beforeAll(async () => {
    const engine = new StandInEngine();
    engine.down = true;
    const config = parseHostConfig({
      SANDBOX_SECRET: secret,
      SANDBOX_HOST: "127.0.0.1",
      SANDBOX_PORT: "0",
      SANDBOX_INSTANCE: `registry-${process.pid}`,
      SANDBOX_POOL_SIZE: "0",
    });
    host = await startSandboxHost(config, { docker: engine, log: () => {} });
    const sandbox = createSandboxClient({ baseUrl: host.url, secret });
    t = await startTestApp({ deps: { sandbox }, services: { retryBackoffMs: 10 } });
  });
  afterAll(async () => {
    await t?.close();
    await host?.close();
  });

  it("passes the host's 503 docker_unavailable through, retried, and records it", async () => {
    const res = await t.api.post("/api/skills/executions", {
      skillName: "eval_code",
      input: { language: "python", code: "print(1)" },
    });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("docker_unavailable");
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.body.error.details.execution).toMatchObject({
      skillName: "eval_code",
      status: "error",
      errorCode: "docker_unavailable",
      attempts: 3,
    });
    expect(Object.keys(res.body.error).sort()).toEqual(["code", "details", "message"]);
  });
});

describe("an error's cause", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      // A catalog at a port nothing listens on: the fetch fails with a cause.
      env: { SKILLSSH_BASE_URL: "http://127.0.0.1:9" },
    });
  });
  afterAll(async () => t?.close());

  it("is logged with the answer's code, and never sent to the client", async () => {
    const logged: unknown[][] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((...args) => {
      logged.push(args);
    });
    try {
      const res = await t.api.get("/api/skills/skillssh?q=pdf");
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe("catalog_unreachable");
      expect(Object.keys(res.body.error).sort()).toEqual(["code", "message"]);
      expect(JSON.stringify(res.body)).not.toContain("cause");
      const line = logged.find((args) => String(args[0]).includes("catalog_unreachable"));
      expect(line).toBeDefined();
      // One line naming the cause in words; no Error object, so no stack trace.
      expect(line).toHaveLength(1);
      expect(String(line![0])).toMatch(/; cause: \S/);
      expect(String(line![0])).not.toContain("\n");
    } finally {
      spy.mockRestore();
    }
  });
});
