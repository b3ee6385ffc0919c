/**
 * A scripted LLM provider on 127.0.0.1 for the proxy tests: every request is recorded and
 * answered by the test's script, in the provider's documented wire format, as JSON or as
 * server-sent events (with the framing details real providers use: comments, `event:` lines,
 * CRLF, payloads split across network writes), or not at all (a hanging upstream), or by the
 * test's own writer (a hostile upstream).
 */
import type { ServerResponse } from "node:http";
import {
  type FakeServer,
  type FakeServerOptions,
  type RecordedRequest,
  startFakeServer,
} from "./http.js";

/** One scripted answer. */
export type ScriptStep =
  | {
      kind: "json";
      status?: number;
      body: unknown;
      headers?: Record<string, string>;
      /** Sent as it is instead of `body` (e.g. JSON too deep for `JSON.stringify`). */
      rawBody?: string;
    }
  | {
      kind: "sse";
      /** Events in order: `data` is JSON-encoded unless it is a string. */
      events: { event?: string; data: unknown }[];
      /** Split every event's bytes into writes of this size (default: one write per event). */
      chunkBytes?: number;
      /** Line ending (default `\n`). */
      eol?: "\n" | "\r\n";
      /** Close the socket after this many events, without a final event. */
      dropAfter?: number;
      /** Stop writing after this many events and keep the connection open (until the client leaves). */
      hangAfter?: number;
    }
  /** Never answers (until the client gives up). */
  | { kind: "hang" }
  /** Writes the answer itself (hostile upstreams: endless, stalled or oversized answers). */
  | { kind: "raw"; write: (res: ServerResponse) => Promise<void> | void };

/** Decides the answer to one request; `n` counts requests from 0. */
export type Script = (req: RecordedRequest, body: Record<string, unknown>, n: number) => ScriptStep;

/** A running scripted provider. */
export interface ScriptedLlm extends FakeServer {
  /** Parsed bodies of the requests received, in order. */
  bodies(): Record<string, unknown>[];
  /** Requests whose connection the client closed before the answer ended. */
  aborted(): number;
}

async function writeSse(res: ServerResponse, step: Extract<ScriptStep, { kind: "sse" }>) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const eol = step.eol ?? "\n";
  res.write(`: stream opened${eol}${eol}`);
  for (const [i, e] of step.events.entries()) {
    if (step.dropAfter !== undefined && i >= step.dropAfter) {
      res.socket?.destroy();
      return;
    }
    if (step.hangAfter !== undefined && i >= step.hangAfter) return;
    const data = typeof e.data === "string" ? e.data : JSON.stringify(e.data);
    const text = `${e.event ? `event: ${e.event}${eol}` : ""}data: ${data}${eol}${eol}`;
    const bytes = Buffer.from(text, "utf8");
    const size = step.chunkBytes ?? bytes.length;
    for (let at = 0; at < bytes.length; at += size) {
      res.write(bytes.subarray(at, at + size));
      await new Promise((r) => setImmediate(r));
    }
  }
  res.end();
}

/** Starts a scripted provider (`opts.record: false` keeps no request; `bodies()` is then empty). */
export async function startScriptedLlm(
  script: Script,
  opts: FakeServerOptions = {},
): Promise<ScriptedLlm> {
  let n = 0;
  let aborted = 0;
  const server = await startFakeServer(async (req, res) => {
    res.on("close", () => {
      if (!res.writableFinished) aborted++;
    });
    const body = JSON.parse(req.body || "{}") as Record<string, unknown>;
    const step = script(req, body, n++);
    if (step.kind === "hang") return;
    if (step.kind === "raw") {
      await step.write(res);
      return;
    }
    if (step.kind === "json") {
      res.writeHead(step.status ?? 200, { "content-type": "application/json", ...step.headers });
      res.end(step.rawBody ?? JSON.stringify(step.body));
      return;
    }
    await writeSse(res, step);
  }, opts);
  return {
    ...server,
    bodies: () => server.requests.map((r) => JSON.parse(r.body || "{}") as Record<string, unknown>),
    aborted: () => aborted,
  };
}
