/**
 * Dependencies `createApp(deps)` is built from. Entry points construct them from the
 * environment (Node) or bindings (Worker); tests construct them directly.
 */
import type { Cache } from "./cache/types.js";
import type { Config } from "./config.js";
import type { Db } from "./db/client.js";
import type { Metrics } from "./metrics/types.js";
import type { OutboundConnector } from "./outbound/types.js";
import type { SandboxClient } from "./sandbox/client.js";
import type { StorageProbe } from "./services/health.js";
import type {
  PlatformRateLimiter,
  ShortWindowCounters,
} from "./skills/execution/limit-counters.js";

/** Resolves a host name to IP addresses (for the outbound guard of http_request). */
export type HostResolver = (hostname: string) => Promise<string[]>;

/** Everything the app needs from its environment. */
export interface AppDeps {
  db: Db;
  cache: Cache;
  config: Config;
  /** Clock in ms since the epoch. */
  clock?: () => number;
  /** Sandbox host client; absent when no sandbox host is configured. */
  sandbox?: SandboxClient;
  /** fetch used for operator-configured upstreams (catalogs, GitHub raw, search providers). */
  fetch?: typeof fetch;
  /**
   * fetch of the gateway proxy's upstream LLM calls. Node: `createNodeUpstreamFetch()` (keep-alive
   * `node:http` connections, the first streamed bytes handed on as they arrive); default: `fetch`
   * above, else the platform's.
   */
  upstreamFetch?: typeof fetch;
  /**
   * Outbound layer of http_request (user-facing, guarded). Tests inject a resolver that maps
   * public-looking names to a local server; requests can never set it.
   */
  outbound?: {
    resolve?: HostResolver;
    /**
     * Performs the approved exchange. Node: `createNodeOutbound()` (connects to the checked
     * addresses only); absent: the platform fetch with `redirect: "manual"` (Worker).
     */
    connect?: OutboundConnector;
  };
  /**
   * Where requests and executions are reported (Prometheus on Node, Analytics Engine in the
   * Worker); default: nothing.
   */
  metrics?: Metrics;
  /**
   * The platform's rate limiting binding (Workers `ratelimits`), applied to executions per minute
   * across isolates besides the in-process window (docs/rate-limits.md#the-rate-limiting-binding); default none.
   */
  executionRateLimiter?: PlatformRateLimiter;
  /**
   * Where executions per minute and concurrent sandbox runs are counted: the Worker's per-key
   * Durable Object (docs/rate-limits.md#the-per-key-limiter-durable-object); default in process.
   */
  shortWindows?: ShortWindowCounters;
  /** Runtime name for health output. */
  runtime?: "node" | "workerd";
  /**
   * Free space of the database's disk, for health (docs/execution.md#a-full-disk). Node with an
   * embedded file: `fileStorageProbe(url)`; absent elsewhere (health then judges from writes
   * refused for a full disk).
   */
  storage?: StorageProbe;
}
