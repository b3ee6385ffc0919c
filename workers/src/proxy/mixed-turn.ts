/**
 * Turns that mix owned and client calls (docs/proxy.md#mixed-turns). The proxy runs the owned
 * calls, hands the client the turn holding only its own calls, and keeps what it removed (the
 * full turn and the owned results) in the KV-style cache, keyed by the API key and the first
 * client call id of the turn (Gemini: also by the turn's position and its first client call's
 * name and arguments, since clients such as `@ai-sdk/google` replay calls with ids of their own). When a later request replays that turn, the removed calls and
 * results are put back at their place so the upstream sees the true conversation. An expired
 * entry leaves the history as the client sent it (a consistent conversation without the owned
 * calls).
 */
import { asArray, getFormatAdapter, isObject, type JsonObject, type WireFormat } from "./domain.js";

/** How long a removed part of a turn is kept, in seconds (2 hours). */
export const MIXED_TURN_TTL_S = 7200;

/** What a mixed turn left out of the client's copy. */
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

/** Where removed parts of turns are kept: the proxy service's `rememberTurn` / `recallTurn`. */
export interface TurnCache {
  recallTurn<T>(key: string): Promise<T | undefined>;
  rememberTurn(key: string, entry: unknown, ttlSeconds: number): Promise<void>;
}

function cacheKey(apiKeyId: string | null, format: WireFormat, callId: string): string {
  return `${apiKeyId ?? "global"}:${format}:${callId}`;
}

/**
 * The extra key a Responses mixed turn is stored under: the id of the response that held it, for
 * a continuation that names it in `previous_response_id` (proxy/response-chain.ts).
 */
export function responseTurnKey(responseId: string): string {
  return `resp:${responseId}`;
}

/** The entry stored under `key` (one of the keys {@link splitMixedTurn} gave), if any. */
export function recallMixedTurn(
  cache: TurnCache,
  apiKeyId: string | null,
  format: WireFormat,
  key: string,
): Promise<MixedTurnEntry | undefined> {
  return cache.recallTurn<MixedTurnEntry>(cacheKey(apiKeyId, format, key));
}

/** JSON text of `value` with object keys sorted, so equal arguments give equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(",")}}`;
  return JSON.stringify(value ?? null);
}

/** A Gemini call's name and canonical arguments. */
function geminiSignature(fc: JsonObject): string {
  return `${String(fc.name)}:${canonicalJson(fc.args ?? {})}`;
}

/**
 * The cache keys of a Gemini turn whose first client call is `fc`, the turn standing at
 * `position` in the client's history: the call's id when it has one (a replay that keeps the
 * id), then position, name and arguments (what a replay keeps when the client puts ids of its
 * own on the calls).
 */
function geminiTurnKeys(fc: JsonObject, position: number): string[] {
  const stable = `@${position}:${geminiSignature(fc)}`;
  return typeof fc.id === "string" && fc.id !== "" ? [fc.id, stable] : [stable];
}

/** The `functionCall` parts of Gemini `parts`, in order. */
function callParts(parts: readonly unknown[]): JsonObject[] {
  return parts.filter((p): p is JsonObject => isObject(p) && isObject(p.functionCall));
}

/**
 * Splits `response` (already spliced by interception) into the client's copy and the cache
 * entry, with the keys to store the entry under. `position` is where the turn will stand in the
 * client's history (the length of the history the client sent).
 */
export function splitMixedTurn(
  format: WireFormat,
  response: JsonObject,
  owned: ReadonlySet<string>,
  followUp: readonly object[],
  position: number,
): { response: JsonObject; entry: MixedTurnEntry; keys: string[] } | null {
  const calls = getFormatAdapter(format).extractCalls(response);
  const client = calls.filter((c) => !owned.has(c.callId));
  if (client.length === 0) return null;
  const ownedIdx = new Set(calls.filter((c) => owned.has(c.callId)).map((c) => c.index));
  if (format === "openai-chat") {
    const choice = asArray(response.choices)[0] as JsonObject;
    const msg = choice.message as JsonObject;
    const all = asArray(msg.tool_calls);
    const kept = all.filter((_, i) => !ownedIdx.has(i));
    const choices = [...asArray(response.choices)];
    choices[0] = { ...choice, message: { ...msg, tool_calls: kept } };
    const out = { ...response, choices };
    return {
      response: out,
      entry: { full: all, results: [...followUp] },
      keys: [client[0]!.callId],
    };
  }
  if (format === "anthropic") {
    const content = asArray(response.content);
    let n = 0;
    const kept = content.filter(
      (b) => !(isObject(b) && b.type === "tool_use" && ownedIdx.has(n++)),
    );
    const results = followUp.flatMap((m) => asArray((m as JsonObject).content));
    return {
      response: { ...response, content: kept },
      entry: { full: content, results },
      keys: [client[0]!.callId],
    };
  }
  if (format === "openai-responses") {
    const removed: unknown[] = [];
    const output = asArray(response.output).filter((item) => {
      const mine =
        isObject(item) &&
        (item.type === "function_call" || item.type === "function_call_output") &&
        owned.has(String(item.call_id));
      if (mine) removed.push(item);
      return !mine;
    });
    return {
      response: { ...response, output },
      entry: { full: removed, results: [] },
      keys: [
        client[0]!.callId,
        ...(typeof response.id === "string" ? [responseTurnKey(response.id)] : []),
      ],
    };
  }
  const cand = asArray(response.candidates)[0] as JsonObject;
  const content = cand.content as JsonObject;
  const parts = asArray(content.parts);
  let n = 0;
  const kept = parts.filter((p) => !(isObject(p) && isObject(p.functionCall) && ownedIdx.has(n++)));
  const candidates = [...asArray(response.candidates)];
  candidates[0] = { ...cand, content: { ...content, parts: kept } };
  const clientCalls = callParts(kept).map((p) => p.functionCall as JsonObject);
  return {
    response: { ...response, candidates },
    entry: {
      full: parts,
      results: followUp.flatMap((m) => asArray((m as JsonObject).parts)),
      ownedAt: [...ownedIdx].sort((a, b) => a - b),
      clientCalls: clientCalls.map(geminiSignature),
    },
    keys: geminiTurnKeys(clientCalls[0]!, position),
  };
}

/** Stores `entry` under each of `keys` (from {@link splitMixedTurn}). */
export async function rememberMixedTurn(
  cache: TurnCache,
  apiKeyId: string | null,
  format: WireFormat,
  keys: readonly string[],
  entry: MixedTurnEntry,
): Promise<void> {
  await Promise.all(
    keys.map((k) => cache.rememberTurn(cacheKey(apiKeyId, format, k), entry, MIXED_TURN_TTL_S)),
  );
}

/** Each turn of `history` that may be a mixed turn: its position and its keys, best first. */
function candidateTurns(format: WireFormat, history: unknown[]): { at: number; ids: string[] }[] {
  const out: { at: number; ids: string[] }[] = [];
  history.forEach((item, at) => {
    if (!isObject(item)) return;
    if (format === "openai-chat" && item.role === "assistant") {
      const first = asArray(item.tool_calls)[0];
      if (isObject(first) && typeof first.id === "string") out.push({ at, ids: [first.id] });
    } else if (format === "anthropic" && item.role === "assistant") {
      const first = asArray(item.content).find((b) => isObject(b) && b.type === "tool_use");
      if (isObject(first) && typeof first.id === "string") out.push({ at, ids: [first.id] });
    } else if (format === "openai-responses" && item.type === "function_call") {
      if (typeof item.call_id === "string") out.push({ at, ids: [item.call_id] });
    } else if (format === "gemini" && item.role === "model") {
      const first = callParts(asArray(item.parts))[0];
      if (first) out.push({ at, ids: geminiTurnKeys(first.functionCall as JsonObject, at) });
    }
  });
  return out;
}

/** True when the Gemini turn `turn` replays exactly the client calls `e` was stored for. */
function sameClientCalls(turn: JsonObject, e: MixedTurnEntry): boolean {
  if (!e.clientCalls) return true;
  const theirs = callParts(asArray(turn.parts)).map((p) =>
    geminiSignature(p.functionCall as JsonObject),
  );
  return theirs.length === e.clientCalls.length && theirs.every((c, i) => c === e.clientCalls![i]);
}

/**
 * The complete Gemini turn as received (every part, `thoughtSignature` on the very part it came
 * with), the client's calls keeping the ids the client gave them, so its `functionResponse` ids
 * still match.
 */
function restoredGeminiParts(turn: JsonObject, e: MixedTurnEntry): unknown[] {
  const theirs = callParts(asArray(turn.parts));
  const owned = new Set(e.ownedAt ?? []);
  let call = 0;
  let client = 0;
  return e.full.map((p) => {
    if (!isObject(p) || !isObject(p.functionCall)) return p;
    if (owned.has(call++)) return p;
    const id = theirs[client++]?.functionCall;
    const clientId = isObject(id) ? id.id : undefined;
    if (typeof clientId !== "string" || clientId === "" || clientId === p.functionCall.id) return p;
    return { ...p, functionCall: { ...p.functionCall, id: clientId } };
  });
}

function restoreAt(format: WireFormat, history: unknown[], at: number, e: MixedTurnEntry): void {
  const turn = history[at] as JsonObject;
  const next = history[at + 1];
  if (format === "openai-chat") {
    history[at] = { ...turn, tool_calls: e.full };
    history.splice(at + 1, 0, ...e.results);
  } else if (format === "openai-responses") {
    history.splice(at, 0, ...e.full);
  } else if (format === "anthropic") {
    history[at] = { ...turn, content: e.full };
    if (isObject(next) && next.role === "user") {
      const content =
        typeof next.content === "string"
          ? [{ type: "text", text: next.content }]
          : asArray(next.content);
      history[at + 1] = { ...next, content: [...e.results, ...content] };
    } else history.splice(at + 1, 0, { role: "user", content: e.results });
  } else {
    history[at] = { ...turn, parts: restoredGeminiParts(turn, e) };
    const theirs = isObject(next) ? asArray(next.parts) : [];
    const responses = theirs.filter((p) => isObject(p) && isObject(p.functionResponse));
    const other = theirs.filter((p) => !(isObject(p) && isObject(p.functionResponse)));
    const total = responses.length + e.results.length;
    const owned = new Set(e.ownedAt ?? []);
    const merged: unknown[] = [];
    let o = 0;
    let c = 0;
    for (let i = 0; i < total; i++) merged.push(owned.has(i) ? e.results[o++] : responses[c++]);
    const parts = [...merged.filter((p) => p !== undefined), ...other];
    if (isObject(next)) history[at + 1] = { ...next, parts };
    else history.splice(at + 1, 0, { role: "user", parts });
  }
}

/**
 * `request` with every cached mixed turn of its history restored (a copy; the input is not
 * mutated), or `request` itself when none is found.
 */
export async function restoreMixedTurns(
  cache: TurnCache,
  apiKeyId: string | null,
  format: WireFormat,
  request: JsonObject,
  historyField: string,
): Promise<JsonObject> {
  const history = asArray(request[historyField]);
  const turns = candidateTurns(format, history);
  if (turns.length === 0) return request;
  const entries = await Promise.all(
    turns.map(async (t) => {
      for (const id of t.ids) {
        const e = await cache.recallTurn<MixedTurnEntry>(cacheKey(apiKeyId, format, id));
        if (e && (format !== "gemini" || sameClientCalls(history[t.at] as JsonObject, e))) return e;
      }
      return undefined;
    }),
  );
  if (entries.every((e) => e === undefined)) return request;
  const out = [...history];
  // From the end, so earlier positions stay valid.
  for (let i = turns.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e) restoreAt(format, out, turns[i]!.at, e);
  }
  return { ...request, [historyField]: out };
}
