/**
 * Request signing between the API and the sandbox host (docs/sandbox.md#signing): unsigned,
 * tampered, stale and replayed requests get 401 and run nothing; two key ids are accepted during a
 * secret rotation; the body size is checked before hashing.
 */
import { canonicalQuery, newNonce, signRequest, verifyRequest } from "@skillgate/sandbox-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  newSecret,
  requireDocker,
  SKIP_DOCKER,
  signedFetch,
  startTestHost,
  type TestHost,
} from "./helpers.js";

describe("canonical form (protocol.ts)", () => {
  it("sorts and re-encodes the query so equivalent queries sign alike", () => {
    expect(canonicalQuery("?b=2&a=1&a=0")).toBe("a=0&a=1&b=2");
    expect(canonicalQuery("x=a%20b")).toBe(canonicalQuery("x=a+b"));
    expect(canonicalQuery("")).toBe("");
  });

  it("verifies its own signature and rejects a different method, query or key", async () => {
    const secret = newSecret();
    const keys = new Map([["k1", secret]]);
    const now = Date.now();
    const headers = await signRequest({
      secret,
      keyId: "k1",
      method: "POST",
      url: "/v1/run?x=1",
      body: "{}",
      timestamp: now,
    });
    const header = (h: string) => headers[h.toLowerCase()];
    const body = new TextEncoder().encode("{}");
    const base = { keys, path: "/v1/run", header, body, now };
    expect(await verifyRequest({ ...base, method: "POST", query: "?x=1" })).toMatchObject({
      ok: true,
      keyId: "k1",
    });
    expect(await verifyRequest({ ...base, method: "PUT", query: "?x=1" })).toMatchObject({
      ok: false,
    });
    expect(await verifyRequest({ ...base, method: "POST", query: "?x=2" })).toMatchObject({
      ok: false,
    });
    expect(
      await verifyRequest({ ...base, method: "POST", query: "?x=1", keys: new Map() }),
    ).toMatchObject({
      ok: false,
      reason: "Unknown key id",
    });
  });
});

describe.skipIf(SKIP_DOCKER)("sandbox host authentication", () => {
  let t: TestHost;
  const previousSecret = newSecret();
  const run = JSON.stringify({
    language: "shell",
    command: "sleep",
    args: ["20"],
    timeoutMs: 20_000,
  });

  beforeAll(async () => {
    await requireDocker();
    t = await startTestHost("auth", {
      SANDBOX_KEY_ID: "k2",
      SANDBOX_SECRET_PREVIOUS: previousSecret,
      SANDBOX_KEY_ID_PREVIOUS: "k1",
      SANDBOX_MAX_BODY_BYTES: "65536",
    });
  });

  afterAll(async () => {
    if (!t) return;
    await t.close();
    expect(await t.containers()).toEqual([]);
  });

  /** Asserts a 401 envelope and that nothing is running or was created. */
  async function expectRejected(
    res: { status: number; body: unknown },
    reason: RegExp,
  ): Promise<void> {
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { code: "unauthorized" } });
    expect((res.body as { error: { message: string } }).error.message).toMatch(reason);
    expect(t.host.runner.active).toBe(0);
    expect(await t.containers()).toEqual([]);
  }

  it("answers 401 to an unsigned request", async () => {
    const res = await fetch(`${t.host.url}/v1/run`, { method: "POST", body: run });
    expect(res.status).toBe(401);
    await expectRejected({ status: res.status, body: await res.json() }, /not signed/);
    const health = await fetch(`${t.host.url}/v1/health`);
    expect(health.status).toBe(401);
  });

  it("answers 401 to a tampered body", async () => {
    const tampered = run.replace('"20"', '"21"');
    const res = await signedFetch(t.host.url, "/v1/run", {
      secret: t.secret,
      keyId: "k2",
      body: run,
      sendBody: tampered,
    });
    await expectRejected(res, /Bad signature/);
  });

  it("answers 401 to a tampered path", async () => {
    const res = await signedFetch(t.host.url, "/v1/health", {
      secret: t.secret,
      keyId: "k2",
      method: "POST",
      body: run,
      sendPath: "/v1/run",
    });
    await expectRejected(res, /Bad signature/);
  });

  it("answers 401 to a stale or future timestamp", async () => {
    const stale = await signedFetch(t.host.url, "/v1/run", {
      secret: t.secret,
      keyId: "k2",
      body: run,
      timestamp: Date.now() - 301_000,
    });
    await expectRejected(stale, /outside the accepted window/);
    const future = await signedFetch(t.host.url, "/v1/run", {
      secret: t.secret,
      keyId: "k2",
      body: run,
      timestamp: Date.now() + 301_000,
    });
    await expectRejected(future, /outside the accepted window/);
  });

  it("answers 401 to a replayed nonce", async () => {
    const nonce = newNonce();
    const timestamp = Date.now();
    const first = await signedFetch(t.host.url, "/v1/health", {
      secret: t.secret,
      keyId: "k2",
      nonce,
      timestamp,
    });
    expect(first.status).toBe(200);
    const replay = await signedFetch(t.host.url, "/v1/run", {
      secret: t.secret,
      keyId: "k2",
      body: run,
      nonce,
      timestamp,
    });
    await expectRejected(replay, /Nonce was already used/);
    const replayHealth = await signedFetch(t.host.url, "/v1/health", {
      secret: t.secret,
      keyId: "k2",
      nonce,
      timestamp,
    });
    expect(replayHealth.status).toBe(401);
  });

  it("answers 401 to a wrong secret, an unknown key id and a forged signature header", async () => {
    await expectRejected(
      await signedFetch(t.host.url, "/v1/run", { secret: newSecret(), keyId: "k2", body: run }),
      /Bad signature/,
    );
    await expectRejected(
      await signedFetch(t.host.url, "/v1/run", { secret: t.secret, keyId: "k9", body: run }),
      /Unknown key id/,
    );
    await expectRejected(
      await signedFetch(t.host.url, "/v1/run", {
        secret: t.secret,
        keyId: "k2",
        body: run,
        headers: { "x-skillgate-signature": "0".repeat(64) },
      }),
      /Bad signature/,
    );
  });

  it("accepts the current and the previous key during a rotation", async () => {
    const quick = JSON.stringify({
      language: "shell",
      command: "echo",
      args: ["rotated"],
      timeoutMs: 5000,
    });
    const current = await signedFetch(t.host.url, "/v1/run", {
      secret: t.secret,
      keyId: "k2",
      body: quick,
    });
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ exitCode: 0, stdout: "rotated\n" });
    const previous = await signedFetch(t.host.url, "/v1/run", {
      secret: previousSecret,
      keyId: "k1",
      body: quick,
    });
    expect(previous.status).toBe(200);
    expect(previous.body).toMatchObject({ exitCode: 0, stdout: "rotated\n" });
    const swapped = await signedFetch(t.host.url, "/v1/run", {
      secret: previousSecret,
      keyId: "k2",
      body: quick,
    });
    await expectRejected(swapped, /Bad signature/);
  });

  it("refuses an oversized body with 413 before verifying it", async () => {
    const big = JSON.stringify({ language: "python", code: "#".repeat(70_000), timeoutMs: 1000 });
    const res = await signedFetch(t.host.url, "/v1/run", {
      secret: t.secret,
      keyId: "k2",
      body: big,
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: { code: "body_too_large" } });
  });

  it("answers 400 to signed but invalid input, and 404 to unknown routes only after auth", async () => {
    const bad = await signedFetch(t.host.url, "/v1/run", {
      secret: t.secret,
      keyId: "k2",
      body: JSON.stringify({ language: "ruby", code: "puts 1" }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: "invalid_input" } });
    const notJson = await signedFetch(t.host.url, "/v1/run", {
      secret: t.secret,
      keyId: "k2",
      body: "{",
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toMatchObject({ error: { code: "invalid_json" } });
    const unknownSigned = await signedFetch(t.host.url, "/v2/nothing", {
      secret: t.secret,
      keyId: "k2",
    });
    expect(unknownSigned.status).toBe(404);
    const unknownUnsigned = await fetch(`${t.host.url}/v2/nothing`);
    expect(unknownUnsigned.status).toBe(401);
  });
});
