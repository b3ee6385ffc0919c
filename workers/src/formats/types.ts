/**
 * Shared shapes of the wire-format modules (one per LLM API format a gateway speaks; docs/injection.md, docs/interception.md).
 * Requests and responses arrive as parsed JSON, so every reader is defensive: a field of the wrong
 * shape is ignored rather than trusted. Builders return narrow wire types that the test suite
 * checks against the official SDK types (`openai`, `@anthropic-ai/sdk`, `@google/genai`).
 */
import type { ErrorCode } from "@skillgate/errors";
import type { JsonSchema } from "../skills/types.js";
import type { RegisteredFormat } from "./index.js";
import type { Emit, StreamTranslator } from "./stream-types.js";

/**
 * The wire formats Skillgate speaks: the names registered in `formats/index.ts`. A format is the
 * shape of an LLM API's requests and responses; it is not a catalog (where skills come from) nor a
 * search backend (`web_search`).
 */
export type WireFormat = RegisteredFormat;

/** The LLM vendor behind a format, used by AUTO scoring's provider hints (docs/scoring.md). */
export type RequestProvider = "openai" | "anthropic" | "google";

/** Which JSON Schema dialect a format's tool declarations take (docs/schema-adaptation.md). */
export type SchemaDialect = "json-schema" | "gemini";

/**
 * The server-side search a provider runs over deferred tool declarations: Anthropic's tool search
 * tool in its regex or BM25 variant (Anthropic docs "Tool search tool";
 * docs/proxy.md#anthropic-tool-search).
 */
export type ToolSearchVariant = "regex" | "bm25";

/** Input and output tokens of one usage object (tokens; 0 for what the object lacks). */
export interface TokenCounts {
  input: number;
  output: number;
}

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
 * What injection and interception need from a wire format: where tools go, the context text, the
 * "no tools" choice, the client's own tool names, where calls sit in a response, the follow-up a
 * client sends as is, the documented splice, and the replayed assistant/model turn.
 */
export interface ToolAdapter {
  readonly format: WireFormat;
  /**
   * Response fields of which at least one must be present for interception to read the calls
   * (`POST /api/skills/intercept` checks them; docs/interception.md).
   */
  readonly responseFields: readonly string[];
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
  /**
   * Present only where the provider searches deferred tool declarations itself (Anthropic tool
   * search, docs/proxy.md#anthropic-tool-search; Anthropic docs "Tool search tool"): a copy of
   * `request`, whose tools already end with the declarations named in `deferred`, with those
   * declarations marked for deferred loading and the provider's search tool of `variant` added
   * unless the request carries one. The input is not mutated. A format without it has no
   * deferred tools, and injection never defers skills in it.
   */
  readonly deferTools?: (
    request: JsonObject,
    deferred: ReadonlySet<string>,
    variant: ToolSearchVariant,
  ) => JsonObject;
}

/** The upstream families the gateway calls (OpenAI serves Chat Completions and Responses). */
export type UpstreamFamily = "openai" | "anthropic" | "gemini";

/** What a mixed turn left out of the client's copy (docs/proxy.md#mixed-turns). */
export interface MixedTurnEntry {
  /** The complete turn: Chat `tool_calls`, Anthropic `content`, Gemini `parts`, or Responses owned items. */
  full: unknown[];
  /** Owned results: Chat tool messages, Anthropic `tool_result` blocks, Gemini `functionResponse` parts. */
  results: unknown[];
  /** Gemini: position of each owned call among the turn's calls. */
  ownedAt?: number[];
  /** Gemini: name and canonical arguments of each client call, in order (checked on replay). */
  clientCalls?: string[];
}

/** A turn mixing owned and client calls, as {@link MixedTurnCodec.split} is handed it. */
export interface MixedTurn {
  /** The response, already spliced by interception. */
  response: JsonObject;
  /** Ids ({@link ExtractedCall.callId}) of the owned calls. */
  owned: ReadonlySet<string>;
  /** Positions ({@link ExtractedCall.index}) of the owned calls. */
  ownedAt: ReadonlySet<number>;
  /** The client's calls, in order (never empty). */
  client: readonly ExtractedCall[];
  /** The owned calls' results, in the format's follow-up shape. */
  followUp: readonly object[];
  /** Where the turn will stand in the client's history (the length of the history it sent). */
  position: number;
}

/**
 * How a format hands the client a turn holding only its own calls and puts the removed part back
 * when the client replays the turn (docs/proxy.md#mixed-turns).
 */
export interface MixedTurnCodec {
  /** The client's copy of `turn`, the entry to keep, and the keys to keep it under (best first). */
  split(turn: MixedTurn): { response: JsonObject; entry: MixedTurnEntry; keys: string[] };
  /** The keys a history item standing at `at` may have been kept under, or undefined. */
  turnKeys(item: JsonObject, at: number): string[] | undefined;
  /** True when the replayed `turn` is the one `entry` was kept for (Gemini checks its calls). */
  matches(turn: JsonObject, entry: MixedTurnEntry): boolean;
  /** Puts `entry` back into `history` (mutated) at the replayed turn standing at `at`. */
  restore(history: unknown[], at: number, entry: MixedTurnEntry): void;
}

/**
 * Storage of one API key's gateway state for one format (mixed turns, response chains) in the
 * app's KV-style cache, for the mixed-turn lifetime; keys are the format's own.
 */
export interface TurnStore {
  recall<T>(key: string): Promise<T | undefined>;
  remember(key: string, value: unknown): Promise<void>;
}

/**
 * Continuations by reference to a stored response (Responses `previous_response_id`,
 * docs/proxy.md#previous_response_id).
 */
export interface ResponseChain {
  /** `request` with the named response mapped and the owned outputs it lacks supplied. */
  restore(store: TurnStore, request: JsonObject): Promise<JsonObject>;
  /** Remembers that a streamed answer announced as `firstId` continues from `lastId`. */
  remember(store: TurnStore, firstId: unknown, lastId: unknown): Promise<void>;
}

/**
 * Everything the gateway (the provider-compatible proxy, docs/proxy.md) needs from a wire format,
 * so that its round loop never branches on the format: the upstream path and credential, the
 * client's key, the history and usage fields, the streamed body and its translator, the error
 * shape each official SDK parses, what a round showed the client, mixed turns, and response chains.
 */
export interface GatewayFacet {
  /** The upstream family the format is sent to (its base URL and credential). */
  readonly family: UpstreamFamily;
  /** Request field holding the conversation. */
  readonly historyField: "messages" | "input" | "contents";
  /** True when the history field may also be a plain string (Responses `input`). */
  readonly textHistory: boolean;
  /** Response field holding token usage. */
  readonly usageField: "usage" | "usageMetadata";
  /**
   * Input and output tokens of `usage`, a {@link usageField} value in the format's shape (also
   * the sum over rounds); 0 for a missing, negative or non-numeric count, and both 0 when `usage`
   * is not an object. Which fields count is the provider's own definition, cited in each format's
   * `gateway.ts` (docs/limits.md#token-budgets).
   */
  tokenCounts(usage: unknown): TokenCounts;
  /** Header the client SDK sends its key in (lower case). */
  readonly clientKeyHeader: "authorization" | "x-api-key" | "x-goog-api-key";
  /** Query parameter a client may put its key in (Gemini `?key=`), if any. */
  readonly clientKeyQuery?: string;
  /** Header the upstream expects its credential in (lower case). */
  readonly upstreamKeyHeader: "authorization" | "x-api-key" | "x-goog-api-key";
  /** The value of {@link upstreamKeyHeader} for `key` (OpenAI `Bearer <key>`). */
  upstreamCredential(key: string): string;
  /** Prefix of the client's provider headers forwarded upstream (`anthropic-`, `openai-`). */
  readonly providerHeaderPrefix?: string;
  /** Provider headers sent when the client sent none of that name (Anthropic `anthropic-version`). */
  readonly defaultHeaders: Readonly<Record<string, string>>;
  /** The path (and query) after the family's base URL; `model` is Gemini's from the client path. */
  upstreamPath(model: string | undefined, stream: boolean): string;
  /** The upstream body of a streaming round (Chat also asks for usage, to sum it). */
  streamingBody(request: JsonObject): JsonObject;
  /** A new translator of one client stream; `clientBody` is the request as the client sent it. */
  streamTranslator(emit: Emit, clientBody: JsonObject): StreamTranslator;
  /**
   * The error body of `status` with `message` in the format's own shape; `code` (a code of the
   * error registry, packages/errors) is carried where the shape has a code field (OpenAI).
   */
  errorBody(status: number, message: string, code: ErrorCode): JsonObject;
  /** The content of `response` a stream would have forwarded (docs/proxy.md#non-streaming-answers). */
  roundContent(response: JsonObject): unknown[];
  /** `body` with `pieces` (earlier rounds' content, non-empty) put before its own content. */
  withEarlierContent(body: JsonObject, pieces: readonly unknown[]): JsonObject;
  readonly mixedTurn: MixedTurnCodec;
  /** Present where the format continues by reference to a stored response. */
  readonly responseChain?: ResponseChain;
}

/** A wire format: one folder `formats/<f>/`, registered in `formats/index.ts` (docs/architecture.md). */
export interface FormatAdapter extends ToolAdapter, GatewayFacet {}
