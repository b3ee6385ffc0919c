/**
 * Shared shapes of the wire-format modules (one per LLM API format a gateway speaks; docs/injection.md, docs/interception.md).
 * Requests and responses arrive as parsed JSON, so every reader is defensive: a field of the wrong
 * shape is ignored rather than trusted. Builders return narrow wire types that the test suite
 * checks against the official SDK types (`openai`, `@anthropic-ai/sdk`, `@google/genai`).
 */
import type { JsonSchema } from "../skills/types.js";

/**
 * The four wire formats Skillgate speaks. A format is the shape of an LLM API's requests and
 * responses; it is not a catalog (where skills come from) nor a search backend (`web_search`).
 */
export type WireFormat = "openai-chat" | "openai-responses" | "anthropic" | "gemini";

/** The LLM vendor behind a format, used by AUTO scoring's provider hints (docs/scoring.md). */
export type RequestProvider = "openai" | "anthropic" | "google";

/** Which JSON Schema dialect a format's tool declarations take (docs/schema-adaptation.md). */
export type SchemaDialect = "json-schema" | "gemini";

/** A parsed JSON object. */
export type JsonObject = Record<string, unknown>;

/** A tool to inject, provider-neutral: emitted name, description and adapted parameters. */
export interface ToolSpec {
  /** Provider-safe emitted name (see skills/tool-names.ts). */
  name: string;
  description: string;
  /** Parameters already adapted to the format's {@link SchemaDialect}; null = no parameters. */
  parameters: JsonSchema | null;
}

/**
 * One tool call read from a provider response, in response order. Only the turn a client replays
 * counts: Chat `choices[0]`, Gemini `candidates[0]` (see docs/interception.md).
 */
export interface ExtractedCall {
  /**
   * Id of the call, unique within the response and never empty: `tool_calls[].id` (Chat),
   * `call_id` (Responses), `tool_use.id` (Anthropic), `functionCall.id` (Gemini) when present and
   * not already used by an earlier call; otherwise a synthesised id (`fc_<index>` for Gemini,
   * `<prefix><hash>_<index>` elsewhere, see {@link FormatAdapter.splice}).
   */
  callId: string;
  /** The id exactly as the provider sent it: undefined when missing; may be empty or repeated. */
  providerId: string | undefined;
  /** Tool name as the model wrote it ("" when the call carries none). */
  name: string;
  /** Parsed arguments (an object for well-formed calls). */
  input: unknown;
  /** Set when the arguments could not be parsed (malformed JSON string). */
  inputError?: string;
  /** 0-based position among the response's calls. */
  index: number;
  /**
   * A call of a tool kind Skillgate never injects (OpenAI custom tools, Responses computer / shell
   * / apply_patch calls, a call without a function): always the client's.
   */
  clientOnly?: true;
}

/** Outcome status of an intercepted call (`toolResults[].status`; docs/interception.md). */
export type OutcomeStatus = "success" | "error" | "timeout" | "pending_approval";

/** The result of one owned call, to be sent back in the provider's shape. */
export interface CallOutcome {
  call: ExtractedCall;
  status: OutcomeStatus;
  /** Handler output (success), partial output (error/timeout) or an approval note. */
  output?: unknown;
  /** Error message for `error` / `timeout`. */
  error?: string;
  executionId: string | null;
}

/**
 * What each wire-format module knows: where tools go, the context text, the
 * "no tools" choice, the client's own tool names, where calls sit in a response, the follow-up a
 * client sends as is, the documented splice, and the replayed assistant/model turn.
 */
export interface FormatAdapter {
  readonly format: WireFormat;
  readonly provider: RequestProvider;
  readonly schemaDialect: SchemaDialect;
  /** System prompt and text parts of user/assistant messages, newline-joined (not tool results). */
  contextText(request: JsonObject): string;
  /** True when the request itself asks for no tools (`tool_choice: "none"`, Gemini mode NONE). */
  toolsDisabled(request: JsonObject): boolean;
  /**
   * A copy of `request` whose forced tool choice is relaxed to the format's "auto" (Chat and
   * Responses `"required"` or a named tool, Anthropic `any` / `tool`, Gemini mode `ANY`), so the
   * next round of a proxied loop lets the model answer after the forced call ran
   * (docs/proxy.md#the-loop). Any other choice (`auto`, `none`, absent) returns `request` itself.
   */
  relaxToolChoice(request: JsonObject): JsonObject;
  /** Names of the tools the client declared itself (its tools win name clashes). */
  clientToolNames(request: JsonObject): Set<string>;
  /** A copy of `request` with `tools` appended in the format's shape; the input is not mutated. */
  addTools(request: JsonObject, tools: readonly ToolSpec[]): JsonObject;
  /**
   * Every tool call of the replayed turn of `response`, in order, each exactly once (calls in
   * other choices or candidates are not read).
   */
  extractCalls(response: JsonObject): ExtractedCall[];
  /**
   * Provider-native items the client appends after the assistant turn, for `outcomes` in call
   * order; each result is tied to its call by `callId` (never an empty id).
   */
  followUp(outcomes: readonly CallOutcome[]): object[];
  /**
   * A copy of `response` as the client should replay it: every call id that was synthesised
   * (missing, empty or repeated) written into the call where the format replays ids (Chat,
   * Responses, Anthropic; a Gemini turn is kept as received), plus the documented splice where
   * the format admits it. `outcomes` are paired with calls by position (`call.index`), never by
   * id. Without synthesised ids or a splice, `response` itself is returned.
   */
  splice(response: JsonObject, outcomes: readonly CallOutcome[]): JsonObject;
  /**
   * The assistant/model turn(s) of `response` as request items, for replaying history, with the
   * same ids {@link extractCalls} reports.
   */
  replayTurn(response: JsonObject): JsonObject[];
}
