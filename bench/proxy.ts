/**
 * Proxy benchmark (docs/proxy.md): with 1,000 registered skills and a local scripted upstream on
 * 127.0.0.1 (Chat Completions wire format), measured side by side in one run:
 * - time the proxy adds per round: (two-round proxy request − one-round proxy request) − one
 *   direct upstream call − the owned call's own execution time (executor + its history row);
 *   that is inject + extract + follow-up building;
 * - time the proxy adds to the first byte of a stream: proxy time to first byte − direct.
 * Targets: ≤ 1 ms per round at p50, ≤ 1 ms added to first byte. Run: `npm run bench -- proxy`.
 */

import { startScriptedLlm } from "../test/support/fakes/llm-script.js";
import { textTurn, toolResults, toolTurn } from "../test/support/proxy-fixtures.js";
import { sseOf } from "../test/support/proxy-sse.js";
import { skills } from "../workers/src/db/schema.js";
import { getFormatAdapter } from "../workers/src/formats/index.js";
import { appendTurn, type ProxyRequest, prepareRequest } from "../workers/src/proxy/loop.js";
import { proxyServices } from "../workers/src/proxy/routes.js";
import { startBenchApi } from "./api.js";
import { fmt, interleave, median, row } from "./stats.js";

/** Runs the proxy benchmark and prints its table. @returns the medians in ms. */
export async function runProxyBench(count = 1_000): Promise<Record<string, number>> {
  const llm = await startScriptedLlm((_req, body, n) => {
    const wantsTool = JSON.stringify(body).includes("use the tool");
    const answer =
      wantsTool && toolResults("openai-chat", body).length === 0
        ? toolTurn("openai-chat", [{ id: `c${n}`, name: "benchEcho_v1_0_0", args: { q: "x" } }], n)
        : textTurn("openai-chat", "done", n);
    return body.stream === true
      ? { kind: "sse", events: sseOf("openai-chat", answer) }
      : { kind: "json", body: answer };
  });
  const api = await startBenchApi({ UPSTREAM_OPENAI_BASE_URL: `${llm.url}/v1` });
  const { db, services } = api;
  services.executor.registerHandler("bench-echo", async (input) => input);
  const now = Date.now();
  const rows = Array.from({ length: count }, (_, i) => ({
    id: `skill-${i}`,
    name: i === 0 ? "benchEcho" : `skill-${String(i).padStart(4, "0")}`,
    version: "1.0.0",
    description: `Benchmark skill number ${i} that formats, searches and converts text`,
    schema: JSON.stringify({ input: { type: "object", properties: { q: { type: "string" } } } }),
    handlerCode: i === 0 ? "bench-echo" : "echo-handler",
    mode: (i === 0 ? "on" : "auto") as "on" | "auto",
    tags: JSON.stringify(["bench", `t${i % 20}`]),
    createdAt: now,
    updatedAt: now,
  }));
  for (let i = 0; i < rows.length; i += 200) await db.insert(skills).values(rows.slice(i, i + 200));
  await services.registry.invalidateCache();
  const key = (await api.post("/api/keys", { name: "bench" })) as { key: string };
  const skill = (await services.registry.snapshot()).skills.find((s) => s.name === "benchEcho")!;

  const post = async (base: string, body: object, auth: string) => {
    const res = await fetch(`${base}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${auth}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-bench", ...body }),
    });
    if (!res.ok) throw new Error(`${base}: ${res.status} ${await res.text()}`);
    return res;
  };
  const firstByte = async (res: Response) => {
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
  };
  const messages = (text: string) => [{ role: "user", content: text }];
  const proxy = `${api.url}/v1`;
  const direct = `${llm.url}/v1`;
  // In process: what the proxy itself does per round (inject, extract, build the follow-up).
  const svc = proxyServices(services, true);
  const adapter = getFormatAdapter("openai-chat");
  const turn = toolTurn(
    "openai-chat",
    [{ id: "c1", name: "benchEcho_v1_0_0", args: { q: "x" } }],
    1,
  );
  const proxyReq = (text: string): ProxyRequest => ({
    format: "openai-chat",
    body: { model: "gpt-bench", messages: messages(text) },
    headers: new Headers(),
    apiKeyId: null,
    sessionId: "bench",
    signal: new AbortController().signal,
  });
  const fns = {
    inProcess: async () => {
      const { request } = await prepareRequest(svc, proxyReq("use the tool"));
      const calls = adapter.extractCalls(turn);
      const results = adapter.followUp(
        calls.map((call) => ({
          call,
          status: "success" as const,
          output: { q: "x" },
          executionId: "e",
        })),
      );
      appendTurn("openai-chat", request, adapter.replayTurn(turn), results);
    },
    direct: async () => (await post(direct, { messages: messages("hello") }, "x")).arrayBuffer(),
    proxy1: async () => (await post(proxy, { messages: messages("hello") }, key.key)).arrayBuffer(),
    proxy2: async () =>
      (await post(proxy, { messages: messages("use the tool") }, key.key)).arrayBuffer(),
    execute: () =>
      services.executor.execute(skill, { q: "x" }, { apiKeyId: null, sessionId: null }),
    directTtfb: async () =>
      firstByte(await post(direct, { messages: messages("hello"), stream: true }, "x")),
    proxyTtfb: async () =>
      firstByte(await post(proxy, { messages: messages("hello"), stream: true }, key.key)),
  };
  await interleave(fns, 2, 20);
  const samples = await interleave(fns, 10, 30);
  const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  const perRound = m.proxy2! - m.proxy1! - m.direct! - m.execute!;
  const ttfb = m.proxyTtfb! - m.directTtfb!;
  console.log(`\nProxy (${count} registered skills, local upstream, medians)`);
  row("direct upstream call (JSON)", fmt(m.direct!));
  row("proxy, one round (no tool call)", fmt(m.proxy1!));
  row("proxy, two rounds (one owned call)", fmt(m.proxy2!));
  row("owned call execution (executor + row)", fmt(m.execute!));
  row("added per round (target ≤ 1 ms)", fmt(perRound));
  row("in process: inject + extract + follow-up", fmt(m.inProcess!));
  row("direct stream, time to first byte", fmt(m.directTtfb!));
  row("proxy stream, time to first byte", fmt(m.proxyTtfb!));
  row("added to first byte (target ≤ 1 ms)", fmt(ttfb));
  api.close();
  await llm.close();
  return { ...m, perRound, ttfb };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runProxyBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
