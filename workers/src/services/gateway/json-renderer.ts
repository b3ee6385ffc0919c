/**
 * The JSON collector (docs/proxy.md#non-streaming-answers): reads each round as one JSON answer
 * and collects the answer the client gets: the last round's body with the earlier rounds' content
 * put before its own (as a stream shows it), usage summed over the rounds, and the
 * `x-skillgate-*` headers. An upstream error status passes through with its body.
 */
import type { ErrorCode } from "@skillgate/errors";
import type { FormatAdapter, JsonObject } from "../../formats/types.js";
import { jsonDepthExceeds, MAX_VALUE_DEPTH } from "../../json-depth.js";
import { executionHeaders } from "./limits.js";
import type {
  GatewayDeps,
  GatewayEvent,
  GatewayFailure,
  GatewayFinish,
  GatewayRenderer,
  RoundContext,
} from "./types.js";
import { callUpstream, readUpstreamText, UpstreamFailure } from "./upstream.js";

/** What a renderer needs to call the upstream. */
export type UpstreamDeps = Pick<GatewayDeps, "fetch" | "upstream" | "idleTimeoutMs">;

/** A JSON answer: status, body and headers. */
export interface JsonAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Headers of an upstream error kept for the client (rate limits, request ids). */
const KEPT = /^(retry-after|x-ratelimit-.*|anthropic-ratelimit-.*|x-request-id|request-id)$/i;
/** Most upstream headers kept, and the longest value kept (docs/proxy.md#limits). */
const KEPT_MAX_HEADERS = 24;
const KEPT_MAX_VALUE_CHARS = 256;

/**
 * An upstream error answer, passed through with its status and body (so each SDK raises its own
 * error), with its rate-limit and request-id headers (at most 24, values cut to 256 characters).
 * @param maxBytes largest body read (`PROXY_MAX_UPSTREAM_BODY_BYTES`).
 * @throws UpstreamFailure as {@link readUpstreamText}.
 */
export async function passThroughError(
  adapter: FormatAdapter,
  res: Response,
  maxBytes: number,
): Promise<JsonAnswer> {
  const headers: Record<string, string> = {};
  let kept = 0;
  res.headers.forEach((v, k) => {
    if (kept < KEPT_MAX_HEADERS && KEPT.test(k)) {
      headers[k] = v.slice(0, KEPT_MAX_VALUE_CHARS);
      kept++;
    }
  });
  const text = await readUpstreamText(res, maxBytes);
  let body: unknown;
  try {
    if (jsonDepthExceeds(text, MAX_VALUE_DEPTH)) throw new SyntaxError("nested too deep");
    body = JSON.parse(text);
  } catch {
    body = adapter.errorBody(res.status, text.slice(0, 2000) || res.statusText, "upstream_error");
  }
  return { status: res.status, body, headers };
}

/** The body a 502/504 (or other Skillgate failure) takes in the client's format. */
export function failureAnswer(
  adapter: FormatAdapter,
  status: number,
  message: string,
  code: ErrorCode,
): JsonAnswer {
  return { status, body: adapter.errorBody(status, message, code), headers: {} };
}

/** The JSON collector of one request; {@link JsonCollector.answer} once the loop ended. */
export class JsonCollector implements GatewayRenderer {
  /** What the earlier rounds said, in the format's own pieces. */
  private readonly earlier: unknown[] = [];
  /** Execution ids of the rounds so far (kept from the `skills-end` events). */
  private readonly executions: string[] = [];
  private result: JsonAnswer | undefined;

  constructor(
    private readonly ctx: RoundContext,
    private readonly deps: UpstreamDeps,
  ) {}

  get signal(): AbortSignal {
    return this.ctx.req.signal;
  }

  /** The collected answer. @throws Error when the loop has not ended. */
  answer(): JsonAnswer {
    if (!this.result) throw new Error("the gateway loop ended without an answer");
    return this.result;
  }

  private headers(round: number, executions: readonly string[], limit?: string) {
    const h: Record<string, string> = {
      "x-skillgate-rounds": String(round),
      "x-skillgate-session": this.ctx.req.sessionId,
      ...executionHeaders(executions, this.ctx.req.sessionId),
    };
    if (limit) h["x-skillgate-limit"] = limit;
    return h;
  }

  private end(r: JsonAnswer, round: number, executions: readonly string[]): undefined {
    this.result = { ...r, headers: { ...this.headers(round, executions), ...r.headers } };
    return undefined;
  }

  async readRound(request: JsonObject, round: number): Promise<JsonObject | undefined> {
    const { ctx } = this;
    const maxBytes = ctx.limits.maxBodyBytes;
    const executions = this.executions;
    const res = await callUpstream(this.deps.fetch, this.deps.upstream, {
      format: ctx.req.format,
      model: ctx.req.model,
      stream: false,
      body: request,
      clientHeaders: ctx.req.headers,
      signal: ctx.req.signal,
      budget: ctx.budget,
      idleMs: this.deps.idleTimeoutMs,
    });
    if (!res.ok)
      return this.end(await passThroughError(ctx.adapter, res, maxBytes), round, executions);
    const text = await readUpstreamText(res, maxBytes);
    if (jsonDepthExceeds(text, MAX_VALUE_DEPTH))
      throw new UpstreamFailure(
        502,
        `The upstream answer nests deeper than ${MAX_VALUE_DEPTH} levels`,
        "upstream_invalid",
      );
    try {
      return JSON.parse(text) as JsonObject;
    } catch {
      throw new UpstreamFailure(502, "The upstream answered with invalid JSON", "upstream_invalid");
    }
  }

  event(event: GatewayEvent): void {
    if (event.type === "skills-end") this.executions.push(...event.executions);
    else if (event.type === "continue")
      this.earlier.push(...this.ctx.adapter.roundContent(event.response));
  }

  async finish(end: GatewayFinish): Promise<void> {
    const { adapter } = this.ctx;
    const body =
      this.earlier.length === 0
        ? end.response
        : adapter.withEarlierContent(end.response, this.earlier);
    this.result = {
      status: 200,
      body: end.usage === undefined ? body : { ...body, [adapter.usageField]: end.usage },
      headers: this.headers(end.round, end.executions, end.limit),
    };
  }

  fail(f: GatewayFailure): void {
    const code = f.code ?? (f.status === 504 ? "upstream_timeout" : "upstream_unreachable");
    this.end(failureAnswer(this.ctx.adapter, f.status, f.message, code), f.round, f.executions);
  }
}
