/**
 * Hostile bodies on `/mcp`, over real HTTP on 127.0.0.1 with a concurrent `/api/health` probe:
 * the largest 2025-03-26 batch, a batch past the bound, a body past `MAX_BODY_BYTES` and JSON
 * nested past `MAX_JSON_DEPTH` are each answered (or refused with a 4xx) while the API keeps
 * answering; nothing answers 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BATCH_MESSAGES } from "../../workers/src/mcp/route.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { expectApiAvailable, startHealthProbe } from "../support/health-probe.js";
import { mcpHeaders } from "../support/mcp.js";

let t: TestApp;
let key: { key: string; id: string };

beforeAll(async () => {
  t = await startTestApp();
  key = await t.api.createKey("mcp-hostile");
});
afterAll(async () => {
  await t?.close();
});

const postRaw = (body: string, version = "2025-03-26") =>
  fetch(`${t.url}/mcp`, {
    method: "POST",
    headers: mcpHeaders(key.key, { "mcp-protocol-version": version }),
    body,
  });

/** Runs `fn` with the health probe on and checks the API kept answering. */
async function whileProbing<T>(fn: () => Promise<T>): Promise<T> {
  const probe = startHealthProbe(t.url);
  try {
    return await fn();
  } finally {
    const report = await probe.stop();
    expectApiAvailable(report);
  }
}

describe("MCP hostile bodies", () => {
  it("answers the largest batch in full and refuses a longer one before running anything", async () => {
    const batch = Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "tools/list",
    }));
    const res = await whileProbing(() => postRaw(JSON.stringify(batch)));
    expect(res.status).toBe(200);
    const answers = await res.json();
    expect(answers).toHaveLength(MAX_BATCH_MESSAGES);
    expect(answers.map((a: { id: number }) => a.id)).toEqual(batch.map((m) => m.id));

    const longer = [...batch, { jsonrpc: "2.0", id: "x", method: "tools/list" }];
    const refused = await postRaw(JSON.stringify(longer));
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.code).toBe(-32600);
  });

  it("refuses a body past MAX_BODY_BYTES with 413 and JSON nested past MAX_JSON_DEPTH with 400", async () => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x".repeat(2 * 1024 * 1024) } },
    });
    const tooBig = await whileProbing(() => postRaw(big, "2025-11-25"));
    expect(tooBig.status).toBe(413);
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const tooDeep = await whileProbing(() => postRaw(deep, "2025-11-25"));
    expect(tooDeep.status).toBe(400);
    expect((await tooDeep.json()).error.code).toBe(-32700);
  });
});
