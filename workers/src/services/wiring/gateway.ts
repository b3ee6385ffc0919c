/**
 * Wiring of the gateway proxy (docs/proxy.md): its settings from the operator's configuration,
 * and the observers of its requests: token accounting, OpenTelemetry spans
 * (docs/deployment.md#opentelemetry), the access log and the routing feed
 * (docs/proxy.md#observability).
 */
import { globalFetch } from "../../catalogs/upstream.js";
import type { AppDeps } from "../../deps.js";
import { logPrefix } from "../../telemetry/request-context.js";
import { createTracing, type Tracing } from "../../telemetry/tracing.js";
import {
  accessLogLine,
  measureObserver,
  routingObservation,
  upstreamErrorLine,
} from "../gateway/access-log.js";
import { traceObserver } from "../gateway/trace-observer.js";
import { usageObserver } from "../gateway/usage-observer.js";
import { ProxyService, type ProxySettings } from "../proxy.js";
import type { RoutingService } from "../routing.js";
import type { SettingsService } from "../settings.js";
import type { ToolsService } from "../tools.js";
import type { TokenUsageService } from "../usage.js";

/** The gateway proxy's settings from the operator's configuration (docs/proxy.md). */
function proxySettings(deps: AppDeps): ProxySettings {
  const c = deps.config;
  return {
    fetch: deps.upstreamFetch ?? deps.fetch ?? globalFetch,
    upstream: {
      baseUrls: {
        openai: c.UPSTREAM_OPENAI_BASE_URL,
        anthropic: c.UPSTREAM_ANTHROPIC_BASE_URL,
        gemini: c.UPSTREAM_GEMINI_BASE_URL,
      },
      apiKeys: {
        openai: c.UPSTREAM_OPENAI_API_KEY,
        anthropic: c.UPSTREAM_ANTHROPIC_API_KEY,
        gemini: c.UPSTREAM_GEMINI_API_KEY,
      },
      forwardHeaders: c.PROXY_FORWARD_HEADERS.map((h) => h.toLowerCase()),
    },
    maxRounds: c.PROXY_MAX_ROUNDS,
    timeBudgetMs: c.PROXY_TIME_BUDGET_MS,
    keepAliveMs: c.PROXY_KEEPALIVE_MS,
    idleTimeoutMs: c.PROXY_IDLE_TIMEOUT_MS,
    limits: {
      maxLineChars: c.PROXY_SSE_MAX_LINE_CHARS,
      maxEventChars: c.PROXY_SSE_MAX_EVENT_CHARS,
      maxArgumentsChars: c.PROXY_MAX_TOOL_ARGUMENTS_CHARS,
      maxBodyBytes: c.PROXY_MAX_UPSTREAM_BODY_BYTES,
    },
    maxCallsPerTurn: c.PROXY_MAX_CALLS_PER_TURN,
    anthropicToolSearch: c.PROXY_ANTHROPIC_TOOL_SEARCH,
    anthropicDeferredMaxTools: c.PROXY_ANTHROPIC_DEFERRED_MAX_TOOLS,
  };
}

/** The services the gateway proxy is wired to. */
export interface GatewayServices {
  tools: ToolsService;
  settings: SettingsService;
  /** Records each request's tokens. */
  tokenUsage: TokenUsageService;
  /** Receives each upstream call for routing recommendations. */
  routing: RoutingService;
}

/**
 * Builds the gateway proxy service with its observers, in this order: token accounting,
 * OpenTelemetry spans (only when an OTLP endpoint is configured), then the access log
 * (`PROXY_ACCESS_LOG`), the routing feed and the upstream error lines.
 * @returns the proxy service and the tracing it reports to (null without an OTLP endpoint).
 */
export function createGateway(
  deps: AppDeps,
  clock: () => number,
  services: GatewayServices,
): { proxy: ProxyService; tracing: Tracing | null } {
  const { tools, settings, tokenUsage, routing } = services;
  const proxy = new ProxyService(proxySettings(deps), deps.cache, clock, { tools, settings });
  proxy.observe(usageObserver((...totals) => tokenUsage.record(...totals)));
  const c = deps.config;
  const tracing = createTracing({
    endpoint: c.OTEL_EXPORTER_OTLP_ENDPOINT,
    tracesEndpoint: c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    headers: c.OTEL_EXPORTER_OTLP_HEADERS,
    serviceName: c.OTEL_SERVICE_NAME,
  });
  if (tracing)
    proxy.observe(
      traceObserver(tracing.tracer, {
        captureContent: c.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
      }),
    );
  const accessLog = deps.config.PROXY_ACCESS_LOG;
  proxy.observe(
    measureObserver(
      () => performance.now(),
      (req, m) => {
        if (accessLog) console.log(`${logPrefix()}${accessLogLine(m)}`);
        const call = routingObservation(m);
        if (call) routing.recordLater(req.apiKeyId, call);
      },
      // An upstream that could not be reached is an error; one that answered an error, a warning.
      (req, failure) =>
        (failure.status === null ? console.error : console.warn)(
          `${logPrefix()}${upstreamErrorLine(req.format, failure)}`,
        ),
    ),
  );
  return { proxy, tracing };
}
