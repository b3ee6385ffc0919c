/**
 * The request the gateway sends upstream (docs/proxy.md#the-loop): mixed turns of the client's
 * history restored, a response chain mapped where the format has one, the caller's skills
 * injected; and how each next round's request grows by the assistant turn and the owned results.
 */
import type { FormatAdapter, JsonObject, TurnStore } from "../../formats/types.js";
import { asArray } from "../../formats/wire.js";
import type { InjectOutcome } from "../tools.js";
import { restoreMixedTurns } from "./mixed-turn.js";
import type { PreparedRequest } from "./types.js";

/**
 * The request to send upstream for `body`: restored from `store`, then injected by `inject`.
 * @returns the injected request (with the inject's link) and the names of the tools the client
 *   declared itself.
 */
export async function prepareRequest(
  adapter: FormatAdapter,
  store: TurnStore,
  body: JsonObject,
  inject: (request: JsonObject) => Promise<InjectOutcome>,
): Promise<PreparedRequest> {
  const restored = await restoreMixedTurns(store, adapter, body);
  const chained = adapter.responseChain
    ? await adapter.responseChain.restore(store, restored)
    : restored;
  const clientTools = [...adapter.clientToolNames(chained)];
  return { ...(await inject(chained)), clientTools };
}

/** How many items the client's own history holds (where a turn it is handed will stand). */
export function clientHistoryLength(adapter: FormatAdapter, body: JsonObject): number {
  return asArray(body[adapter.historyField]).length;
}

/** `request` with the assistant turn and the owned calls' results appended to its history. */
export function appendTurn(
  adapter: FormatAdapter,
  request: JsonObject,
  turn: readonly object[],
  results: readonly object[],
): JsonObject {
  const field = adapter.historyField;
  const current = request[field];
  const history = Array.isArray(current)
    ? current
    : typeof current === "string"
      ? [{ role: "user", content: current }]
      : [];
  return { ...request, [field]: [...history, ...turn, ...results] };
}
