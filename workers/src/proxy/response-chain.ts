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
 * Both are kept in the KV-style cache for the mixed-turn lifetime (two hours); when an entry is
 * gone the request is forwarded as sent.
 */
import { asArray, isObject, type JsonObject } from "./domain.js";
import {
  MIXED_TURN_TTL_S,
  recallMixedTurn,
  responseTurnKey,
  type TurnCache,
} from "./mixed-turn.js";

const FORMAT = "openai-responses";

function key(apiKeyId: string | null, kind: "chain" | "resp", responseId: string): string {
  return `${apiKeyId ?? "global"}:${FORMAT}:${kind}:${responseId}`;
}

/**
 * Remembers that a streamed answer announced as `firstId` is continued from `lastId` (the
 * answer's last round); nothing when they are the same.
 */
export async function rememberResponseChain(
  cache: TurnCache,
  apiKeyId: string | null,
  firstId: unknown,
  lastId: unknown,
): Promise<void> {
  if (typeof firstId !== "string" || typeof lastId !== "string" || firstId === lastId) return;
  await cache.rememberTurn(key(apiKeyId, "chain", firstId), lastId, MIXED_TURN_TTL_S);
}

/**
 * `request` (a Responses request) with its `previous_response_id` mapped to the last round of
 * the answer it names, and the outputs of the owned calls of that response's mixed turn put in
 * front of `input` (those the input does not answer already); `request` itself when
 * `previous_response_id` is absent or nothing is cached for it.
 */
export async function restoreResponseChain(
  cache: TurnCache,
  apiKeyId: string | null,
  request: JsonObject,
): Promise<JsonObject> {
  const named = request.previous_response_id;
  if (typeof named !== "string" || named === "") return request;
  const mapped = await cache.recallTurn<string>(key(apiKeyId, "chain", named));
  const previous = typeof mapped === "string" && mapped !== "" ? mapped : named;
  const entry = await recallMixedTurn(cache, apiKeyId, FORMAT, responseTurnKey(previous));
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
}
