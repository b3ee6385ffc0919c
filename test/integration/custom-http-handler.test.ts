/**
 * HTTP-handler skills against a real endpoint on 127.0.0.1 that verifies each request's Standard
 * Webhooks signature with the reference `standardwebhooks` library.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";

interface Received {
  headers: IncomingMessage["headers"];
  body: string;
  verified: boolean;
}

/** A local endpoint whose answers a test scripts, one per request. */
class Endpoint {
  readonly received: Received[] = [];
  secret = "";
  answers: Array<(res: ServerResponse, body: string) => void> = [];
  private server: Server;
  url = "";

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        let verified = false;
        try {
          new Webhook(this.secret).verify(body, {
            "webhook-id": String(req.headers["webhook-id"]),
            "webhook-timestamp": String(req.headers["webhook-timestamp"]),
            "webhook-signature": String(req.headers["webhook-signature"]),
          });
          verified = true;
        } catch {
          verified = false;
        }
        this.received.push({ headers: req.headers, body, verified });
        const answer = this.answers.shift();
        if (!verified) {
          res.writeHead(401).end("bad signature");
        } else if (answer) {
          answer(res, body);
        } else {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ echoed: JSON.parse(body) }));
        }
      });
    });
  }

  async start(): Promise<void> {
    this.server.listen(0, "127.0.0.1");
    await new Promise<void>((r) => this.server.once("listening", () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

const schema = {
  input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};

describe("HTTP-handler skills", () => {
  let endpoint: Endpoint;
  let t: TestApp;

  beforeEach(async () => {
    endpoint = new Endpoint();
    await endpoint.start();
    t = await startTestApp({
      env: {
        SKILLS_HTTP_HANDLER_ALLOWLIST: endpoint.url,
        SKILLS_HTTP_HANDLER_MAX_RESPONSE_BYTES: "2048",
      },
    });
  });
  afterEach(async () => {
    await t.close();
    await endpoint.close();
  });

  async function install(name: string, timeoutMs?: number) {
    const res = await t.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      schema,
      handler: { type: "http", url: `${endpoint.url}/hook`, ...(timeoutMs ? { timeoutMs } : {}) },
    });
    expect(res.status).toBe(201);
    endpoint.secret = res.body.secret;
    return res.body;
  }

  function run(name: string, sessionId?: string) {
    return t.api.post("/api/skills/executions", {
      skillName: name,
      input: { text: "hello" },
      ...(sessionId ? { sessionId } : {}),
    });
  }

  it("signs the request, sends the ids and returns the JSON answer; the secret is shown once", async () => {
    const installed = await install("hook-ok");
    expect(installed.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(installed.skill.handler).toEqual({
      type: "http",
      url: `${endpoint.url}/hook`,
      method: "POST",
    });
    const res = await run("hook-ok", "session-42");
    expect(res.status).toBe(200);
    expect(res.body.execution).toMatchObject({
      status: "success",
      output: { echoed: { text: "hello" } },
      attempts: 1,
    });
    const got = endpoint.received[0]!;
    expect(got.verified).toBe(true);
    expect(got.headers["webhook-id"]).toBe(res.body.execution.id);
    expect(got.headers["skillgate-execution-id"]).toBe(res.body.execution.id);
    expect(got.headers["skillgate-session-id"]).toBe("session-42");
    expect(JSON.parse(got.body)).toEqual({ text: "hello" });

    const read = await t.api.get(`/api/skills/${installed.skill.id}`);
    expect(JSON.stringify(read.body)).not.toContain(installed.secret);
    const list = await t.api.get("/api/skills?q=hook-ok");
    expect(JSON.stringify(list.body)).not.toContain(installed.secret);
  });

  it("rotates the secret: the old one no longer verifies, the new one does", async () => {
    const installed = await install("hook-rotate");
    const rotated = await t.api.post(`/api/skills/${installed.skill.id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(installed.secret);
    // The endpoint still holds the old secret: the request fails its verification (401).
    const stale = await run("hook-rotate");
    expect(stale.body.execution).toMatchObject({ status: "error", errorCode: "http_error" });
    expect(stale.body.execution.errorMessage).toContain("401");
    endpoint.secret = rotated.body.secret;
    const fresh = await run("hook-rotate");
    expect(fresh.body.execution.status).toBe("success");
  });

  it("retries a 500 and succeeds on the next attempt", async () => {
    await install("hook-retry");
    endpoint.answers.push((res) => res.writeHead(500).end("upstream broke"));
    const res = await run("hook-retry");
    expect(res.body.execution).toMatchObject({
      status: "success",
      attempts: 2,
      output: { echoed: { text: "hello" } },
    });
    expect(endpoint.received.map((r) => r.headers["skillgate-attempt"])).toEqual(["1", "2"]);
    expect(endpoint.received.every((r) => r.verified)).toBe(true);
  });

  it("honours Retry-After of a 429 within the time limit", async () => {
    await install("hook-429", 10_000);
    endpoint.answers.push((res) => res.writeHead(429, { "retry-after": "1" }).end("slow down"));
    const res = await run("hook-429");
    expect(res.body.execution).toMatchObject({ status: "success", attempts: 2 });
    const [first, second] = endpoint.received;
    const gapS =
      Number(second!.headers["webhook-timestamp"]) - Number(first!.headers["webhook-timestamp"]);
    expect(gapS).toBeGreaterThanOrEqual(1);
  });

  it("gives up when Retry-After passes the time limit, with the status and body in the error", async () => {
    await install("hook-429-long", 2_000);
    endpoint.answers.push((res) =>
      res.writeHead(429, { "retry-after": "30" }).end("come back later"),
    );
    const res = await run("hook-429-long");
    expect(res.body.execution).toMatchObject({
      status: "error",
      errorCode: "http_error",
      attempts: 1,
    });
    expect(res.body.execution.errorMessage).toBe("HTTP handler answered 429: come back later");
  });

  it("times out an endpoint that does not answer", async () => {
    await install("hook-slow", 300);
    endpoint.answers.push(() => {
      // Never answers.
    });
    const res = await run("hook-slow");
    expect(res.body.execution).toMatchObject({ status: "timeout", errorCode: "timeout" });
  });

  it("refuses an answer over the size cap and caps a failing body in the message", async () => {
    await install("hook-big");
    endpoint.answers.push((res) =>
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ blob: "x".repeat(5000) })),
    );
    const big = await run("hook-big");
    expect(big.body.execution).toMatchObject({ status: "error", errorCode: "response_too_large" });
    endpoint.answers.push((res) => res.writeHead(400).end("y".repeat(1800)));
    const bad = await run("hook-big");
    expect(bad.body.execution.errorCode).toBe("http_error");
    expect(bad.body.execution.errorMessage).toBe(`HTTP handler answered 400: ${"y".repeat(1000)}`);
  });

  it("refuses a URL off the allowlist at install, and a key may not install one", async () => {
    const off = await t.api.post("/api/skills/install", {
      name: "hook-off",
      version: "1.0.0",
      schema,
      handler: { type: "http", url: "http://127.0.0.1:1/elsewhere" },
    });
    expect(off.status).toBe(400);
    expect(off.body.error.code).toBe("url_not_allowed");
    const key = await t.api.createKey("tenant");
    const byKey = await t.api.as(key.key).post("/api/skills/install", {
      name: "hook-key",
      version: "1.0.0",
      schema,
      handler: { type: "http", url: `${endpoint.url}/hook` },
    });
    expect(byKey.status).toBe(403);
    const all = await t.api.get("/api/skills?q=hook-");
    expect(all.body.total).toBe(0);
  });

  it("refuses the reserved handler name without a spec", async () => {
    const res = await t.api.post("/api/skills/install", {
      name: "hook-bare",
      version: "1.0.0",
      schema,
      handlerCode: "http-handler",
    });
    expect(res.status).toBe(400);
  });
});
