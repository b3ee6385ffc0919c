/**
 * `previous_response_id` chains of proxied Responses conversations (docs/proxy.md#previous_response_id).
 * The provider stores every response with its conversation, so a request that names an earlier
 * response sends only what is new. Two things the client never saw must then be supplied:
 * - a streamed answer that took several rounds announced the first round's id in
 *   `response.created`; that stored response ends with an owned call the client never answered,
 *   so the first round's id is mapped to the last round's (the answer's `response.completed` id);
 * - a mixed turn handed the client a response without its owned calls; a continuation that
 *   answers only the client's calls gets the owned calls' outputs put in front of its input, since
 *   the stored response holds every call.
 * Both are kept in the gateway's turn store for the mixed-turn lifetime; when an entry is gone the
 * request is forwarded as sent.
 */
import type { JsonObject, MixedTurnEntry, ResponseChain } from "../types.js";
import { asArray, isObject } from "../wire.js";

/**
 * The extra key a Responses mixed turn is kept under: the id of the response that held it, for
 * a continuation that names it in `previous_response_id`.
 */
export function responseTurnKey(responseId: string): string {
  return `resp:${responseId}`;
}

const chainKey = (responseId: string) => `chain:${responseId}`;

/** The Responses chain: see the module docs. */
export const responsesChain: ResponseChain = {
  async remember(store, firstId, lastId) {
    if (typeof firstId !== "string" || typeof lastId !== "string" || firstId === lastId) return;
    await store.remember(chainKey(firstId), lastId);
  },
  async restore(store, request) {
    const named = request.previous_response_id;
    if (typeof named !== "string" || named === "") return request;
    const mapped = await store.recall<string>(chainKey(named));
    const previous = typeof mapped === "string" && mapped !== "" ? mapped : named;
    const entry = await store.recall<MixedTurnEntry>(responseTurnKey(previous));
    let out = previous === named ? request : { ...request, previous_response_id: previous };
    if (!entry) return out;
    const input =
      typeof out.input === "string"
        ? [{ role: "user", content: out.input }]
        : Array.isArray(out.input)
          ? out.input
          : [];
    const answered = new Set(
      input
        .filter((i) => isObject(i) && i.type === "function_call_output")
        .map((i) => (i as JsonObject).call_id),
    );
    const owned = asArray(entry.full)
      .filter(
        (i): i is JsonObject =>
          isObject(i) && i.type === "function_call_output" && !answered.has(i.call_id),
      )
      .map((i) => ({ type: "function_call_output", call_id: i.call_id, output: i.output }));
    if (owned.length > 0) out = { ...out, input: [...owned, ...input] };
    return out;
  },
};
