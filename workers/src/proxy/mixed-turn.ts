/**
 * Turns that mix owned and client calls (docs/proxy.md#mixed-turns). The proxy runs the owned
 * calls, hands the client the turn holding only its own calls, and keeps what it removed (the
 * full turn and the owned results) in the KV-style cache, keyed by the API key and the first
 * client call id of the turn. When a later request replays that turn, the removed calls and
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
}

/** Where removed parts of turns are kept: the proxy service's `rememberTurn` / `recallTurn`. */
export interface TurnCache {
  recallTurn<T>(key: string): Promise<T | undefined>;
  rememberTurn(key: string, entry: unknown, ttlSeconds: number): Promise<void>;
}

function cacheKey(apiKeyId: string | null, format: WireFormat, callId: string): string {
  return `${apiKeyId ?? "global"}:${format}:${callId}`;
}

/** Gemini call identity: its id, else name and arguments. */
function geminiCallId(fc: JsonObject): string {
  return typeof fc.id === "string" && fc.id !== ""
    ? fc.id
    : `${String(fc.name)}:${JSON.stringify(fc.args ?? {})}`;
}

/** Splits `response` (already spliced by interception) into the client's copy and the cache entry. */
export function splitMixedTurn(
  format: WireFormat,
  response: JsonObject,
  owned: ReadonlySet<string>,
  followUp: readonly object[],
): { response: JsonObject; entry: MixedTurnEntry; firstClientId: string } | null {
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
      firstClientId: client[0]!.callId,
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
      firstClientId: client[0]!.callId,
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
      firstClientId: client[0]!.callId,
    };
  }
  const cand = asArray(response.candidates)[0] as JsonObject;
  const content = cand.content as JsonObject;
  const parts = asArray(content.parts);
  let n = 0;
  const kept = parts.filter((p) => !(isObject(p) && isObject(p.functionCall) && ownedIdx.has(n++)));
  const candidates = [...asArray(response.candidates)];
  candidates[0] = { ...cand, content: { ...content, parts: kept } };
  const firstClient = kept.find((p) => isObject(p) && isObject(p.functionCall)) as JsonObject;
  return {
    response: { ...response, candidates },
    entry: {
      full: parts,
      results: followUp.flatMap((m) => asArray((m as JsonObject).parts)),
      ownedAt: [...ownedIdx].sort((a, b) => a - b),
    },
    firstClientId: geminiCallId(firstClient.functionCall as JsonObject),
  };
}

/** Stores `entry` for the turn whose first client call is `firstClientId`. */
export function rememberMixedTurn(
  cache: TurnCache,
  apiKeyId: string | null,
  format: WireFormat,
  firstClientId: string,
  entry: MixedTurnEntry,
): Promise<void> {
  return cache.rememberTurn(cacheKey(apiKeyId, format, firstClientId), entry, MIXED_TURN_TTL_S);
}

/** The first call id of each turn in `history` that may be a mixed turn, with its position. */
function candidateTurns(format: WireFormat, history: unknown[]): { at: number; id: string }[] {
  const out: { at: number; id: string }[] = [];
  history.forEach((item, at) => {
    if (!isObject(item)) return;
    if (format === "openai-chat" && item.role === "assistant") {
      const first = asArray(item.tool_calls)[0];
      if (isObject(first) && typeof first.id === "string") out.push({ at, id: first.id });
    } else if (format === "anthropic" && item.role === "assistant") {
      const first = asArray(item.content).find((b) => isObject(b) && b.type === "tool_use");
      if (isObject(first) && typeof first.id === "string") out.push({ at, id: first.id });
    } else if (format === "openai-responses" && item.type === "function_call") {
      if (typeof item.call_id === "string") out.push({ at, id: item.call_id });
    } else if (format === "gemini" && item.role === "model") {
      const first = asArray(item.parts).find((p) => isObject(p) && isObject(p.functionCall));
      if (isObject(first)) out.push({ at, id: geminiCallId(first.functionCall as JsonObject) });
    }
  });
  return out;
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
    history[at] = { ...turn, parts: e.full };
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
    turns.map((t) => cache.recallTurn<MixedTurnEntry>(cacheKey(apiKeyId, format, t.id))),
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
