/**
 * Wiring of approval notifications (docs/approval-notifications.md): the target of an execution
 * (its key's webhook, else the global setting) and delivery through the outbound guard of
 * `http_request` (docs/outbound.md: public unicast addresses only, connection pinned to the
 * checked addresses on Node, redirects never followed).
 */
import type { AppDeps } from "../deps.js";
import { createFetchConnector } from "../outbound/fetch-connector.js";
import { guardOutboundUrl } from "../outbound/guard.js";
import { ApprovalNotifier, type SendResult } from "../skills/execution/approval-notifier.js";
import type { ExecutionRepository } from "../skills/execution/execution-repository.js";
import type { ApiKeyService } from "./keys.js";
import type { SettingsService } from "./settings.js";

/** Time limit of one delivery attempt, in ms. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Options of {@link createApprovalNotifier}. */
export interface ApprovalNotifierOptions {
  deps: AppDeps;
  keys: ApiKeyService;
  settings: SettingsService;
  store: ExecutionRepository;
  /** Delivery attempts and backoff base (ms); defaults 3 and 1 000. */
  attempts?: number;
  backoffMs?: number;
}

/**
 * Sends one POST through the guard and connector of `deps.outbound`. Never throws: a refused
 * address, a network failure or a timeout comes back as `{ error }` (without the URL's query).
 */
export function guardedSender(
  deps: AppDeps,
): (url: string, headers: Record<string, string>, body: string) => Promise<SendResult> {
  const connect = deps.outbound?.connect ?? createFetchConnector();
  const resolve = deps.outbound?.resolve;
  return async (url, headers, body) => {
    if (deps.runtime === "node" && !(resolve && deps.outbound?.connect)) {
      return { error: "outbound is not configured (the Node entry passes createNodeOutbound())" };
    }
    const signal = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
    try {
      const target = await guardOutboundUrl(url, { resolve, signal });
      const res = await connect({
        url: target.url,
        method: "POST",
        headers: Object.entries(headers),
        body: new TextEncoder().encode(body),
        addresses: target.addresses,
        signal,
      });
      res.cancel();
      return { status: res.status };
    } catch (err) {
      if (signal.aborted) return { error: `no answer within ${DELIVERY_TIMEOUT_MS} ms` };
      return { error: (err as Error).message || "delivery failed" };
    }
  };
}

/** Builds the app's notifier: the key's webhook first, else the global one. */
export function createApprovalNotifier(opts: ApprovalNotifierOptions): ApprovalNotifier {
  const { deps, keys, settings, store } = opts;
  return new ApprovalNotifier({
    targetFor: async (apiKeyId) => {
      const own = apiKeyId ? await keys.approvalWebhook(apiKeyId) : null;
      if (own) return own;
      const s = await settings.get();
      return s.approvalWebhookUrl && s.approvalWebhookSecret
        ? { url: s.approvalWebhookUrl, secret: s.approvalWebhookSecret }
        : null;
    },
    send: guardedSender(deps),
    record: (id, delivery) => store.recordNotification(id, delivery),
    publicBaseUrl: deps.config.PUBLIC_BASE_URL,
    dashboard: true,
    approvalTtlMs: deps.config.APPROVAL_TTL_MS,
    clock: deps.clock,
    attempts: opts.attempts,
    backoffMs: opts.backoffMs,
    onError: (message) => console.error(`[skillgate] ${message}`),
  });
}
