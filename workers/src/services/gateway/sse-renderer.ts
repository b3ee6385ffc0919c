/**
 * The SSE emitter (docs/proxy.md#streaming). The first upstream call is made before the client
 * gets an answer, so an upstream error status passes through as it is; after that the client
 * receives one server-sent event stream built by the format's translator, and every later round
 * streams on in it. While owned calls run, the format's own keep-alive event keeps the connection
 * alive (and the client informed). A client that goes away aborts the upstream request and no
 * further round starts; a failure ends the stream with the format's error event. Only web streams
 * are used, so this runs in the Worker and on Node.
 */
import { sseComment } from "../../formats/sse-frame.js";
import type { Emit, StreamTranslator } from "../../formats/stream-types.js";
import type { JsonObject } from "../../formats/types.js";
import { jsonDepthExceeds, MAX_VALUE_DEPTH } from "../../json-depth.js";
import { failureAnswer, passThroughError, type UpstreamDeps } from "./json-renderer.js";
import { argumentsTooLarge, trailerText } from "./limits.js";
import { readSse } from "./sse-read.js";
import type {
  GatewayAnswer,
  GatewayEvent,
  GatewayFailure,
  GatewayFinish,
  GatewayRenderer,
  RoundContext,
} from "./types.js";
import { callUpstream, readUpstreamText, UpstreamFailure } from "./upstream.js";

/** Headers of every streamed answer (and of its early JSON errors, the session). */
const STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  // An open-ended body: said so, the Node adapter writes the headers and each event at once
  // instead of first waiting a timer tick to see whether the body ends (a content length).
  "transfer-encoding": "chunked",
} as const;

/** The SSE emitter of one request (see the module docs). */
class SseEmitter implements GatewayRenderer {
  private readonly abort = new AbortController();
  private readonly encoder = new TextEncoder();
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private closed = false;
  private begin!: () => void;
  private keepAliveTimer: ReturnType<typeof setInterval> | undefined;
  private firstId: unknown;
  private executions: string[] = [];
  /** The upstream response of the round being read (the first one is made before the stream). */
  private res: Response | undefined;
  /** Resolves at the first bytes for the client (or the end): the response starts with them. */
  readonly firstBytes = new Promise<void>((resolve) => {
    this.begin = resolve;
  });
  readonly translator: StreamTranslator;
  readonly stream: ReadableStream<Uint8Array>;
  private readonly onClientAbort = () => this.abort.abort(this.ctx.req.signal.reason);

  constructor(
    private readonly ctx: RoundContext,
    private readonly deps: UpstreamDeps & { keepAliveMs: number },
  ) {
    const { signal } = ctx.req;
    if (signal.aborted) this.abort.abort(signal.reason);
    else signal.addEventListener("abort", this.onClientAbort, { once: true });
    this.stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.controller = c;
      },
      cancel: (reason) => {
        this.closed = true;
        this.begin();
        this.abort.abort(reason);
      },
    });
    this.translator = ctx.adapter.streamTranslator(this.emit, ctx.req.body);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  private readonly emit: Emit = (text) => {
    if (this.closed) return;
    this.controller.enqueue(this.encoder.encode(text));
    this.begin();
  };

  /** Ends the stream (once) and the request's budget. */
  close(): void {
    this.begin();
    this.stopKeepAlive();
    this.ctx.budget.dispose();
    if (this.closed) return;
    this.closed = true;
    this.ctx.req.signal.removeEventListener("abort", this.onClientAbort);
    this.controller.close();
  }

  /** Calls the upstream for a streamed round. */
  call(request: JsonObject): Promise<Response> {
    const { ctx } = this;
    return callUpstream(this.deps.fetch, this.deps.upstream, {
      format: ctx.req.format,
      model: ctx.req.model,
      stream: true,
      body: ctx.adapter.streamingBody(request),
      clientHeaders: ctx.req.headers,
      signal: this.abort.signal,
      budget: ctx.budget,
      idleMs: this.deps.idleTimeoutMs,
    });
  }

  /** Sets the first round's response (called before the stream is answered). */
  opened(res: Response): void {
    this.res = res;
  }

  async readRound(request: JsonObject, round: number): Promise<JsonObject | undefined> {
    const t = this.translator;
    if (round > 1) {
      let res: Response;
      try {
        res = await this.call(request);
      } catch (err) {
        if (this.signal.aborted) throw this.signal.reason;
        if (err instanceof UpstreamFailure) throw err;
        t.fail(502, err instanceof Error ? err.message : String(err));
        return undefined;
      }
      if (!res.ok) {
        const text = await readUpstreamText(res, this.ctx.limits.maxBodyBytes).catch(() => "");
        t.fail(
          res.status,
          `The upstream answered ${res.status} in round ${round}: ${text.slice(0, 500)}`,
        );
        return undefined;
      }
      this.res = res;
    }
    const res = this.res!;
    t.beginRound();
    let outcome: "continue" | "end" | "error" = "continue";
    const maxArgs = this.ctx.limits.maxArgumentsChars;
    try {
      for await (const ev of readSse(res.body!, this.ctx.limits)) {
        if (jsonDepthExceeds(ev.data, MAX_VALUE_DEPTH)) {
          void res.body?.cancel().catch(() => {});
          t.fail(502, `The upstream sent an event nested deeper than ${MAX_VALUE_DEPTH} levels`);
          return undefined;
        }
        outcome = t.onEvent(ev);
        if (outcome !== "continue") break;
        const longest = t.longestArguments?.();
        if (longest !== undefined && longest > maxArgs) throw argumentsTooLarge(undefined, maxArgs);
      }
    } catch (err) {
      // The upstream connection is closed (a limit stopped the round mid-stream).
      void res.body?.cancel().catch(() => {});
      if (this.signal.aborted) throw this.signal.reason;
      if (err instanceof UpstreamFailure) throw err;
      t.fail(
        502,
        `The upstream stream failed: ${err instanceof Error ? err.message : String(err)}`,
      );
      return undefined;
    }
    if (outcome === "error") {
      void res.body?.cancel().catch(() => {});
      return undefined;
    }
    if (!t.roundEnded()) {
      t.fail(502, "The upstream stream ended without its final event");
      return undefined;
    }
    const response = t.roundResponse();
    if (round === 1) this.firstId = response.id;
    return response;
  }

  private stopKeepAlive(): void {
    if (this.keepAliveTimer !== undefined) clearInterval(this.keepAliveTimer);
    this.keepAliveTimer = undefined;
  }

  event(event: GatewayEvent): void {
    if (event.type === "skills-start") {
      // A visible sign in the client's own format, at once and then every PROXY_KEEPALIVE_MS.
      this.translator.keepAlive();
      this.keepAliveTimer = setInterval(() => this.translator.keepAlive(), this.deps.keepAliveMs);
    } else if (event.type === "skills-end") {
      this.stopKeepAlive();
      this.executions.push(...event.executions);
    }
  }

  private trailer(round: number, limit?: string): void {
    this.emit(sseComment(trailerText(round, this.executions, limit)));
  }

  async finish(end: GatewayFinish): Promise<void> {
    // Before the terminal events: a client that continues at once finds the mapping.
    await this.ctx.adapter.responseChain?.remember(this.ctx.store, this.firstId, end.response.id);
    this.trailer(end.round, end.limit);
    this.translator.finish(end.clientCalls);
  }

  fail(f: GatewayFailure): void {
    if (f.afterSkills) this.trailer(f.round);
    this.translator.fail(f.status, f.message, f.code);
  }
}

/**
 * Answers a streaming request: the first round's call, then the stream driven by `run` (the
 * round loop) in the background; resolves with the upstream's error as JSON when the first call
 * failed, else with the stream once its first bytes are ready.
 * @throws what the first call throws besides an UpstreamFailure (the client's abort reason).
 */
export async function streamAnswer(
  ctx: RoundContext,
  deps: UpstreamDeps & { keepAliveMs: number },
  run: (renderer: GatewayRenderer) => Promise<void>,
): Promise<GatewayAnswer> {
  const session = { "x-skillgate-session": ctx.req.sessionId };
  const emitter = new SseEmitter(ctx, deps);
  let first: Response;
  try {
    first = await emitter.call(ctx.prepared.request);
    if (!first.ok) {
      const r = await passThroughError(ctx.adapter, first, ctx.limits.maxBodyBytes);
      ctx.budget.dispose();
      return { status: r.status, body: r.body, headers: { ...session, ...r.headers } };
    }
  } catch (err) {
    if (err instanceof UpstreamFailure) {
      ctx.budget.dispose();
      const r = failureAnswer(ctx.adapter, err.status, err.message, err.code);
      return { status: r.status, body: r.body, headers: session };
    }
    throw err;
  }
  emitter.opened(first);
  const { signal } = emitter;
  run(emitter)
    .catch((err: unknown) => {
      if (!signal.aborted) {
        console.error(`[skillgate] proxy ${ctx.req.format} stream failed:`, err);
        emitter.translator.fail(500, "Internal server error");
      }
    })
    .finally(() => emitter.close());
  // Headers and the first event leave together: one write for the client to wait on, not two.
  await emitter.firstBytes;
  return { status: 200, headers: { ...session, ...STREAM_HEADERS }, stream: emitter.stream };
}
