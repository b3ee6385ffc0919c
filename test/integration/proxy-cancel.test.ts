/**
 * A client that goes away while an owned call runs cancels it: each SDK aborts its request
 * (streaming and not) while the skill's handler waits on a slow local server; the handler's own
 * outbound request is aborted, no further upstream round starts, and the execution row ends in a
 * terminal status (`error`, code `cancelled`; docs/execution.md#outcomes).
 */
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeServer, startFakeServer } from "../support/fakes/http.js";
import { ask, askStream } from "../support/proxy-clients.js";
import { FORMATS, type Format, formatOf, toolTurn } from "../support/proxy-fixtures.js";
import { sseOf, wantsStream } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand } from "../support/proxy-stand.js";

const SLOW = "slowLookup_v1_0_0";

let s: ProxyStand;
let slow: FakeServer;
/** Requests to the slow server whose connection the caller closed before any answer. */
let slowAborted = 0;
const waiting: ServerResponse[] = [];

beforeAll(async () => {
  s = await startProxyStand({ PROXY_KEEPALIVE_MS: "50" });
  slow = await startFakeServer((_req, res) => {
    waiting.push(res);
    res.on("close", () => {
      if (!res.writableFinished) slowAborted++;
    });
  });
  s.app.services.executor.registerHandler("slow-lookup", async (input, ctx) => {
    const q = String((input as { city?: unknown }).city);
    const res = await fetch(`${slow.url}/lookup?q=${encodeURIComponent(q)}`, {
      signal: ctx.signal,
    });
    return { body: await res.text() };
  });
  const res = await s.app.api.post("/api/skills/install", {
    name: "slowLookup",
    version: "1.0.0",
    handlerCode: "slow-lookup",
    description: "Looks a city up on a slow service",
    schema: { input: { city: { type: "string", required: true } } },
    apiKeyId: s.key.id,
  });
  if (res.status !== 201) throw new Error(`install failed: ${JSON.stringify(res.body)}`);
});
afterAll(async () => {
  for (const res of waiting) res.destroy();
  await slow.close();
  await s.close();
});

interface Row {
  id: string;
  status: string;
  errorCode: string | null;
  errorMessage: string | null;
  sessionId: string | null;
}

async function rowsOf(session: string): Promise<Row[]> {
  const res = await s.app.api.get<{ data: Row[] }>("/api/skills/executions?skill=slowLookup");
  return res.body.data.filter((r) => r.sessionId === session);
}

describe.each(FORMATS)("%s", (format: Format) => {
  it.each([
    ["streaming", true],
    ["non-streaming", false],
  ])(
    "%s: a client abort cancels the running skill and its outbound request",
    async (_l, stream) => {
      s.script((req, body) => {
        const f = formatOf(req.url.split("?")[0]!);
        const answer = toolTurn(f, [{ id: "k1", name: SLOW, args: { city: "Oslo" } }], 1);
        return wantsStream(req.url, body)
          ? { kind: "sse", events: sseOf(f, answer), chunkBytes: 9 }
          : { kind: "json", body: answer };
      });
      const session = `cancel-${format}-${stream}-${crypto.randomUUID()}`;
      const before = slowAborted;
      const seen = slow.requests.length;
      const ac = new AbortController();
      const opts = { signal: ac.signal, headers: { "x-skillgate-session": session } };
      const pending = stream
        ? askStream(format, s.app.url, s.key.key, "weather in Oslo?", opts)
        : ask(format, s.app.url, s.key.key, "weather in Oslo?", opts);
      pending.catch(() => undefined);
      // The skill is running: its handler's request reached the slow server.
      await expect.poll(() => slow.requests.length, { timeout: 10_000 }).toBe(seen + 1);
      expect(slow.requests[seen]!.url).toBe("/lookup?q=Oslo");
      const running = await rowsOf(session);
      expect(running.map((r) => r.status)).toEqual(["running"]);
      ac.abort();
      await expect(pending).rejects.toBeDefined();
      // The handler's outbound request was aborted, and the row ended terminal.
      await expect.poll(() => slowAborted, { timeout: 10_000 }).toBe(before + 1);
      await expect
        .poll(async () => (await rowsOf(session))[0]?.errorCode, { timeout: 10_000 })
        .toBe("cancelled");
      const [row] = await rowsOf(session);
      expect(row!.status).toBe("error");
      expect(row!.errorMessage).toMatch(/^cancelled: /);
      expect(row!.id).toBe(running[0]!.id);
      // No follow-up round was sent to the upstream.
      expect(s.requests()).toHaveLength(1);
    },
  );
});
