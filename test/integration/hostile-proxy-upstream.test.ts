/**
 * Hostile upstreams against the proxy, in each of the four formats, through the official SDKs:
 * a 20 MB event-stream line without a newline, tool-call arguments past their limit, a JSON
 * answer past its size limit, an upstream that stalls after its headers, an endless stream, a
 * time budget that runs out while a skill runs, and a turn of 500 tool calls. Each ends with a
 * clean error in the provider's shape (the stream's error event, or a provider-shaped 502/504),
 * `/api/health` keeps answering meanwhile, headers stay small and every execution row ends in a
 * terminal status (docs/proxy.md#limits, docs/proxy.md#time-budget).
 */
import type { ServerResponse } from "node:http";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectApiAvailable, startHealthProbe } from "../support/health-probe.js";
import { ask, askStream } from "../support/proxy-clients.js";
import {
  FORMATS,
  type Format,
  formatOf,
  textTurn,
  toolResults,
  toolTurn,
} from "../support/proxy-fixtures.js";
import { sseOf, wantsStream } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand, WEATHER } from "../support/proxy-stand.js";

const BUDGET_MS = 3000;
const IDLE_MS = 1000;
const MAX_ARGS = 2048;
const SLOW = "slowTool_v1_0_0";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand({
    PROXY_TIME_BUDGET_MS: String(BUDGET_MS),
    PROXY_IDLE_TIMEOUT_MS: String(IDLE_MS),
    PROXY_MAX_TOOL_ARGUMENTS_CHARS: String(MAX_ARGS),
    PROXY_MAX_UPSTREAM_BODY_BYTES: String(1024 * 1024),
    PROXY_KEEPALIVE_MS: "100",
  });
  // A skill that runs until it is cancelled.
  s.app.services.executor.registerHandler(
    "until-cancelled",
    (_input, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal?.addEventListener("abort", () => reject(ctx.signal?.reason), { once: true });
      }),
  );
  const res = await s.app.api.post("/api/skills/install", {
    name: "slowTool",
    version: "1.0.0",
    handlerCode: "until-cancelled",
    description: "Runs until cancelled",
    schema: { input: { city: { type: "string", required: true } } },
    apiKeyId: s.key.id,
  });
  if (res.status !== 201) throw new Error(`install failed: ${JSON.stringify(res.body)}`);
});
afterAll(() => s.close());

type Ev = { event?: string; data: unknown };
const frame = (e: Ev) =>
  `${e.event ? `event: ${e.event}\n` : ""}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`;

/** The first events of a text answer in `f`, up to and including its first text delta. */
function opening(f: Format): Ev[] {
  const evs = sseOf(f, textTurn(f, "tick tock tick tock", 1));
  const at = evs.findIndex((e) => JSON.stringify(e.data).includes('"tic'));
  return evs.slice(0, at + 1);
}

/** Writes `text` and waits for the socket to take it; false once the client went away. */
async function put(res: ServerResponse, text: string | Buffer): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(text))
    await new Promise<void>((r) => {
      res.once("drain", r);
      res.once("close", r);
    });
  return !res.destroyed;
}

const sseHead = (res: ServerResponse) =>
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });

/** The error a streamed question ends with (a stream that completes fails the test). */
async function streamError(f: Format, session?: string): Promise<{ message: string }> {
  const headers = session ? { "x-skillgate-session": session } : undefined;
  const out = await askStream(f, s.app.url, s.key.key, "hi", {
    headers,
    signal: AbortSignal.timeout(15_000),
  }).catch((e: unknown) => e);
  // The Responses stream helper rejects with the `error` event itself; the others with an Error.
  expect(typeof (out as { message?: unknown }).message).toBe("string");
  return out as { message: string };
}

/** The error a non-streaming question ends with, and its HTTP status. */
async function jsonError(
  f: Format,
  session?: string,
): Promise<{ status: number; message: string }> {
  const headers = session ? { "x-skillgate-session": session } : undefined;
  const out = await ask(f, s.app.url, s.key.key, "hi", {
    headers,
    signal: AbortSignal.timeout(15_000),
  }).catch((e: unknown) => e);
  if (f === "anthropic") expect(out).toBeInstanceOf(Anthropic.APIError);
  else if (f !== "gemini") expect(out).toBeInstanceOf(OpenAI.APIError);
  const err = out as { status: number; message: string };
  expect(typeof err.status).toBe("number");
  return { status: err.status, message: err.message };
}

describe.each(FORMATS)("%s", (format: Format) => {
  it("a 20 MB stream line without a newline ends the stream with an error; health keeps answering", async () => {
    let written = 0;
    s.script(() => ({
      kind: "raw",
      async write(res) {
        sseHead(res);
        for (const e of opening(format)) await put(res, frame(e));
        await put(res, "data: ");
        const piece = Buffer.alloc(64 * 1024, "x");
        while (written < 20 * 1024 * 1024 && (await put(res, piece))) written += piece.length;
        res.end();
      },
    }));
    const probe = startHealthProbe(s.app.url);
    const err = await streamError(format);
    const report = await probe.stop();
    expect(err.message).toContain("longer than 4194304 characters");
    // The proxy stopped reading soon after the limit (4 Mi characters), not at 20 MB.
    expect(written).toBeLessThan(12 * 1024 * 1024);
    expectApiAvailable(report);
  });

  it("tool-call arguments past the limit end the stream with an error, and nothing runs", async () => {
    const session = `args-stream-${format}`;
    const aborted = s.llm.aborted();
    s.script((req) => {
      const f = formatOf(req.url.split("?")[0]!);
      const big = toolTurn(f, [{ id: "a1", name: WEATHER, args: { city: "y".repeat(3000) } }], 1);
      const events = sseOf(f, big);
      // Chat and Anthropic send arguments in pieces, checked as they are joined: the stream then
      // stays open and the proxy must close it itself. Responses and Gemini send calls whole.
      const pieces = f === "openai-chat" || f === "anthropic";
      return { kind: "sse", events, hangAfter: pieces ? events.length - 1 : undefined };
    });
    const err = await streamError(format, session);
    expect(err.message).toContain(`arguments longer than ${MAX_ARGS} characters`);
    if (format === "openai-chat" || format === "anthropic")
      await expect.poll(() => s.llm.aborted(), { timeout: 5000 }).toBeGreaterThan(aborted);
    expect(s.requests()).toHaveLength(1);
    const rows = await s.app.api.get<{ data: unknown[] }>(
      `/api/skills/executions?sessionId=${session}`,
    );
    expect(rows.body.data).toEqual([]);
  });

  it("tool-call arguments past the limit in a JSON answer are a provider-shaped 502", async () => {
    s.script((req) => {
      const f = formatOf(req.url.split("?")[0]!);
      const big = toolTurn(f, [{ id: "a1", name: WEATHER, args: { city: "y".repeat(3000) } }], 1);
      return { kind: "json", body: big };
    });
    const err = await jsonError(format);
    expect(err.status).toBe(502);
    expect(err.message).toContain(`arguments longer than ${MAX_ARGS} characters`);
    expect(s.requests()).toHaveLength(1);
  });

  it("a JSON answer past its size limit is a provider-shaped 502 upstream_too_large", async () => {
    s.script((req) => {
      const f = formatOf(req.url.split("?")[0]!);
      return { kind: "json", body: textTurn(f, "z".repeat(3 * 1024 * 1024), 1) };
    });
    const err = await jsonError(format);
    expect(err.status).toBe(502);
    expect(err.message).toContain("larger than 1048576 bytes");
  });

  it("an upstream stream that stalls after its headers ends with an idle-timeout error", async () => {
    const aborted = s.llm.aborted();
    s.script(() => ({
      kind: "raw",
      async write(res) {
        sseHead(res);
        for (const e of opening(format)) await put(res, frame(e));
      },
    }));
    const probe = startHealthProbe(s.app.url);
    const err = await streamError(format);
    const report = await probe.stop();
    expect(err.message).toContain(`The upstream sent nothing for ${IDLE_MS} ms`);
    await expect.poll(() => s.llm.aborted(), { timeout: 5000 }).toBeGreaterThan(aborted);
    expectApiAvailable(report);
  });

  it("a JSON body that stalls after its headers is a provider-shaped 504", async () => {
    s.script(() => ({
      kind: "raw",
      write(res) {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"id":');
      },
    }));
    const err = await jsonError(format);
    expect(err.status).toBe(504);
    expect(err.message).toContain(`The upstream sent nothing for ${IDLE_MS} ms`);
  });

  it("an endless stream is cut at the time budget with an error event", async () => {
    const aborted = s.llm.aborted();
    s.script(() => ({
      kind: "raw",
      async write(res) {
        sseHead(res);
        const evs = opening(format);
        for (const e of evs) await put(res, frame(e));
        const tick = frame(evs[evs.length - 1]!);
        while (await put(res, tick)) await new Promise((r) => setTimeout(r, 50));
      },
    }));
    const err = await streamError(format);
    expect(err.message).toContain(`did not end within the time budget of ${BUDGET_MS} ms`);
    await expect.poll(() => s.llm.aborted(), { timeout: 5000 }).toBeGreaterThan(aborted);
  });

  it.each([
    ["streaming", true],
    ["non-streaming", false],
  ])(
    "%s: the budget running out while a skill runs cancels it and answers an error",
    async (_label, stream) => {
      const session = `budget-${format}-${stream}`;
      s.script((req, body) => {
        const f = formatOf(req.url.split("?")[0]!);
        const turn = toolTurn(f, [{ id: "s1", name: SLOW, args: { city: "Oslo" } }], 1);
        return wantsStream(req.url, body)
          ? { kind: "sse", events: sseOf(f, turn) }
          : { kind: "json", body: turn };
      });
      if (stream) {
        const err = await streamError(format, session);
        expect(err.message).toContain(`time budget of ${BUDGET_MS} ms ran out while skills ran`);
      } else {
        const err = await jsonError(format, session);
        expect(err.status).toBe(504);
        expect(err.message).toContain(`time budget of ${BUDGET_MS} ms ran out while skills ran`);
      }
      expect(s.requests()).toHaveLength(1);
      await expect
        .poll(
          async () =>
            (
              await s.app.api.get<{ data: { status: string; errorCode: string | null }[] }>(
                `/api/skills/executions?sessionId=${session}`,
              )
            ).body.data.map((r) => [r.status, r.errorCode]),
          { timeout: 5000 },
        )
        .toEqual([["error", "cancelled"]]);
    },
  );

  it("500 owned calls in one turn: small headers, at most 32 run, the rest get tool errors", async () => {
    const session = `many-${format}`;
    const calls = Array.from({ length: 500 }, (_, i) => ({
      id: `m${i}`,
      name: WEATHER,
      args: { city: `c${i}` },
    }));
    s.script((req, body) => {
      const f = formatOf(req.url.split("?")[0]!);
      return toolResults(f, body).length === 0
        ? { kind: "json", body: toolTurn(f, calls, 1) }
        : { kind: "json", body: textTurn(f, "done", 2) };
    });
    const answer = await ask(format, s.app.url, s.key.key, "hi", {
      headers: { "x-skillgate-session": session },
    });
    expect(answer.text).toBe("done");
    const h = answer.headers;
    expect(h.get("x-skillgate-executions")!.split(",")).toHaveLength(20);
    expect(h.get("x-skillgate-executions-count")).toBe("32");
    expect(h.get("x-skillgate-executions-truncated")).toBe("true");
    expect(h.get("x-skillgate-executions-url")).toBe(`/api/skills/executions?sessionId=${session}`);
    let headerBytes = 0;
    h.forEach((v, k) => {
      if (k.startsWith("x-skillgate-")) headerBytes += k.length + v.length;
    });
    expect(headerBytes).toBeLessThan(2048);
    const second = s.requests()[1]!;
    const results = toolResults(format, second.body);
    expect(results).toHaveLength(500);
    expect(results.filter((r) => r.text.includes("Not run"))).toHaveLength(468);
    const rows = await s.app.api.get<{ data: { status: string }[] }>(
      `/api/skills/executions?sessionId=${session}&limit=100`,
    );
    expect(rows.body.data).toHaveLength(32);
    expect(new Set(rows.body.data.map((r) => r.status))).toEqual(new Set(["success"]));
  });
});

describe("a streamed turn of 500 owned calls", () => {
  it("lists at most 20 execution ids in the trailing comment, with their count", async () => {
    const session = "many-stream-chat";
    const calls = Array.from({ length: 500 }, (_, i) => ({
      id: `m${i}`,
      name: WEATHER,
      args: { city: `c${i}` },
    }));
    s.script((_req, body) =>
      toolResults("openai-chat", body).length === 0
        ? { kind: "sse", events: sseOf("openai-chat", toolTurn("openai-chat", calls, 1)) }
        : { kind: "sse", events: sseOf("openai-chat", textTurn("openai-chat", "done", 2)) },
    );
    const res = await fetch(`${s.app.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${s.key.key}`,
        "content-type": "application/json",
        "x-skillgate-session": session,
      },
      body: JSON.stringify({
        model: "gpt-test",
        stream: true,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    const text = await res.text();
    const trailer = text.split("\n").find((l) => l.startsWith(": x-skillgate-rounds="));
    expect(trailer).toBeDefined();
    expect(trailer).toContain("x-skillgate-rounds=2");
    expect(trailer).toContain("x-skillgate-executions-count=32");
    const ids = /x-skillgate-executions=([^;]*)/.exec(trailer!)![1]!.split(",");
    expect(ids).toHaveLength(20);
    const results = toolResults("openai-chat", s.requests()[1]!.body);
    expect(results).toHaveLength(500);
    expect(results.filter((r) => r.text.includes("Not run"))).toHaveLength(468);
  });
});

describe("with the master switch off (pass-through)", () => {
  let off: ProxyStand;
  beforeAll(async () => {
    off = await startProxyStand({ PROXY_TIME_BUDGET_MS: "2000", PROXY_IDLE_TIMEOUT_MS: "500" });
    const res = await off.app.api.put("/api/settings", { skillsEnabled: false });
    if (res.status !== 200) throw new Error(`settings: ${JSON.stringify(res.body)}`);
  });
  afterAll(() => off.close());

  it.each(FORMATS)(
    "%s: a relayed stream that stalls or never ends is cut, not left hanging",
    async (format) => {
      for (const endless of [false, true]) {
        const aborted = off.llm.aborted();
        off.script(() => ({
          kind: "raw",
          async write(res) {
            sseHead(res);
            const evs = opening(format);
            for (const e of evs) await put(res, frame(e));
            const tick = frame(evs[evs.length - 1]!);
            while (endless && (await put(res, tick))) await new Promise((r) => setTimeout(r, 50));
          },
        }));
        const client = AbortSignal.timeout(15_000);
        const out = await askStream(format, off.app.url, off.key.key, "hi", {
          signal: client,
        }).catch((e: unknown) => e);
        expect(out).toBeInstanceOf(Error);
        // Cut by the proxy, not by the client's own timeout.
        expect(client.aborted).toBe(false);
        await expect.poll(() => off.llm.aborted(), { timeout: 5000 }).toBeGreaterThan(aborted);
      }
    },
  );
});

describe("an upstream error status with oversized rate-limit headers", () => {
  it("passes on its headers cut to 256 characters each", async () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 12; i++) headers[`x-ratelimit-extra-${i}`] = "9".repeat(1000);
    s.script(() => ({
      kind: "json",
      status: 429,
      headers: { "retry-after": "3", ...headers },
      body: { error: { message: "slow", type: "requests", param: null, code: "rate_limit" } },
    }));
    const res = await fetch(`${s.app.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("3");
    expect(res.headers.get("x-ratelimit-extra-0")).toBe("9".repeat(256));
    let total = 0;
    res.headers.forEach((v, k) => {
      total += k.length + v.length;
    });
    expect(total).toBeLessThan(6 * 1024);
  });
});
