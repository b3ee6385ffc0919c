/**
 * The sandbox protocol package (@skillgate/sandbox-protocol): the canonical string and signature
 * of a fixed request (a frozen vector: a change here breaks every deployed host and API pair),
 * verification, the request and answer schemas, and the error-code registry.
 */
import { createHash, createHmac } from "node:crypto";
import {
  canonicalString,
  isSandboxErrorCode,
  SANDBOX_ERROR_CODES,
  SIGNATURE_HEADERS,
  sandboxErrorSpec,
  sandboxHealthSchema,
  sandboxRunRequestSchema,
  sandboxRunResultSchema,
  signRequest,
  verifyRequest,
} from "@skillgate/sandbox-protocol";
import { describe, expect, it } from "vitest";
import { HostError } from "../../sandbox-host/src/errors.js";

const SECRET = "golden-secret-0123456789";
const BODY = '{"language":"python","code":"print(\\"é\\")"}';
const VECTOR = {
  secret: SECRET,
  keyId: "k1",
  method: "post",
  url: "http://sandbox.test:20129/v1/kill/a%20b?b=2&a=1&a=0&c=x%2By",
  body: BODY,
  timestamp: 1_700_000_000_000,
  nonce: "nonce_0123456789-ABC",
};

describe("request signing", () => {
  it("signs a fixed request exactly as deployed hosts expect", async () => {
    const headers = await signRequest(VECTOR);
    expect(headers).toEqual({
      "x-skillgate-key-id": "k1",
      "x-skillgate-timestamp": "1700000000000",
      "x-skillgate-nonce": "nonce_0123456789-ABC",
      "x-skillgate-signature": "49df02ff34492eb86aede4820295c95b8fd84156a0e3f66aa36cf9c0da23db6c",
    });
  });

  it("builds the canonical string line by line (checked with node:crypto)", async () => {
    const bodySha256 = createHash("sha256").update(BODY, "utf8").digest("hex");
    const canonical = canonicalString({
      method: "post",
      path: "/v1/kill/a%20b",
      query: "?b=2&a=1&a=0&c=x%2By",
      timestamp: "1700000000000",
      nonce: VECTOR.nonce,
      keyId: "k1",
      bodySha256,
    });
    expect(canonical).toBe(
      [
        "SKILLGATE-HMAC-SHA256-V1",
        "POST",
        "/v1/kill/a%20b",
        "a=0&a=1&b=2&c=x%2By",
        "1700000000000",
        VECTOR.nonce,
        "k1",
        bodySha256,
      ].join("\n"),
    );
    const headers = await signRequest(VECTOR);
    expect(headers[SIGNATURE_HEADERS.signature]).toBe(
      createHmac("sha256", SECRET).update(canonical, "utf8").digest("hex"),
    );
  });

  it("verifies within the window and refuses a stale, tampered or unsigned request", async () => {
    const headers = await signRequest(VECTOR);
    const input = {
      keys: new Map([["k1", SECRET]]),
      method: "POST",
      path: "/v1/kill/a%20b",
      query: "?a=0&a=1&b=2&c=x%2By",
      header: (name: string) => headers[name],
      body: new TextEncoder().encode(BODY),
      now: VECTOR.timestamp + 299_000,
    };
    expect(await verifyRequest(input)).toEqual({
      ok: true,
      keyId: "k1",
      nonce: VECTOR.nonce,
      timestamp: VECTOR.timestamp,
    });
    expect(await verifyRequest({ ...input, now: VECTOR.timestamp + 301_000 })).toMatchObject({
      ok: false,
      reason: "Request timestamp is outside the accepted window",
    });
    expect(
      await verifyRequest({ ...input, body: new TextEncoder().encode(`${BODY} `) }),
    ).toMatchObject({ ok: false, reason: "Bad signature" });
    expect(await verifyRequest({ ...input, header: () => null })).toMatchObject({
      ok: false,
      reason: "Request is not signed",
    });
  });

  it("fails closed on an empty secret or a malformed key id", async () => {
    await expect(signRequest({ ...VECTOR, secret: "" })).rejects.toThrow(/secret is empty/);
    await expect(signRequest({ ...VECTOR, keyId: "bad key" })).rejects.toThrow(/key id/);
  });
});

describe("schemas", () => {
  it("accept the requests of each language and refuse mixed or unknown fields", () => {
    const ok = [
      { language: "python", code: "print(1)", timeoutMs: 90_000 },
      { language: "node", code: "", env: { TZ: "UTC" }, runId: "run_1.a-b" },
      { language: "shell", command: "echo", args: ["a"] },
    ];
    for (const req of ok) expect(sandboxRunRequestSchema.safeParse(req).success).toBe(true);
    const bad = [
      { language: "shell", code: "x" },
      { language: "python", command: "ls" },
      { language: "python" },
      { language: "ruby", code: "" },
      { language: "node", code: "", extra: 1 },
      { language: "node", code: "", runId: "a/b" },
      { language: "shell", command: "echo", args: ["a\0b"] },
      { language: "node", code: "", env: { "BAD-NAME": "x" } },
    ];
    for (const req of bad) expect(sandboxRunRequestSchema.safeParse(req).success).toBe(false);
  });

  it("read a run result and health answer, ignoring keys a newer host adds", () => {
    const result = {
      runId: "r",
      exitCode: null,
      signal: null,
      stdout: "",
      stderr: "",
      stdoutTruncated: false,
      stderrTruncated: false,
      truncated: false,
      timedOut: true,
      oomKilled: false,
      durationMs: 12,
      image: "python:3.12-alpine",
      pooled: false,
      addedLater: 1,
    };
    expect(sandboxRunResultSchema.safeParse(result).success).toBe(true);
    expect(sandboxRunResultSchema.safeParse({ ...result, stdout: undefined }).success).toBe(false);
    expect(
      sandboxHealthSchema.safeParse({
        ok: true,
        docker: true,
        running: 0,
        queued: 0,
        maxConcurrency: 4,
        maxQueue: 16,
        pool: {},
        images: { node: "n", python: "p", shell: "s" },
      }).success,
    ).toBe(true);
    const current = {
      ok: true,
      docker: true,
      running: 0,
      queued: 0,
      maxConcurrency: 4,
      maxQueue: 16,
      pool: {},
      images: { node: "n", python: "p", shell: "s", browser: "b" },
      imagesPresent: { node: true, python: false, shell: null, browser: true },
      imagesCheckedAt: "2026-01-01T00:00:00.000Z",
    };
    expect(sandboxHealthSchema.parse(current)).toEqual(current);
    expect(
      sandboxHealthSchema.safeParse({ ...current, imagesPresent: { browser: "yes" } }).success,
    ).toBe(false);
  });
});

describe("error-code registry", () => {
  it("gives every code an error status, a retryable flag and a public message", () => {
    for (const [code, spec] of Object.entries(SANDBOX_ERROR_CODES)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(spec.status).toBeGreaterThanOrEqual(400);
      expect(spec.status).toBeLessThan(600);
      expect(typeof spec.retryable).toBe("boolean");
      expect(spec.message.length).toBeGreaterThan(0);
    }
    expect(sandboxErrorSpec("busy")).toEqual({
      status: 429,
      retryable: true,
      message: "Sandbox host is at capacity; retry later",
    });
    expect(sandboxErrorSpec("image_unavailable")?.retryable).toBe(false);
    expect(sandboxErrorSpec("no_such_code")).toBeUndefined();
    expect(isSandboxErrorCode("toString")).toBe(false);
  });

  it("is what the host's errors carry: status, retryable flag and default message", () => {
    const err = new HostError(503, "docker_unavailable");
    expect([err.status, err.code, err.retryable, err.message]).toEqual([
      503,
      "docker_unavailable",
      true,
      SANDBOX_ERROR_CODES.docker_unavailable.message,
    ]);
    const cause = new Error("connect ECONNREFUSED");
    expect(new HostError(409, "killed", "Run was killed", undefined, { cause }).cause).toBe(cause);
  });
});
