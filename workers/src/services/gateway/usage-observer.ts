/**
 * Token accounting of the gateway (docs/limits.md#token-budgets): a {@link GatewayObserver} that
 * sums each request's usage over its rounds (the `usage` of every `round` event, JSON and
 * streamed alike), counts the owned calls that ran, and when the request ends well (status 200)
 * hands the totals to `record` once.
 */

import type { WireFormat } from "../../formats/types.js";
import { sumUsage } from "../../formats/wire.js";
import type { GatewayEvent, GatewayObserver, GatewayRequest } from "./types.js";

/** Where a finished request's totals go (the token usage service's `record`). */
export type UsageRecorder = (
  apiKeyId: string | null,
  format: WireFormat,
  usage: unknown,
  rounds: number,
  ownedCalls: number,
) => void;

/** An observer that records each answered request's usage through `record`. */
export function usageObserver(record: UsageRecorder): GatewayObserver {
  const open = new WeakMap<GatewayRequest, { usage: unknown; owned: number }>();
  return {
    onEvent(req: GatewayRequest, event: GatewayEvent): void {
      const seen = open.get(req) ?? { usage: undefined, owned: 0 };
      open.set(req, seen);
      if (event.type === "round" && event.usage !== undefined)
        seen.usage = sumUsage(seen.usage, event.usage);
      else if (event.type === "skills-end") seen.owned += event.executions.length;
      else if (event.type === "end") {
        open.delete(req);
        // Round 0: nothing ran through the loop (the master switch off).
        if (event.status === 200 && event.round > 0)
          record(req.apiKeyId, req.format, seen.usage, event.round, seen.owned);
      }
    },
  };
}
