/**
 * Turns that mix owned and client calls (docs/proxy.md#mixed-turns). The proxy runs the owned
 * calls, hands the client the turn holding only its own calls, and keeps what it removed (the
 * full turn and the owned results) in the KV-style cache, under keys the format chooses (its
 * {@link MixedTurnCodec}: the first client call's id, and for Gemini also the turn's position and
 * its first client call's name and arguments). When a later request replays that turn, the
 * removed calls and results are put back at their place so the upstream sees the true
 * conversation. An expired entry leaves the history as the client sent it (a consistent
 * conversation without the owned calls).
 */
import type {
  FormatAdapter,
  JsonObject,
  MixedTurnCodec,
  MixedTurnEntry,
  TurnStore,
  WireFormat,
} from "../../formats/types.js";
import { isObject } from "../../formats/wire.js";

/** How long a removed part of a turn is kept, in seconds (2 hours). */
export const MIXED_TURN_TTL_S = 7200;

/** Where removed parts of turns are kept: the proxy service's `rememberTurn` / `recallTurn`. */
export interface TurnCache {
  recallTurn<T>(key: string): Promise<T | undefined>;
  rememberTurn(key: string, entry: unknown, ttlSeconds: number): Promise<void>;
}

/**
 * The turn store of one API key and format in `cache`: keys `<apiKeyId|global>:<format>:<key>`,
 * entries kept {@link MIXED_TURN_TTL_S} seconds.
 */
export function turnStore(
  cache: TurnCache,
  apiKeyId: string | null,
  format: WireFormat,
): TurnStore {
  const prefix = `${apiKeyId ?? "global"}:${format}:`;
  return {
    recall: (key) => cache.recallTurn(`${prefix}${key}`),
    remember: (key, value) => cache.rememberTurn(`${prefix}${key}`, value, MIXED_TURN_TTL_S),
  };
}

/**
 * Splits `response` (already spliced by interception) into the client's copy and the entry to
 * keep, with the keys to keep it under; null when the turn holds no client call. `position` is
 * where the turn will stand in the client's history (the length of the history the client sent).
 */
export function splitMixedTurn(
  adapter: FormatAdapter,
  response: JsonObject,
  owned: ReadonlySet<string>,
  followUp: readonly object[],
  position: number,
): { response: JsonObject; entry: MixedTurnEntry; keys: string[] } | null {
  const calls = adapter.extractCalls(response);
  const client = calls.filter((c) => !owned.has(c.callId));
  if (client.length === 0) return null;
  const ownedAt = new Set(calls.filter((c) => owned.has(c.callId)).map((c) => c.index));
  return adapter.mixedTurn.split({ response, owned, ownedAt, client, followUp, position });
}

/** Keeps `entry` under each of `keys` (from {@link splitMixedTurn}). */
export async function rememberMixedTurn(
  store: TurnStore,
  keys: readonly string[],
  entry: MixedTurnEntry,
): Promise<void> {
  await Promise.all(keys.map((k) => store.remember(k, entry)));
}

/** Each turn of `history` that may be a mixed turn: its position and its keys, best first. */
function candidateTurns(
  codec: MixedTurnCodec,
  history: unknown[],
): { at: number; ids: string[] }[] {
  const out: { at: number; ids: string[] }[] = [];
  history.forEach((item, at) => {
    if (!isObject(item)) return;
    const ids = codec.turnKeys(item, at);
    if (ids) out.push({ at, ids });
  });
  return out;
}

/**
 * `request` with every kept mixed turn of its history restored (a copy; the input is not
 * mutated), or `request` itself when none is found.
 */
export async function restoreMixedTurns(
  store: TurnStore,
  adapter: FormatAdapter,
  request: JsonObject,
): Promise<JsonObject> {
  const codec = adapter.mixedTurn;
  const field = adapter.historyField;
  const history = Array.isArray(request[field]) ? (request[field] as unknown[]) : [];
  const turns = candidateTurns(codec, history);
  if (turns.length === 0) return request;
  const entries = await Promise.all(
    turns.map(async (t) => {
      for (const id of t.ids) {
        const e = await store.recall<MixedTurnEntry>(id);
        if (e && codec.matches(history[t.at] as JsonObject, e)) return e;
      }
      return undefined;
    }),
  );
  if (entries.every((e) => e === undefined)) return request;
  const out = [...history];
  // From the end, so earlier positions stay valid.
  for (let i = turns.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e) codec.restore(out, turns[i]!.at, e);
  }
  return { ...request, [field]: out };
}
