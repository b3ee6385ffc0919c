/**
 * Shapes of the gateway service (docs/architecture.md#the-gateway): one proxied request, the
 * answer the front door renders, the events of the round loop, and the two renderers (a JSON
 * collector and an SSE emitter) the loop drives.
 */
import type { ErrorCode } from "@skillgate/errors";
import type {
  ExtractedCall,
  FormatAdapter,
  JsonObject,
  TurnStore,
  WireFormat,
} from "../../formats/types.js";
import type { SelectionLink } from "../../skills/learning/learning.js";
import type { UpstreamConfig, UpstreamLimits } from "../proxy.js";
import type {
  CallWrapper,
  InjectedRef,
  InjectOutcome,
  InjectResult,
  InterceptResult,
  RankerName,
  ToolResult,
} from "../tools.js";
import type { TimeBudget } from "./upstream.js";

/** One request to the gateway, as the proxy front door read it. */
export interface GatewayRequest {
  format: WireFormat;
  /** The parsed body (a JSON object). */
  body: JsonObject;
  /** The body exactly as the client sent it (forwarded byte for byte with the master switch off). */
  raw: string;
  /** Gemini model from the path. */
  model?: string;
  /** True for a streamed answer (`stream: true`, Gemini `:streamGenerateContent`). */
  stream: boolean;
  headers: Headers;
  apiKeyId: string | null;
  /** `x-skillgate-session`, else a new id. */
  sessionId: string;
  /** True when `sessionId` was made for this request (nothing can have been found under it yet). */
  sessionNew?: boolean;
  /** False when the request turned custom skill execution off (`x-skillgate-custom-skills: off`). */
  customSkills: boolean;
  /**
   * The ranker the request chose (`x-skillgate-ranker`, lower case), if any; checked by the
   * service once the master switch is known to be on (an unknown name is a 400 `invalid_input`).
   */
  ranker?: string;
  /** The client's disconnect. */
  signal: AbortSignal;
}

/** What the front door sends back: a JSON body or a byte stream, with status and headers. */
export type GatewayAnswer =
  | { status: number; headers: Record<string, string>; body: unknown }
  | { status: number; headers: Record<string, string>; stream: ReadableStream<Uint8Array> | null };

/**
 * What the round loop reports while it runs, in order: each round's complete upstream answer,
 * the start and end of the owned calls' runs, and the end of the answer. Renderers react to
 * them (the SSE emitter keeps the stream alive while skills run; the JSON collector keeps each
 * round's content) and so can {@link GatewayObserver}s (spans, token accounting, access logs).
 */
export type GatewayEvent =
  /** The request reached the gateway (first event of every request, before its preparation). */
  | { type: "start" }
  /**
   * One upstream call answered (`status`) or failed to (`status` null, `error` says why);
   * `host` is the upstream's host name (never its credential). Reported for every call, the
   * master switch off included (then the only event between `start` and `end`, round 0).
   */
  | { type: "upstream"; round: number; host: string; status: number | null; error?: string }
  | {
      type: "round";
      round: number;
      response: JsonObject;
      calls: readonly ExtractedCall[];
      /** The round's usage object as the upstream sent it, if any. */
      usage: unknown;
    }
  | { type: "skills-start"; round: number; calls: number }
  | {
      type: "skills-end";
      round: number;
      executions: readonly string[];
      /** The owned calls answered (their {@link ExtractedCall.callId}), with their execution ids. */
      owned: readonly { callId: string; executionId: string | null }[];
    }
  | { type: "continue"; round: number; response: JsonObject }
  /**
   * The answer ended with `status` (the client's status; for a stream that failed after its
   * headers, the failure's). Reported once per request, whatever ended it; round 0 when no
   * round ran (the master switch off, or a failure before the first upstream answer).
   */
  | { type: "end"; round: number; status: number; limit?: "rounds" | "time" };

/** Something that watches the loop of every request (added to the gateway service once). */
export interface GatewayObserver {
  onEvent(req: GatewayRequest, event: GatewayEvent): void;
  /**
   * Wraps the answer of each owned call of round `round` between its `skills-start` and
   * `skills-end` (the tracing observer runs it inside the call's `execute_tool` span, so what the
   * call sends, such as the sandbox host's request, carries that span). Must call `run` exactly
   * once and resolve with its outcome; the observers' wrappers nest in the order they were added.
   */
  aroundCall?(
    req: GatewayRequest,
    round: number,
    ...call: Parameters<CallWrapper>
  ): ReturnType<CallWrapper>;
}

/** How the answer ends well: what to show and which calls go to the client. */
export interface GatewayFinish {
  round: number;
  /** The last round's answer as the client should see it (spliced, split, or as received). */
  response: JsonObject;
  /** Positions ({@link ExtractedCall.index}) of the last round's calls the client answers. */
  clientCalls: ReadonlySet<number>;
  /** Set when a limit ended the loop (`x-skillgate-limit`). */
  limit?: "rounds" | "time";
  /** Usage summed over the rounds (undefined when no round carried any). */
  usage: unknown;
  executions: readonly string[];
}

/** How the answer ends badly (a failure of Skillgate or the upstream). */
export interface GatewayFailure {
  round: number;
  status: number;
  message: string;
  /** The error registry's code; absent where the format's own default applies. */
  code?: ErrorCode;
  executions: readonly string[];
  /** True when skills ran in this round (the stream's trailer then lists them first). */
  afterSkills: boolean;
}

/** One renderer of the loop: reads each round from the upstream and writes the answer. */
export interface GatewayRenderer {
  /** Aborts with the client (and, for a stream, its cancellation). */
  readonly signal: AbortSignal;
  /**
   * The complete answer of round `round` to `request`, or undefined when the renderer already
   * ended the answer (an upstream error it rendered itself).
   * @throws UpstreamFailure (rendered by the loop through {@link fail}).
   */
  readRound(request: JsonObject, round: number): Promise<JsonObject | undefined>;
  event(event: GatewayEvent): void;
  finish(end: GatewayFinish): Promise<void>;
  fail(failure: GatewayFailure): void;
}

/** Everything one request's loop works with. */
export interface RoundContext {
  req: GatewayRequest;
  adapter: FormatAdapter;
  store: TurnStore;
  budget: TimeBudget;
  maxRounds: number;
  timeBudgetMs: number;
  limits: UpstreamLimits;
  clock: () => number;
  /** Milliseconds since the epoch when the request started. */
  started: number;
  prepared: PreparedRequest;
  /** Runs the owned calls of `response` in round `round` (the tools service's `intercept`). */
  intercept(response: JsonObject, signal: AbortSignal, round: number): Promise<InterceptResult>;
  /**
   * The next round's `request` with the skills that this round's `skill_search` calls found
   * declared as tools (docs/proxy.md#skill-search); later rounds' interception owns them.
   */
  offerFound(request: JsonObject, results: readonly ToolResult[]): Promise<JsonObject>;
}

/**
 * A request ready for the upstream (with the inject's `selectionId` and features), with the
 * names of the tools its client declared itself.
 */
export interface PreparedRequest extends InjectOutcome {
  clientTools: string[];
}

/** The gateway's view of the services below it (built by the proxy service). */
export interface GatewayDeps {
  fetch: typeof fetch;
  upstream: UpstreamConfig;
  limits: UpstreamLimits;
  maxRounds: number;
  timeBudgetMs: number;
  idleTimeoutMs: number;
  keepAliveMs: number;
  maxCallsPerTurn: number;
  clock: () => number;
  store(apiKeyId: string | null, format: WireFormat): TurnStore;
  inject(req: GatewayRequest, request: JsonObject, ranker?: RankerName): Promise<InjectOutcome>;
  intercept(
    req: GatewayRequest,
    call: {
      response: JsonObject;
      injected: readonly InjectedRef[];
      clientTools: readonly string[];
      /** The inject's learning link, held for the request (docs/scoring.md#learning-from-traffic). */
      link?: SelectionLink;
      signal: AbortSignal;
      /** Wraps the answer of each owned call (the observers' {@link GatewayObserver.aroundCall}). */
      aroundCall?: CallWrapper;
    },
  ): Promise<InterceptResult>;
  /** The tools service's `offerFound` for this request (docs/proxy.md#skill-search). */
  offerFound(
    req: GatewayRequest,
    request: JsonObject,
    injected: InjectResult["injected"],
    results: readonly ToolResult[],
  ): Promise<InjectResult>;
  observers: readonly GatewayObserver[];
}
