/**
 * API configuration, parsed once from environment variables (Node) or Worker bindings (vars and
 * secrets) with zod, then passed down. Domain code never reads the environment itself.
 * Every variable is listed in docs/configuration.md.
 */
import { z } from "zod";
import { InvalidInputError } from "./errors.js";

const bool = z
  .union([z.boolean(), z.string()])
  .transform((v) =>
    typeof v === "boolean" ? v : ["1", "true", "yes", "on"].includes(v.trim().toLowerCase()),
  );

const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** True for `*` or a bare web origin (`https://app.example.com`, `http://localhost:5173`). */
function isOrigin(value: string): boolean {
  if (value === "*") return true;
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value;
  } catch {
    return false;
  }
}

/** Zod schema of the configuration; keys are the environment variable names. */
export const configSchema = z.object({
  /** Management token (Bearer). Unset: management calls are refused (fail closed). */
  MGMT_TOKEN: optionalString,
  /**
   * Secret that signs dashboard session cookies (docs/dashboard.md#signing-in-and-sessions). Unset: a key derived
   * from `MGMT_TOKEN`; with neither, dashboard sign-in is refused (fail closed).
   */
  DASHBOARD_SESSION_SECRET: optionalString,
  /**
   * Public base URL of this deployment (e.g. `https://skills.example.com`): approval
   * notifications then carry absolute links, the dashboard's execution page among them.
   */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** Sandbox host base URL, e.g. `http://127.0.0.1:20129`. */
  SANDBOX_URL: optionalString,
  /** Shared HMAC secret for the sandbox host (docs/sandbox.md#signing). */
  SANDBOX_SECRET: optionalString,
  /**
   * Several sandbox hosts: comma-separated base URLs (docs/sandbox.md#several-hosts); when set it
   * replaces `SANDBOX_URL`.
   */
  SANDBOX_URLS: list,
  /** Per-host secrets, comma-separated in the order of `SANDBOX_URLS`; empty = `SANDBOX_SECRET` for all. */
  SANDBOX_SECRETS: list,
  /** Key id sent with signed requests, so the host can accept two secrets during rotation. */
  SANDBOX_KEY_ID: z.string().default("k1"),
  SKILLS_MAX_FILE_BYTES: int(1_048_576, 1),
  SKILLS_MAX_HTTP_RESPONSE_BYTES: int(256_000, 1),
  SKILLS_MAX_SANDBOX_OUTPUT_CHARS: int(100_000, 1),
  SKILLS_SANDBOX_TIMEOUT_MS: int(10_000, 100, 60_000),
  /**
   * Longest wait of a sandbox run for a slot on its host, ms, apart from the program's own time
   * limit (docs/sandbox.md#queue-wait-and-program-time); the host's `SANDBOX_QUEUE_TIMEOUT_MS`
   * caps it.
   */
  SANDBOX_QUEUE_WAIT_MS: int(10_000, 100, 120_000),
  /**
   * Per-key limiter of the Worker (the `KEY_LIMITER` Durable Object binding): which way each
   * limit fails when the object cannot be reached (docs/rate-limits.md#when-the-limiter-is-unreachable),
   * and how long a call to it may take (ms).
   */
  KEY_LIMITER_ON_UNREACHABLE_EXECUTIONS: z.enum(["open", "closed"]).default("open"),
  KEY_LIMITER_ON_UNREACHABLE_SANDBOX: z.enum(["open", "closed"]).default("closed"),
  KEY_LIMITER_TIMEOUT_MS: int(2_000, 50, 30_000),
  SKILLS_SANDBOX_NETWORK_ENABLED: bool.default(false),
  SKILLS_ALLOWED_SANDBOX_IMAGES: list,
  /** SkillsMP marketplace base URL (docs/catalogs.md). */
  SKILLSMP_BASE_URL: z.string().url().default("https://skillsmp.com"),
  /** SkillsMP API key as a secret; the `skillsmpApiKey` setting takes precedence when set. */
  SKILLSMP_API_KEY: optionalString,
  /** skills.sh catalog base URL (docs/catalogs.md). */
  SKILLSSH_BASE_URL: z.string().url().default("https://skills.sh"),
  /** GitHub raw content base URL used to fetch SKILL.md files. */
  GITHUB_RAW_BASE_URL: z.string().url().default("https://raw.githubusercontent.com"),
  /** web_search provider: `searxng`, `brave`, or `none` (web_search then fails with a clear error). */
  WEB_SEARCH_PROVIDER: z.enum(["searxng", "brave", "none"]).default("none"),
  /** SearXNG instance base URL (operator configuration; may be private). */
  SEARXNG_URL: optionalString,
  /** Brave Search API key. */
  BRAVE_API_KEY: optionalString,
  /** Brave Search API base URL. */
  BRAVE_BASE_URL: z.string().url().default("https://api.search.brave.com"),
  /** Seconds a web_search result stays cached. */
  WEB_SEARCH_CACHE_TTL_S: int(300, 60),
  /**
   * Lifts the policy floors of the handlers that run commands or code (`execute_command` manual,
   * `eval_code` hybrid) for model calls; the skills' stored policies then apply as they are.
   * A deployment decision, off by default (README "Injection and interception").
   */
  SKILLS_ALLOW_MODEL_COMMANDS: bool.default(false),
  /**
   * When the `skill_search` tool is offered (docs/scoring.md#skill-search): `auto` (inject with a
   * `sessionId` when the caller has more AUTO skills than the request got; MCP when the caller
   * has more skill tools than one request's five AUTO places), `on` always, `off` never.
   */
  SKILLS_SEARCH_TOOL: z.enum(["auto", "on", "off"]).default("auto"),
  /**
   * Browser origins allowed to call the API (CORS), comma-separated: `scheme://host[:port]`
   * each, or `*` for any. Empty (the default): no CORS headers, so browsers on other origins
   * cannot call the API.
   */
  CORS_ALLOWED_ORIGINS: list.refine((origins) => origins.every(isOrigin), {
    message: "each entry must be * or an origin such as https://app.example.com (no path)",
  }),
  /**
   * Browser origins allowed to call `/mcp` (docs/mcp.md#origin-and-host), comma-separated:
   * `scheme://host[:port]` each, or `*` for any. A request with another `Origin` answers 403
   * (DNS-rebinding protection); requests without `Origin` (non-browser clients) are not affected.
   * `CORS_ALLOWED_ORIGINS`, the origin of `PUBLIC_BASE_URL` and loopback origins calling a
   * loopback host are allowed as well.
   */
  MCP_ALLOWED_ORIGINS: list.refine((origins) => origins.every(isOrigin), {
    message: "each entry must be * or an origin such as https://app.example.com (no path)",
  }),
  /**
   * Bearer token that may read `/metrics` (Node), at least 16 characters. The management token
   * may read it too.
   */
  METRICS_TOKEN: optionalString.pipe(
    z.string().min(16, "must be at least 16 characters").optional(),
  ),
  /** How long a hybrid execution may wait for approval before it expires, in ms (docs/policies.md#approval). */
  APPROVAL_TTL_MS: int(24 * 60 * 60 * 1000, 1000),
  /**
   * Origins (`scheme://host[:port]`, comma-separated) that HTTP-handler skills and imported MCP
   * servers may call (docs/custom-skills.md). Empty: HTTP handlers cannot be installed.
   */
  SKILLS_HTTP_HANDLER_ALLOWLIST: list,
  /** Largest answer of an HTTP handler, in bytes (1 MiB); a longer one fails the execution. */
  SKILLS_HTTP_HANDLER_MAX_RESPONSE_BYTES: int(1_048_576, 1),
  /**
   * Largest answer of an imported MCP server's tool call, in bytes as read from the wire (1 MiB,
   * docs/custom-skills.md#mcp-servers): reading stops there and the execution fails
   * `mcp_result_too_large` with the first bytes kept, marked `truncated`.
   */
  SKILLS_MCP_MAX_RESULT_BYTES: int(1_048_576, 1),
  /**
   * Largest answer of one `tools/list` page of an imported MCP server, in bytes as read (4 MiB,
   * docs/limits.md): reading stops there and the import or refresh fails `mcp_list_too_large`.
   */
  SKILLS_MCP_MAX_LIST_BYTES: int(4_194_304, 1),
  /** Most tools one imported MCP server may list (256); more fails `mcp_list_too_large`. */
  SKILLS_MCP_MAX_TOOLS: int(256, 1),
  /**
   * Finished executions older than this many days are deleted by the Worker's cron and the Node
   * timer (docs/execution.md#retention); 0 keeps everything.
   */
  EXECUTION_RETENTION_DAYS: int(30, 0, 36_500),
  /**
   * Learning from traffic (docs/scoring.md#learning-from-traffic): a model's call of an injected
   * or searched skill teaches the `bm25` ranker, per key. Off: nothing is recorded or read.
   */
  SELECTION_LEARNING: bool.default(true),
  /**
   * Whether what keys learn about global skills is shared by every key (scope `*`); off, each
   * key's traffic changes only its own picks.
   */
  SELECTION_LEARNING_SHARE_GLOBAL: bool.default(false),
  /** Days after which a learned weight has halved. */
  SELECTION_LEARNING_HALF_LIFE_DAYS: int(30, 1, 3650),
  /** Most hashed features learned per skill and key; past it the lightest are forgotten. */
  SELECTION_LEARNING_MAX_FEATURES_PER_SKILL: int(256, 1, 4096),
  /**
   * Below this many free bytes on the embedded database's disk, health reports the database not
   * writable (docs/execution.md#a-full-disk). Node with an embedded file only.
   */
  DATABASE_MIN_FREE_BYTES: int(8_388_608, 0),
  /** Largest request body of routes without a limit of their own, in bytes (1 MiB). */
  MAX_BODY_BYTES: int(1_048_576, 1024),
  /** Largest body of `POST /api/skills/executions`, in bytes (2 MiB: a 1 MiB `file_write` fits). */
  MAX_BODY_BYTES_EXECUTE: int(2_097_152, 1024),
  /** Largest body of `POST /api/skills/inject`, in bytes (16 MiB: long conversations). */
  MAX_BODY_BYTES_INJECT: int(16_777_216, 1024),
  /** Largest body of `POST /api/skills/intercept`, in bytes (16 MiB). */
  MAX_BODY_BYTES_INTERCEPT: int(16_777_216, 1024),
  /** Deepest nesting of objects and arrays accepted in a JSON body (the body itself is level 1). */
  MAX_JSON_DEPTH: int(128, 8, 256),
  /**
   * Node: most bytes of a refused or unread request body read and discarded after the answer, so
   * that a client still sending can read the answer (docs/limits.md); past it the connection
   * closes.
   */
  REQUEST_DRAIN_MAX_BYTES: int(67_108_864, 0),
  /** Node: longest time spent discarding an unread request body after the answer, in ms. */
  REQUEST_DRAIN_MAX_MS: int(10_000, 0, 600_000),
  /** Most bytes of an execution's input JSON kept in its history row; longer ones keep a prefix. */
  SKILLS_MAX_STORED_INPUT_BYTES: int(262_144, 1024),
  /** Most bytes of an execution's output JSON kept in its history row; longer ones keep a prefix. */
  SKILLS_MAX_STORED_OUTPUT_BYTES: int(262_144, 1024),
  /** Upstream of the proxy's OpenAI endpoints (Chat Completions, Responses); docs/proxy.md. */
  UPSTREAM_OPENAI_BASE_URL: z.string().url().default("https://api.openai.com/v1"),
  /** Upstream of the proxy's Anthropic Messages endpoint. */
  UPSTREAM_ANTHROPIC_BASE_URL: z.string().url().default("https://api.anthropic.com"),
  /** Upstream of the proxy's Gemini endpoints. */
  UPSTREAM_GEMINI_BASE_URL: z.string().url().default("https://generativelanguage.googleapis.com"),
  /** Upstream credentials (secrets); a request's `x-upstream-api-key` takes precedence. */
  UPSTREAM_OPENAI_API_KEY: optionalString,
  UPSTREAM_ANTHROPIC_API_KEY: optionalString,
  UPSTREAM_GEMINI_API_KEY: optionalString,
  /**
   * Client request headers the proxy forwards to its upstream besides the provider's own
   * (comma-separated, lower case; a trailing `*` makes a prefix, e.g. `x-portkey-*`): for an
   * upstream that is another gateway reading its own headers (docs/proxy.md#chains-with-other-gateways).
   * Credentials of the client (`authorization`, `x-api-key`, …) are never forwarded. Empty: none.
   */
  PROXY_FORWARD_HEADERS: list,
  /** Most upstream calls of one proxy request (the first answer included). */
  PROXY_MAX_ROUNDS: int(5, 1, 50),
  /**
   * OpenTelemetry (docs/deployment.md#opentelemetry): the OTLP/HTTP base URL (`/v1/traces` is
   * appended), or the traces URL itself; unset, no spans are made.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  /** Headers of the OTLP export, `name=value` pairs separated by commas (values URL-encoded). */
  OTEL_EXPORTER_OTLP_HEADERS: optionalString,
  OTEL_SERVICE_NAME: z.string().min(1).max(200).default("skillgate"),
  /** Opt-in: owned tool calls' arguments on their spans (conversation content). */
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: bool.default(false),
  /** One access log line per proxied request (docs/proxy.md#observability). */
  PROXY_ACCESS_LOG: bool.default(true),
  /**
   * Time budget of one proxy request, in ms: it covers the upstream's headers, bodies and streams
   * and the skills run between rounds; when it runs out the answer ends with an error.
   */
  PROXY_TIME_BUDGET_MS: int(120_000, 100, 3_600_000),
  /** Longest silence of an upstream body or stream between two reads, in ms. */
  PROXY_IDLE_TIMEOUT_MS: int(60_000, 100, 3_600_000),
  /** Longest line of an upstream event stream, in characters (UTF-16 code units). */
  PROXY_SSE_MAX_LINE_CHARS: int(4_194_304, 1024, 268_435_456),
  /** Largest event of an upstream event stream (its data lines and the line being read), in characters. */
  PROXY_SSE_MAX_EVENT_CHARS: int(4_194_304, 1024, 268_435_456),
  /** Largest accumulated arguments of one tool call in an upstream answer, in characters. */
  PROXY_MAX_TOOL_ARGUMENTS_CHARS: int(2_097_152, 1024, 268_435_456),
  /** Largest non-streaming upstream answer (JSON body or error body), in bytes. */
  PROXY_MAX_UPSTREAM_BODY_BYTES: int(8_388_608, 1024, 268_435_456),
  /** Most owned tool calls run from one model turn; the others get a tool error without running. */
  PROXY_MAX_CALLS_PER_TURN: int(32, 1, 1000),
  /** Interval of the SSE comment lines that keep a proxy stream alive while skills run, in ms. */
  PROXY_KEEPALIVE_MS: int(10_000, 50, 600_000),
  /**
   * Anthropic requests: declare the caller's other AUTO skills with `defer_loading: true` beside
   * Anthropic's tool search tool (`regex` or `bm25` variant) so Claude searches them itself;
   * `off` (default) keeps Skillgate's own selection. A request may choose with the
   * `x-skillgate-anthropic-tool-search` header.
   */
  PROXY_ANTHROPIC_TOOL_SEARCH: z.enum(["off", "regex", "bm25"]).default("off"),
  /** Most skills declared with `defer_loading: true` per Anthropic request (tool search on). */
  PROXY_ANTHROPIC_DEFERRED_MAX_TOOLS: int(200, 1, 10_000),
  /**
   * Prefix of the MCP management tools (docs/mcp.md): `skillgate_` gives `skillgate_skills_list`;
   * `omniroute_` gives the names of clients written against OmniRoute; empty gives bare names.
   */
  MCP_TOOL_PREFIX: z
    .string()
    .regex(/^(?:[A-Za-z_][A-Za-z0-9_-]{0,31})?$/, "letters, digits, _ and - (at most 32)")
    .default("skillgate_"),
});

/** Parsed configuration. */
export type Config = z.infer<typeof configSchema>;

/**
 * Parses configuration from a flat record of strings (process.env or Worker `env`).
 * @throws InvalidInputError naming each invalid variable.
 */
export function parseConfig(source: Record<string, unknown>): Config {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = source[key];
    if (typeof value === "string" || typeof value === "boolean" || typeof value === "number")
      picked[key] = value;
  }
  const parsed = configSchema.safeParse(picked);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => ({
      variable: i.path.join("."),
      message: i.message,
    }));
    throw new InvalidInputError(
      `Invalid configuration: ${details.map((d) => `${d.variable} (${d.message})`).join(", ")}`,
      details,
      "invalid_config",
    );
  }
  return parsed.data;
}
