/**
 * Proxy benchmark (docs/proxy.md#cost): with 1,000 registered skills and a local scripted upstream
 * on 127.0.0.1 (Chat Completions wire format), measured side by side in one run (1,000 samples per
 * series, interleaved in blocks of 50), medians, p95 and p99:
 * - time the proxy adds per round: inside every proxied request the upstream calls (until their
 *   body is read) and the owned call's execution (executor + its history row) are timed and
 *   taken out, which leaves the proxy's own time (HTTP hop, auth, inject, extract, follow-up);
 *   a two-round request's own time minus a one-round request's, sample by sample, is the time
 *   one more round adds (extract + intercept bookkeeping + follow-up + the next call's framing);
 *   the one-round request's own time is the fixed cost per request;
 * - time the proxy adds to the first byte of a stream: time to the first `data:` event through
 *   the proxy minus the same directly from the upstream (both count the first event the client
 *   can use; the upstream's leading `: stream opened` comment is not one; both streams are then
 *   read to their end, as clients do, so connections are reused); and the proxy's own share of
 *   it: that time minus the upstream's own time to its first event, seen from the proxy.
 * Beside them, the floor: the same requests through a bare pass-through on the same stack
 * (bench/proxy-floor.ts), i.e. what any proxy written on Hono and Node adds on this machine.
 * The upstream and the timing client (Node's HTTP client, the leanest instrument) are
 * bench/proxy-peers.ts; they run in this process, or with `BENCH_PROXY_PEERS=process` in one of
 * their own (then every request also crosses processes, and the machine's wake-up latency shows).
 * Targets: ≤ 1 ms per round and to the first byte at p50, ≤ 3 ms at p99.
 * Run: `npm run bench -- proxy`.
 */

import { toolTurn } from "../test/support/proxy-fixtures.js";
import { skills } from "../workers/src/db/schema.js";
import { getFormatAdapter } from "../workers/src/formats/index.js";
import { turnStore } from "../workers/src/services/gateway/mixed-turn.js";
import { appendTurn, prepareRequest } from "../workers/src/services/gateway/prepare.js";
import { startBenchApi } from "./api.js";
import { startPassThrough } from "./proxy-floor.js";
import { type PeerOp, startPeers } from "./proxy-peers.js";
import { fmt, interleaveReported, median, percentile, row } from "./stats.js";

/** Runs the proxy benchmark and prints its table. @returns the medians in ms. */
export async function runProxyBench(count = 1_000): Promise<Record<string, number>> {
  // The upstream and the timing client: in this process (the default; one event loop, so no
  // wake-ups across processes in the figures), or in a process of their own, as in deployment.
  const peers = await startPeers(process.env.BENCH_PROXY_PEERS !== "process");
  const api = await startBenchApi({ UPSTREAM_OPENAI_BASE_URL: peers.upstream });
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
  const passThrough = await startPassThrough(peers.upstream);
  peers.target(`${api.url}/v1`, passThrough.url, key.key);

  // Time spent inside a proxied request on the upstream and on the owned call's execution.
  const inside = { upstream: 0, execute: 0 };
  const upstreamFetch = services.proxy.settings.fetch;
  // The client-side figures go through the proxy as deployed; the timed series (the proxy's own
  // share of the first event) wraps the upstream fetch, which adds a stream layer of its own.
  let streamTimed = false;
  services.proxy.settings.fetch = async (input, init) => {
    const t0 = performance.now();
    const res = await upstreamFetch(input, init);
    if (res.headers.get("content-type")?.includes("event-stream")) {
      if (!streamTimed) return res;
      // Upstream share of a stream's first event: from the call to its first `data:` bytes.
      let seen = false;
      const timed = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          if (!seen && new TextDecoder().decode(chunk).includes("data:")) {
            seen = true;
            inside.upstream += performance.now() - t0;
          }
          out.enqueue(chunk);
        },
      });
      return new Response(res.body!.pipeThrough(timed), {
        status: res.status,
        headers: res.headers,
      });
    }
    const body = await res.arrayBuffer();
    inside.upstream += performance.now() - t0;
    return new Response(body, { status: res.status, headers: res.headers });
  };
  const execute = services.executor.execute.bind(services.executor);
  services.executor.execute = async (...args) => {
    const t0 = performance.now();
    try {
      return await execute(...args);
    } finally {
      inside.execute += performance.now() - t0;
    }
  };
  /** The client's time of `op`, and the proxy's own share of it (minus upstream and execution). */
  const own = { proxy1: [] as number[], proxy2: [] as number[], proxyStreamTimed: [] as number[] };
  const parts = { upstream: [] as number[], execute: [] as number[] };
  const ownTime = (name: keyof typeof own, op: PeerOp) => async () => {
    inside.upstream = 0;
    inside.execute = 0;
    streamTimed = name === "proxyStreamTimed";
    const ms = await peers.run(op);
    streamTimed = false;
    own[name].push(ms - inside.upstream - inside.execute);
    if (name === "proxy2") {
      parts.upstream.push(inside.upstream);
      parts.execute.push(inside.execute);
    }
    return ms;
  };
  // In process: what the proxy itself does per round (inject, extract, build the follow-up).
  const adapter = getFormatAdapter("openai-chat");
  const store = turnStore(services.proxy, null, "openai-chat");
  const turn = toolTurn(
    "openai-chat",
    [{ id: "c1", name: "benchEcho_v1_0_0", args: { q: "x" } }],
    1,
  );
  const inject = (request: Record<string, unknown>) =>
    services.tools.inject({ format: "openai-chat", request }, null);
  const fns: Record<string, () => Promise<number>> = {
    inProcess: async () => {
      const t0 = performance.now();
      const body = { model: "gpt-bench", messages: [{ role: "user", content: "use the tool" }] };
      const { request } = await prepareRequest(adapter, store, body, inject);
      const calls = adapter.extractCalls(turn);
      const results = adapter.followUp(
        calls.map((call) => ({
          call,
          status: "success" as const,
          output: { q: "x" },
          executionId: "e",
        })),
      );
      appendTurn(adapter, request, adapter.replayTurn(turn), results);
      return performance.now() - t0;
    },
    direct: () => peers.run("direct"),
    floor: () => peers.run("floor"),
    proxy1: ownTime("proxy1", "proxy1"),
    proxy2: ownTime("proxy2", "proxy2"),
    directStream: () => peers.run("directStream"),
    floorStream: () => peers.run("floorStream"),
    proxyStream: () => peers.run("proxyStream"),
    proxyStreamTimed: ownTime("proxyStreamTimed", "proxyStream"),
  };
  await interleaveReported(fns, 2, 20);
  for (const v of [...Object.values(own), ...Object.values(parts)]) v.length = 0;
  // 1,000 samples per series: the p99 is then the 10th slowest, not the 3rd.
  const samples = await interleaveReported(fns, 20, 50);
  const ttfbs = {
    direct: samples.directStream!,
    proxy: samples.proxyStream!,
    proxyOwn: own.proxyStreamTimed,
    floor: samples.floorStream!,
  };
  const perRoundSamples = own.proxy2.map((t, i) => t - own.proxy1[i]!);
  const stat = (v: readonly number[]) => ({
    p50: median(v),
    p95: percentile(v, 95),
    p99: percentile(v, 99),
  });
  const s50 = (k: string) => median(samples[k]!);
  const m = Object.fromEntries(Object.keys(samples).map((k) => [k, s50(k)]));
  const perRound = stat(perRoundSamples);
  const perRequest = stat(own.proxy1);
  const ttfb = stat(ttfbs.proxy.map((t, i) => t - ttfbs.direct[i]!));
  const floorTtfb = stat(ttfbs.floor.map((t, i) => t - ttfbs.direct[i]!));
  const floorAdded = samples.floor!.map((t, i) => t - samples.direct![i]!);
  const cols = (v: readonly number[]) => [
    fmt(median(v)),
    fmt(percentile(v, 95)),
    fmt(percentile(v, 99)),
  ];
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  console.log(
    `\nProxy (${count} registered skills, local upstream; client and upstream ${process.env.BENCH_PROXY_PEERS === "process" ? "in a process of their own" : "in this process"})`,
  );
  row("", "p50", "p95", "p99", "vs direct");
  row("direct upstream call (JSON)", ...cols(samples.direct!));
  row("proxy, one round (no tool call)", ...cols(samples.proxy1!), ratio(m.proxy1!, m.direct!));
  row("bare pass-through, same stack (floor)", ...cols(samples.floor!), ratio(m.floor!, m.direct!));
  row("proxy, two rounds (one owned call)", ...cols(samples.proxy2!));
  row("  of which its two upstream calls", ...cols(parts.upstream));
  row("  of which the owned call (executor + row)", ...cols(parts.execute));
  row("  floor: time a bare pass-through adds", ...cols(floorAdded));
  row(
    "proxy's own time, one-round request",
    fmt(perRequest.p50),
    fmt(perRequest.p95),
    fmt(perRequest.p99),
  );
  row(
    "added per round (target ≤ 1 ms p50, 3 ms p99)",
    ...[perRound.p50, perRound.p95, perRound.p99].map(fmt),
  );
  row("in process: inject + extract + follow-up", ...cols(samples.inProcess!));
  row("direct stream, time to first event", ...cols(ttfbs.direct));
  row(
    "proxy stream, time to first event",
    ...cols(ttfbs.proxy),
    ratio(median(ttfbs.proxy), median(ttfbs.direct)),
  );
  row(
    "added to first byte (target ≤ 1 ms p50, 3 ms p99)",
    ...[ttfb.p50, ttfb.p95, ttfb.p99].map(fmt),
  );
  row(
    "  floor: a bare pass-through adds",
    ...[floorTtfb.p50, floorTtfb.p95, floorTtfb.p99].map(fmt),
  );
  row("proxy's own time to first event (instrumented)", ...cols(ttfbs.proxyOwn));
  api.close();
  await passThrough.close();
  await peers.close();
  return {
    ...m,
    perRound: perRound.p50,
    perRoundP95: perRound.p95,
    perRoundP99: perRound.p99,
    perRequest: perRequest.p50,
    ttfb: ttfb.p50,
    ttfbP95: ttfb.p95,
    ttfbP99: ttfb.p99,
    directTtfb: median(ttfbs.direct),
    proxyTtfb: median(ttfbs.proxy),
    ownTtfb: median(ttfbs.proxyOwn),
    floorTtfb: floorTtfb.p50,
    floorTtfbP99: floorTtfb.p99,
  };
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
