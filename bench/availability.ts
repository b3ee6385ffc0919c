/**
 * Availability benchmark (docs/limits.md#availability): how fast `GET /api/health` answers while
 * one hostile input is in flight, beside the same probe on the idle API, in one run. The API runs
 * alone in a child process (bench/availability-api.ts); the hostile clients, the hostile upstream
 * and the probe run here. Per case: the probe's answers, their median, p95 and slowest, and whether
 * p95 stays within the documented 100 ms. Cases: idle; a 100 MB chunked body sent to inject; JSON
 * nested 100,000 levels sent to inject; three concurrent executions validating `^(a+)+$` against
 * thirty `a` and a `!`; an upstream streaming a 20 MB SSE line without a newline through the proxy.
 * Run: `npm run bench -- availability`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { fmt, median, percentile, row } from "./stats.js";

/** The documented bound: `/api/health` answers within this many ms while a hostile input runs. */
const BOUND_MS = 100;
/** Times each hostile case runs; the probe runs through all of them. */
const REPS = 5;

interface ApiChild {
  url: string;
  key: string;
  child: ChildProcess;
}

async function startApiChild(upstream: string): Promise<ApiChild> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/availability-api.ts"], {
    env: { ...process.env, UPSTREAM_OPENAI_BASE_URL: upstream },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, "line")) as [string];
  lines.close();
  const { url, key } = JSON.parse(line) as { url: string; key: string };
  return { url, key, child };
}

/** Probes `${url}/api/health` one request at a time, every 5 ms, until `stop`. */
function probe(url: string): { stop(): Promise<number[]> } {
  const times: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      const res = await fetch(`${url}/api/health`);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`health answered ${res.status}`);
      times.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return times;
    },
  };
}

/** Writes `chunk` and waits for the socket to drain when it asks to. @returns false once closed. */
async function put(res: ServerResponse, chunk: string | Buffer): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(chunk)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
  }
  return !res.destroyed;
}

/** An OpenAI-style upstream whose stream sends one 20 MB line without a newline. */
async function startHostileUpstream(): Promise<{ url: string; close(): void }> {
  const server = createServer(async (req, res) => {
    for await (const _ of req) {
      // The request body is not needed.
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    await put(res, "data: ");
    const piece = Buffer.alloc(64 * 1024, "x");
    for (let written = 0; written < 20 * 1024 * 1024; written += piece.length) {
      if (!(await put(res, piece))) return;
    }
    res.end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A chunked body of `bytes` bytes of a JSON string, streamed with backpressure. */
function bigBody(bytes: number): ReadableStream<Uint8Array> {
  const piece = new TextEncoder().encode("x".repeat(64 * 1024));
  let sent = 0;
  return new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode('{"messages":[{"role":"user","content":"'));
    },
    pull(c) {
      if (sent >= bytes) return c.close();
      sent += piece.length;
      c.enqueue(piece);
    },
  });
}

/** Runs the benchmark and prints its table. @returns p95 per case, ms. */
export async function runAvailabilityBench(): Promise<Record<string, number>> {
  const upstream = await startHostileUpstream();
  const api = await startApiChild(upstream.url);
  const auth = { authorization: `Bearer ${api.key}`, "content-type": "application/json" };
  const cases: Record<string, () => Promise<unknown>> = {
    idle: () => new Promise((r) => setTimeout(r, 300)),
    "100 MB chunked body to inject": () =>
      fetch(`${api.url}/api/skills/inject`, {
        method: "POST",
        headers: auth,
        body: bigBody(100 * 1024 * 1024),
        duplex: "half",
      } as RequestInit).then(
        (r) => r.arrayBuffer(),
        () => undefined,
      ),
    "JSON nested 100,000 deep to inject": () =>
      fetch(`${api.url}/api/skills/inject`, {
        method: "POST",
        headers: auth,
        body: `{"messages":${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
      }).then((r) => r.arrayBuffer()),
    "3 executions validating ^(a+)+$": () =>
      Promise.all(
        [0, 1, 2].map(() =>
          fetch(`${api.url}/api/skills/executions`, {
            method: "POST",
            headers: auth,
            body: JSON.stringify({ skillName: "evil-pattern", input: { s: `${"a".repeat(30)}!` } }),
          }).then((r) => r.arrayBuffer()),
        ),
      ),
    "20 MB SSE line from the upstream": () =>
      fetch(`${api.url}/v1/chat/completions`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({
          model: "m",
          stream: true,
          messages: [{ role: "user", content: "hi" }],
        }),
      }).then((r) => r.arrayBuffer()),
  };
  const out: Record<string, number> = {};
  try {
    console.log(
      `\nAvailability: GET /api/health while one hostile input is in flight (API alone in its process)`,
    );
    row("case", "answers", "p50", "p95", "slowest", `p95 ≤ ${BOUND_MS} ms`);
    for (const [name, run] of Object.entries(cases)) {
      const p = probe(api.url);
      for (let i = 0; i < REPS; i++) await run();
      const times = await p.stop();
      const p95 = percentile(times, 95);
      out[name] = p95;
      row(
        name,
        String(times.length),
        fmt(median(times)),
        fmt(p95),
        fmt(Math.max(...times)),
        p95 <= BOUND_MS ? "yes" : "NO",
      );
    }
  } finally {
    api.child.stdin?.end();
    upstream.close();
  }
  return out;
}
