/**
 * Approval notifications (docs/approval-notifications.md): when an execution starts waiting for
 * approval, a signed JSON message goes to the webhook configured for its key, else the global one.
 * Signed per Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
 * Delivery runs in the background (the tool call never waits for it), is retried with a backoff,
 * and every attempt is recorded on the execution.
 */
import { signWebhook } from "../handlers/webhook-signing.js";
import type { Execution, NotificationDelivery, Skill } from "../types.js";

/** Event type of the message (`type` of the Standard Webhooks payload). */
export const APPROVAL_EVENT_TYPE = "execution.approval_required";

/** Longest input summary in the message, in characters of JSON text. */
export const INPUT_SUMMARY_CHARS = 500;

/** Delivery attempts per notification. */
export const DEFAULT_DELIVERY_ATTEMPTS = 3;

/** Backoff before retry n (1-based), in ms: 1 s, then 4 s (× 4 each time). */
export const DEFAULT_DELIVERY_BACKOFF_MS = 1_000;

/** Where a notification goes. `secret` is a Standard Webhooks secret (`whsec_...`). */
export interface WebhookTarget {
  url: string;
  secret: string;
}

/** The answer of one delivery attempt: the receiver's status, or a failure reason. */
export type SendResult = { status: number } | { error: string };

/** What the notifier needs from the app. */
export interface ApprovalNotifierDeps {
  /** The key's webhook, else the global one; null when neither is configured. */
  targetFor: (apiKeyId: string | null) => Promise<WebhookTarget | null>;
  /**
   * Sends one signed POST through the outbound guard (public addresses only) and reports the
   * status; never throws.
   */
  send: (url: string, headers: Record<string, string>, body: string) => Promise<SendResult>;
  /** Appends one delivery attempt to the execution's record. */
  record: (executionId: string, delivery: NotificationDelivery) => Promise<void>;
  /** Absolute base of the public links (`PUBLIC_BASE_URL`); undefined = paths only. */
  publicBaseUrl?: string;
  /** Whether the dashboard is served (its execution page is linked then). */
  dashboard: boolean;
  /** When an unapproved execution expires, in ms after its creation. */
  approvalTtlMs: number;
  clock?: () => number;
  attempts?: number;
  backoffMs?: number;
  /** Reports a failure the notifier could not record (never the secret). */
  onError?: (message: string) => void;
}

/** The JSON body of one notification (Standard Webhooks `{ type, timestamp, data }`). */
export interface ApprovalNotice {
  type: typeof APPROVAL_EVENT_TYPE;
  timestamp: string;
  data: {
    executionId: string;
    skill: { id: string; name: string; version: string };
    apiKeyId: string | null;
    sessionId: string | null;
    /** The input's JSON text, at most {@link INPUT_SUMMARY_CHARS} characters. */
    inputSummary: string;
    inputTruncated: boolean;
    createdAt: string;
    expiresAt: string;
    links: { execution: string; approve: string; reject: string; dashboard?: string };
  };
}

/** The message of `execution` (links absolute when `base` is set, else paths). */
export function approvalNotice(
  execution: Execution,
  skill: Skill,
  now: number,
  opts: { publicBaseUrl?: string; dashboard: boolean; approvalTtlMs: number },
): ApprovalNotice {
  const base = opts.publicBaseUrl?.replace(/\/+$/, "") ?? "";
  const rest = `${base}/api/skills/executions/${encodeURIComponent(execution.id)}`;
  const json = JSON.stringify(execution.input ?? null);
  const cut = json.length > INPUT_SUMMARY_CHARS;
  return {
    type: APPROVAL_EVENT_TYPE,
    timestamp: new Date(now).toISOString(),
    data: {
      executionId: execution.id,
      skill: { id: skill.id, name: skill.name, version: skill.version },
      apiKeyId: execution.apiKeyId,
      sessionId: execution.sessionId,
      inputSummary: cut ? `${json.slice(0, INPUT_SUMMARY_CHARS - 1)}…` : json,
      inputTruncated: cut,
      createdAt: execution.createdAt,
      expiresAt: new Date(Date.parse(execution.createdAt) + opts.approvalTtlMs).toISOString(),
      links: {
        execution: rest,
        approve: `${rest}/approve`,
        reject: `${rest}/reject`,
        ...(opts.dashboard && base
          ? { dashboard: `${base}/dashboard/executions/${encodeURIComponent(execution.id)}` }
          : {}),
      },
    },
  };
}

/** The target as shown on a delivery record: scheme, host and path (never the query). */
function shownTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}

/** Sends approval notifications in the background; see the module comment. */
export class ApprovalNotifier {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly deps: ApprovalNotifierDeps) {}

  /**
   * Starts delivering the notification of `execution` (awaiting approval) and returns at once.
   * Failures end up on the execution's delivery record, never with the caller.
   */
  notify(execution: Execution, skill: Skill): void {
    const work = this.deliver(execution, skill).catch((err: unknown) =>
      this.deps.onError?.(`approval notification failed: ${(err as Error).message}`),
    );
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /** Resolves when every delivery started so far has ended (for the Worker's `waitUntil`). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Whether deliveries are under way. */
  get busy(): boolean {
    return this.pending.size > 0;
  }

  private async deliver(execution: Execution, skill: Skill): Promise<void> {
    const target = await this.deps.targetFor(execution.apiKeyId);
    if (!target) return;
    const clock = this.deps.clock ?? Date.now;
    const attempts = this.deps.attempts ?? DEFAULT_DELIVERY_ATTEMPTS;
    const backoff = this.deps.backoffMs ?? DEFAULT_DELIVERY_BACKOFF_MS;
    const webhookId = `msg_${crypto.randomUUID()}`;
    const body = JSON.stringify(approvalNotice(execution, skill, clock(), this.deps));
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await new Promise((r) => setTimeout(r, backoff * 4 ** (attempt - 2)));
      const started = clock();
      const timestampS = Math.floor(started / 1000);
      let result: SendResult;
      try {
        const signature = await signWebhook(target.secret, webhookId, timestampS, body);
        result = await this.deps.send(
          target.url,
          {
            "content-type": "application/json",
            "webhook-id": webhookId,
            "webhook-timestamp": String(timestampS),
            "webhook-signature": signature,
          },
          body,
        );
      } catch {
        result = { error: "the signing secret is not a valid whsec_ secret" };
      }
      const ok = "status" in result && result.status >= 200 && result.status < 300;
      await this.deps.record(execution.id, {
        webhookId,
        attempt,
        at: new Date(started).toISOString(),
        target: shownTarget(target.url),
        status: "status" in result ? result.status : null,
        ok,
        error: ok ? null : "error" in result ? result.error : `HTTP ${result.status}`,
        durationMs: clock() - started,
      });
      if (ok) return;
    }
  }
}
