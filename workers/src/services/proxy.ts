/**
 * The gateway proxy's service (docs/proxy.md): the operator's upstream configuration and loop
 * limits, the fetch of upstream LLM calls, the storage of the removed part of mixed turns
 * (docs/proxy.md#mixed-turns) in the app's KV-style cache, and {@link ProxyService.handle}, which
 * answers a proxied request with the gateway's round loop (services/gateway/), injecting and
 * intercepting through the tools service (the same policies and model-call policy floors as
 * `POST /api/skills/intercept` and the MCP skill tools).
 */
import type { Cache } from "../cache/types.js";
import type { UpstreamFamily, WireFormat } from "../formats/types.js";
import {
  ANTHROPIC_TOOL_SEARCH_HEADER,
  type AnthropicToolSearchMode,
} from "../skills/search/anthropic-tool-search.js";
import { runGateway } from "./gateway/index.js";
import { turnStore } from "./gateway/mixed-turn.js";
import type {
  GatewayAnswer,
  GatewayDeps,
  GatewayObserver,
  GatewayRequest,
} from "./gateway/types.js";
import type { SettingsService } from "./settings.js";
import type { ToolsService } from "./tools.js";

/** Operator configuration of the upstreams. */
export interface UpstreamConfig {
  /** Base URL per family (`UPSTREAM_*_BASE_URL`). */
  baseUrls: Record<UpstreamFamily, string>;
  /** Configured credentials (Worker secrets); absent ones are simply not sent. */
  apiKeys: Partial<Record<UpstreamFamily, string>>;
  /**
   * Further client headers forwarded (`PROXY_FORWARD_HEADERS`): lower-case names, or prefixes
   * ending in `*`. Absent: none.
   */
  forwardHeaders?: readonly string[];
}

/** Size limits of what an upstream answers (docs/proxy.md#limits). */
export interface UpstreamLimits {
  /** Longest event-stream line, in characters (`PROXY_SSE_MAX_LINE_CHARS`). */
  maxLineChars: number;
  /** Largest event-stream event, in characters (`PROXY_SSE_MAX_EVENT_CHARS`). */
  maxEventChars: number;
  /** Largest accumulated arguments of one tool call, in characters (`PROXY_MAX_TOOL_ARGUMENTS_CHARS`). */
  maxArgumentsChars: number;
  /** Largest non-streaming answer body, in bytes (`PROXY_MAX_UPSTREAM_BODY_BYTES`). */
  maxBodyBytes: number;
}

/** The proxy's configuration, from the operator's settings. */
export interface ProxySettings {
  /** fetch of upstream LLM calls: the operator-configured fetch, else the platform's. */
  fetch: typeof fetch;
  upstream: UpstreamConfig;
  /** Most upstream calls of one request (`PROXY_MAX_ROUNDS`). */
  maxRounds: number;
  /**
   * Time budget of one request, in ms (`PROXY_TIME_BUDGET_MS`): headers, bodies, streams and the
   * skills run between rounds.
   */
  timeBudgetMs: number;
  /** Longest silence of an upstream body or stream between reads, in ms (`PROXY_IDLE_TIMEOUT_MS`). */
  idleTimeoutMs: number;
  /** Size limits of upstream answers (docs/proxy.md#limits). */
  limits: UpstreamLimits;
  /** Most owned calls run from one model turn (`PROXY_MAX_CALLS_PER_TURN`). */
  maxCallsPerTurn: number;
  /** Interval of the keep-alive events of a stream while skills run, in ms (`PROXY_KEEPALIVE_MS`). */
  keepAliveMs: number;
  /**
   * Anthropic's own tool search over the caller's skills, unless a request chooses with
   * `x-skillgate-anthropic-tool-search` (`PROXY_ANTHROPIC_TOOL_SEARCH`,
   * docs/proxy.md#anthropic-tool-search). Default `off`.
   */
  anthropicToolSearch?: AnthropicToolSearchMode;
  /** Most skills deferred per Anthropic request (`PROXY_ANTHROPIC_DEFERRED_MAX_TOOLS`); default 200. */
  anthropicDeferredMaxTools?: number;
}

/** Prefix of every mixed-turn entry in the cache. */
const TURN_PREFIX = "proxy:turn:";

/** Settings, clock, mixed-turn storage and the gateway of the proxy. */
export class ProxyService {
  private readonly observers: GatewayObserver[] = [];

  constructor(
    readonly settings: ProxySettings,
    private readonly cache: Cache,
    /** Milliseconds since the epoch (tests pass a fixed clock). */
    readonly clock: () => number,
    private readonly services: { tools: ToolsService; settings: SettingsService },
  ) {}

  /**
   * Adds an observer of every gateway request's events (docs/architecture.md#the-gateway):
   * spans per round, token accounting, an access log line.
   */
  observe(observer: GatewayObserver): void {
    this.observers.push(observer);
  }

  /**
   * Answers one proxied request (docs/proxy.md): JSON or a stream, in the format's own shapes,
   * errors included. Never throws.
   */
  async handle(req: GatewayRequest): Promise<GatewayAnswer> {
    const { skillsEnabled } = await this.services.settings.get();
    return runGateway(this.gatewayDeps(), req, skillsEnabled);
  }

  /** The gateway's view of this service and the tools service (read per request: tests patch `settings.fetch`). */
  private gatewayDeps(): GatewayDeps {
    const s = this.settings;
    const tools = this.services.tools;
    return {
      fetch: s.fetch,
      upstream: s.upstream,
      limits: s.limits,
      maxRounds: s.maxRounds,
      timeBudgetMs: s.timeBudgetMs,
      idleTimeoutMs: s.idleTimeoutMs,
      keepAliveMs: s.keepAliveMs,
      maxCallsPerTurn: s.maxCallsPerTurn,
      clock: this.clock,
      observers: this.observers,
      store: (apiKeyId: string | null, format: WireFormat) => turnStore(this, apiKeyId, format),
      // A proxied request is a session by itself (its `x-skillgate-session`, else a new id): it
      // is offered `skill_search`, answers it and links its inject to its calls for learning.
      inject: (req, request, ranker) => {
        // Checked by the gateway: `off`, `regex` or `bm25` when present.
        const native = (req.headers.get(ANTHROPIC_TOOL_SEARCH_HEADER)?.trim().toLowerCase() ??
          s.anthropicToolSearch ??
          "off") as AnthropicToolSearchMode;
        return tools.inject(
          {
            format: req.format,
            request,
            ranker,
            sessionId: req.sessionId,
            sessionNew: req.sessionNew,
            offerSearch: true,
            // The loop runs the answer's calls itself: the link stays in the request.
            linkInRequest: true,
            anthropicToolSearch:
              native === "off"
                ? undefined
                : { variant: native, maxTools: s.anthropicDeferredMaxTools ?? 200 },
          },
          req.apiKeyId,
        );
      },
      offerFound: (req, request, injected, results) =>
        tools.skillSearch.offerFound(req.format, request, injected, results, req.apiKeyId),
      intercept: (req, call) =>
        tools.intercept(
          {
            format: req.format,
            response: call.response,
            injected: call.injected,
            clientTools: call.clientTools,
            sessionId: req.sessionId,
            customSkillExecutionEnabled: req.customSkills,
            signal: call.signal,
            maxOwnedCalls: s.maxCallsPerTurn,
            link: call.link,
            answerSearch: true,
            aroundCall: call.aroundCall,
          },
          req.apiKeyId,
        ),
    };
  }

  /**
   * Keeps `entry` (the removed part of a mixed turn) under `key` for `ttlSeconds`.
   * @param key the turn's key (API key, format and first client call id; see proxy/mixed-turn.ts).
   */
  rememberTurn(key: string, entry: unknown, ttlSeconds: number): Promise<void> {
    return this.cache.put(`${TURN_PREFIX}${key}`, entry, ttlSeconds);
  }

  /** The entry kept under `key`, or undefined once it expired or was never kept. */
  recallTurn<T>(key: string): Promise<T | undefined> {
    return this.cache.get<T>(`${TURN_PREFIX}${key}`);
  }
}
