/**
 * Gemini mixed turns (docs/proxy.md#mixed-turns): a turn is kept under its first client call's id
 * and also under its position, name and arguments, since clients such as `@ai-sdk/google` replay
 * calls with ids of their own; a replay must carry exactly the client calls the entry was kept
 * for, and is restored with every part as received (`thoughtSignature` on the very part it came
 * with), the client's calls keeping the ids the client gave them.
 */
import type { JsonObject, MixedTurnCodec, MixedTurnEntry } from "../types.js";
import { asArray, isObject } from "../wire.js";

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
function signature(fc: JsonObject): string {
  return `${String(fc.name)}:${canonicalJson(fc.args ?? {})}`;
}

/**
 * The keys of a turn whose first client call is `fc`, the turn standing at `position` in the
 * client's history: the call's id when it has one, then position, name and arguments.
 */
function turnKeys(fc: JsonObject, position: number): string[] {
  const stable = `@${position}:${signature(fc)}`;
  return typeof fc.id === "string" && fc.id !== "" ? [fc.id, stable] : [stable];
}

/** The `functionCall` parts of `parts`, in order. */
function callParts(parts: readonly unknown[]): JsonObject[] {
  return parts.filter((p): p is JsonObject => isObject(p) && isObject(p.functionCall));
}

/** The complete turn as received, the client's calls keeping the ids the client gave them. */
function restoredParts(turn: JsonObject, e: MixedTurnEntry): unknown[] {
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

/** The Gemini mixed-turn codec (see the module docs). */
export const geminiMixedTurn: MixedTurnCodec = {
  split({ response, ownedAt, followUp, position }) {
    const cand = asArray(response.candidates)[0] as JsonObject;
    const content = cand.content as JsonObject;
    const parts = asArray(content.parts);
    let n = 0;
    const kept = parts.filter(
      (p) => !(isObject(p) && isObject(p.functionCall) && ownedAt.has(n++)),
    );
    const candidates = [...asArray(response.candidates)];
    candidates[0] = { ...cand, content: { ...content, parts: kept } };
    const clientCalls = callParts(kept).map((p) => p.functionCall as JsonObject);
    return {
      response: { ...response, candidates },
      entry: {
        full: parts,
        results: followUp.flatMap((m) => asArray((m as { parts?: unknown }).parts)),
        ownedAt: [...ownedAt].sort((a, b) => a - b),
        clientCalls: clientCalls.map(signature),
      },
      keys: turnKeys(clientCalls[0]!, position),
    };
  },
  turnKeys(item, at) {
    if (item.role !== "model") return undefined;
    const first = callParts(asArray(item.parts))[0];
    return first ? turnKeys(first.functionCall as JsonObject, at) : undefined;
  },
  matches(turn, e) {
    if (!e.clientCalls) return true;
    const theirs = callParts(asArray(turn.parts)).map((p) =>
      signature(p.functionCall as JsonObject),
    );
    return (
      theirs.length === e.clientCalls.length && theirs.every((c, i) => c === e.clientCalls![i])
    );
  },
  restore(history, at, e) {
    const turn = history[at] as JsonObject;
    const next = history[at + 1];
    history[at] = { ...turn, parts: restoredParts(turn, e) };
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
  },
};
