/**
 * A streamed proxy answer where the runtime has an execution context (the Worker): the stream
 * records its usage and routing observation when it ends, after the app's own `waitUntil` hook
 * has run, so the proxy hands the runtime a promise that settles only once those writes have
 * ended (docs/limits.md#token-budgets). The app runs in Node with a recording execution context,
 * on a real libSQL file, against a scripted upstream on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../workers/src/app.js";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { parseConfig } from "../../workers/src/config.js";
import { MGMT_TOKEN, openDb, tempDir } from "../support/app.js";
import { startScriptedLlm } from "../support/fakes/llm-script.js";
import { textTurn } from "../support/proxy-fixtures.js";
import { chatStreamContent, sseOf } from "../support/proxy-sse.js";

type Opened = Awaited<ReturnType<typeof openDb>>;

let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
let opened: Opened;
let cleanup: () => void;

beforeAll(async () => {
  llm = await startScriptedLlm((_req, _body, n) => ({
    kind: "sse",
    events: sseOf("openai-chat", textTurn("openai-chat", "hello from upstream", n)),
  }));
  const tmp = tempDir();
  cleanup = tmp.cleanup;
  opened = await openDb(`file:${tmp.dir}/keepalive.db`);
});

afterAll(async () => {
  await llm.close();
  opened.client.close();
  cleanup();
});

/** An execution context that records what it is asked to wait for. */
function recordingContext() {
  const waited: Promise<unknown>[] = [];
  return {
    waited,
    ctx: {
      waitUntil: (p: Promise<unknown>) => {
        waited.push(p);
      },
      passThroughOnException: () => {},
      props: {},
    },
  };
}

const settledNow = async (p: Promise<unknown>) =>
  Promise.race([p.then(() => "settled"), new Promise((r) => setTimeout(() => r("pending"), 50))]);

describe("a streamed proxy answer with an execution context", () => {
  it("keeps the runtime until the stream's usage and observation are written", async () => {
    const { app } = createApp({
      db: opened.db,
      cache: new MemoryCache(),
      config: parseConfig({ MGMT_TOKEN, UPSTREAM_OPENAI_BASE_URL: `${llm.url}/v1` }),
      runtime: "workerd",
    });
    const created = await app.fetch(
      new Request("http://skillgate.test/api/keys", {
        method: "POST",
        headers: { authorization: `Bearer ${MGMT_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "keepalive" }),
      }),
      {},
      recordingContext().ctx,
    );
    expect(created.status).toBe(201);
    const key = (await created.json()) as { key: string; apiKey: { id: string } };

    const { ctx, waited } = recordingContext();
    const res = await app.fetch(
      new Request("http://skillgate.test/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "gpt-test",
          stream: true,
          messages: [{ role: "user", content: "hi" }],
        }),
      }),
      {},
      ctx,
    );
    expect(res.status).toBe(200);
    // The answer has started; the promise handed to the runtime waits for the stream's end.
    expect(waited.length).toBeGreaterThan(0);
    expect(await settledNow(Promise.all(waited))).toBe("pending");

    const text = await res.text();
    expect(chatStreamContent(text)).toBe("hello from upstream");
    await Promise.all(waited);
    // Written by the time what the runtime waited for has settled.
    const usage = await opened.client.execute({
      sql: "select requests, input_tokens, output_tokens from api_key_token_usage where api_key_id = ?",
      args: [key.apiKey.id],
    });
    expect(usage.rows.map((r) => ({ ...r }))).toEqual([
      { requests: 1, input_tokens: 10, output_tokens: 5 },
    ]);
    const calls = await opened.client.execute({
      sql: "select model, status from upstream_calls where api_key_id = ?",
      args: [key.apiKey.id],
    });
    expect(calls.rows.map((r) => ({ ...r }))).toEqual([{ model: "gpt-test", status: "success" }]);
  });
});
