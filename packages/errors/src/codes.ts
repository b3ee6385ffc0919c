/**
 * Every error code of Skillgate's HTTP answers, API and sandbox host alike (docs/api.md#errors,
 * docs/sandbox.md#errors). A code means one thing everywhere: the sandbox host's codes reach the
 * API's callers unchanged (as an execution's `errorCode`, or as the answer when the program could
 * not run). An answer's own message may be more specific than the public message here.
 *
 * Codes of a failed execution that never become an HTTP answer (`handler_error`, `timeout`,
 * `file_not_found`, ...) are listed in docs/execution.md#error-codes instead.
 */
import type { ErrorSpec } from "./registry.js";

/** The registry: code → HTTP status, retryable flag, public message. */
export const ERROR_CODES = {
  // --- Requests (API and sandbox host) ---
  invalid_json: { status: 400, retryable: false, message: "Request body is not valid JSON" },
  invalid_input: {
    status: 400,
    retryable: false,
    message: "The request is malformed or fails validation",
  },
  invalid_skill_input: {
    status: 400,
    retryable: false,
    message: "The input does not match the skill's input schema",
  },
  invalid_schema_pattern: {
    status: 400,
    retryable: false,
    message: "A regular expression of the schema cannot be run in linear time",
  },
  json_too_deep: {
    status: 400,
    retryable: false,
    message: "The JSON body nests deeper than the API accepts",
  },
  input_too_large: {
    status: 400,
    retryable: false,
    message: "The input is larger than an execution awaiting approval may keep",
  },
  invalid_config: { status: 400, retryable: false, message: "A configuration value is invalid" },
  http_error: { status: 400, retryable: false, message: "Request failed" },
  unauthorized: {
    status: 401,
    retryable: false,
    message: "Missing or invalid credentials, or a refused request signature",
  },
  forbidden: { status: 403, retryable: false, message: "Not allowed for these credentials" },
  forbidden_api_key: {
    status: 403,
    retryable: false,
    message: "An API key cannot act for another key",
  },
  missing_scope: {
    status: 403,
    retryable: false,
    message: "This API key lacks the scope this call needs",
  },
  origin_not_allowed: {
    status: 403,
    retryable: false,
    message: "This Origin may not call the MCP endpoint",
  },
  model_call_refused: {
    status: 403,
    retryable: false,
    message:
      "A model's call cannot do this: the skill needs an explicit execution, or the action an operator",
  },
  management_required: {
    status: 403,
    retryable: false,
    message: "This endpoint needs the management token",
  },
  not_found: { status: 404, retryable: false, message: "No such route or resource" },
  method_not_allowed: {
    status: 405,
    retryable: false,
    message: "The route does not accept this method",
  },
  conflict: { status: 409, retryable: false, message: "The request conflicts with current state" },
  payload_too_large: { status: 413, retryable: false, message: "Request body is too large" },
  unsupported_media_type: {
    status: 415,
    retryable: false,
    message: "Request body has an unsupported media type",
  },
  internal_error: { status: 500, retryable: false, message: "Internal error" },
  misconfigured: { status: 503, retryable: false, message: "The service is not configured" },

  // --- Registry and API keys ---
  skill_not_found: { status: 404, retryable: false, message: "No such skill for this caller" },
  agent_skill_not_found: {
    status: 404,
    retryable: false,
    message: "No such Agent Skills entry in this API's catalog",
  },
  handler_not_found: {
    status: 404,
    retryable: false,
    message: "The skill's handler is not registered",
  },
  api_key_not_found: { status: 404, retryable: false, message: "No such API key" },
  skill_exists: {
    status: 409,
    retryable: false,
    message: "This name@version is already installed for this owner",
  },
  reserved_name: { status: 409, retryable: false, message: "The name is a builtin's and reserved" },
  already_revoked: { status: 409, retryable: false, message: "The API key is already revoked" },
  api_key_revoked: {
    status: 409,
    retryable: false,
    message: "The API key is revoked: its limits and approval webhook no longer change",
  },

  // --- Approval notifications ---
  invalid_webhook_secret: {
    status: 400,
    retryable: false,
    message: "The webhook secret is missing or not a Standard Webhooks secret (whsec_ + base64)",
  },

  invalid_webhook_url: {
    status: 400,
    retryable: false,
    message:
      "The webhook URL is refused by the outbound guard (http/https, no credentials, no special names, public IP literals only)",
  },

  // --- Custom handlers and imported MCP servers ---
  url_not_allowed: {
    status: 400,
    retryable: false,
    message: "The URL is off the allowlist or refused by the outbound guard",
  },
  not_http_handler: {
    status: 400,
    retryable: false,
    message: "The skill has no HTTP handler and no signing secret",
  },
  mcp_server_not_found: { status: 404, retryable: false, message: "No such imported MCP server" },
  mcp_server_exists: {
    status: 409,
    retryable: false,
    message: "An MCP server with this name is already imported",
  },
  mcp_unreachable: {
    status: 502,
    retryable: true,
    message: "The MCP server could not be reached or did not list its tools",
  },
  mcp_list_too_large: {
    status: 502,
    retryable: false,
    message:
      "The MCP server's tool list went past a bound (answer bytes, pages or tools); nothing was imported",
  },

  // --- Executions ---
  execution_not_found: { status: 404, retryable: false, message: "No such execution" },
  not_awaiting_approval: {
    status: 409,
    retryable: false,
    message: "The execution is not awaiting approval",
  },
  skill_disabled: { status: 409, retryable: false, message: "The skill is disabled (mode off)" },
  custom_execution_disabled: {
    status: 409,
    retryable: false,
    message: "Custom skill execution is off (setting customSkillExecution): only builtins run",
  },
  skills_disabled: {
    status: 503,
    retryable: true,
    message: "Skills execution is disabled (the master switch is off)",
  },
  rate_limited: {
    status: 429,
    retryable: true,
    message: "The API key's executions-per-minute limit was reached",
  },
  token_budget_exceeded: {
    status: 429,
    retryable: true,
    message: "The API key's daily token budget was reached",
  },
  concurrency_limited: {
    status: 429,
    retryable: true,
    message: "The API key's limit of concurrent sandbox runs was reached",
  },
  quota_exceeded: {
    status: 429,
    retryable: true,
    message: "The API key's daily budget of sandbox seconds is spent",
  },
  limit_blocked: {
    status: 403,
    retryable: false,
    message: "A limit of 0 blocks this API key from this kind of call",
  },

  // --- Catalogs ---
  provider_not_active: {
    status: 409,
    retryable: false,
    message: "Installs need this catalog to be the active provider setting",
  },
  skill_md_not_found: { status: 404, retryable: false, message: "No SKILL.md was found" },
  skill_md_link: {
    status: 422,
    retryable: false,
    message: "The SKILL.md is a symbolic link that cannot be followed inside its repository",
  },
  invalid_skill_md: {
    status: 422,
    retryable: false,
    message: "The SKILL.md breaks the Agent Skills rules",
  },
  catalog_rate_limited: {
    status: 429,
    retryable: true,
    message: "The catalog's rate limit was reached",
  },
  catalog_auth_failed: {
    status: 502,
    retryable: false,
    message: "The catalog refused Skillgate's credentials",
  },
  catalog_failed: { status: 502, retryable: false, message: "The catalog answered with an error" },
  catalog_unreachable: { status: 502, retryable: true, message: "The catalog is unreachable" },
  catalog_invalid_response: {
    status: 502,
    retryable: false,
    message: "The catalog's answer could not be read",
  },
  skill_md_too_large: { status: 502, retryable: false, message: "The SKILL.md is too large" },
  upstream_failed: { status: 502, retryable: false, message: "An upstream service failed" },
  skillsmp_not_configured: {
    status: 503,
    retryable: false,
    message: "SkillsMP needs an API key",
  },

  // --- Storage ---
  storage_full: {
    status: 503,
    retryable: true,
    message: "The database has no space left; the request changed nothing",
  },

  // --- The gateway proxy (docs/proxy.md#errors), in each provider's own error shape ---
  upstream_error: {
    status: 502,
    retryable: false,
    message: "The upstream provider answered with an error; its own status is kept",
  },
  upstream_unreachable: {
    status: 502,
    retryable: true,
    message: "The upstream provider could not be reached",
  },
  upstream_invalid: {
    status: 502,
    retryable: false,
    message: "The upstream provider's answer could not be read",
  },
  upstream_timeout: {
    status: 504,
    retryable: true,
    message: "The upstream provider did not answer in time",
  },
  upstream_too_large: {
    status: 502,
    retryable: false,
    message: "The upstream provider's answer is larger than the proxy accepts",
  },
  time_budget_exceeded: {
    status: 504,
    retryable: true,
    message: "The request's time budget ran out before the answer was complete",
  },
  client_closed: {
    status: 499,
    retryable: false,
    message: "The client closed the request before the answer",
  },

  // --- The API's view of the sandbox host ---
  sandbox_busy: {
    status: 429,
    retryable: true,
    message: "The sandbox host had no free slot; the program did not run",
  },
  sandbox_auth_failed: {
    status: 502,
    retryable: false,
    message: "The sandbox host refused the API's request signature",
  },
  sandbox_error: { status: 502, retryable: false, message: "The sandbox host failed" },
  sandbox_unavailable: {
    status: 503,
    retryable: true,
    message: "The sandbox host could not be reached",
  },
  limiter_unavailable: {
    status: 503,
    retryable: true,
    message: "The per-key limiter could not be reached",
  },
  sandbox_outcome_unknown: {
    status: 502,
    retryable: false,
    message:
      "The sandbox host was lost after the program started; whether it ran to the end is unknown, and it was not run again",
  },

  // --- The sandbox host's own ---
  run_exists: { status: 409, retryable: false, message: "A run with this id is already active" },
  killed: { status: 409, retryable: false, message: "Run was killed before it started" },
  body_too_large: { status: 413, retryable: false, message: "Request body is too large" },
  image_not_allowed: {
    status: 422,
    retryable: false,
    message: "Image is invalid or not on the sandbox allowlist",
  },
  busy: { status: 429, retryable: true, message: "Sandbox host is at capacity; retry later" },
  queue_timeout: {
    status: 429,
    retryable: true,
    message: "No sandbox slot came free within the queue wait; the program never started",
  },
  image_unavailable: {
    status: 503,
    retryable: false,
    message: "Image is not available on the sandbox host and could not be pulled",
  },
  docker_unavailable: {
    status: 503,
    retryable: true,
    message: "Docker engine is not available on the sandbox host",
  },
  shutting_down: { status: 503, retryable: true, message: "Sandbox host is shutting down" },
} as const satisfies Record<string, ErrorSpec>;
