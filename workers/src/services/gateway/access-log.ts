/**
 * The gateway's access log and routing feed (docs/proxy.md#observability): {@link GatewayObserver}s
 * that measure each proxied request from its events — rounds, owned calls, the last upstream
 * status and the time spent in total, waiting on the upstream and running skills — and, when it
 * ends, write one access log line, one line per upstream failure, and one observation of the
 * routing history that `memory_aware_routing` reads (docs/a2a.md#memory_aware_routing).
 * Neither ever sees a secret or the conversation: only ids, names, counts, statuses and times.
 */

import { getFormatAdapter } from "../../formats/index.js";
import type { WireFormat } from "../../formats/types.js";
import type { ErrorClass, UpstreamCall } from "../../routing/history.js";
import type { GatewayEvent, GatewayObserver, GatewayRequest } from "./types.js";

/** What one finished request measured (milliseconds for the durations). */
export interface RequestMeasure {
  apiKeyId: string | null;
  format: WireFormat;
  /** The model the client asked for (cut and cleaned, see {@link cleanModel}), null when none. */
  model: string | null;
  rounds: number;
  ownedCalls: number;
  /** Upstream calls made. */
  upstreamCalls: number;
  /** Status of the last upstream answer, null when none came (unreachable, or no call). */
  upstreamStatus: number | null;
  /** The client's status. */
  status: number;
  totalMs: number;
  upstreamMs: number;
  skillsMs: number;
}

/** Longest model name kept in a log line or a routing observation, in characters. */
export const MODEL_MAX_CHARS = 128;

/**
 * `model` fit for a log line: characters outside `[A-Za-z0-9._:/@+-]` become `_` (so a client
 * cannot break or forge a line), cut to {@link MODEL_MAX_CHARS}; null for a non-string or empty.
 */
export function cleanModel(model: unknown): string | null {
  if (typeof model !== "string" || model === "") return null;
  return model.slice(0, MODEL_MAX_CHARS).replace(/[^A-Za-z0-9._:/@+-]/g, "_");
}

/**
 * An observer calling `done` with the {@link RequestMeasure} of every request at its `end`
 * event, and `upstreamFailed` for each upstream call that failed or answered an error status.
 * `clock` is in milliseconds (any origin).
 */
export function measureObserver(
  clock: () => number,
  done: (req: GatewayRequest, m: RequestMeasure) => void,
  upstreamFailed?: (
    req: GatewayRequest,
    failure: { host: string; status: number | null; error?: string; round: number },
  ) => void,
): GatewayObserver {
  interface Open {
    started: number;
    /** When the current upstream wait began (the start, or the last `continue`), else null. */
    waiting: number | null;
    skillsFrom: number | null;
    upstreamMs: number;
    skillsMs: number;
    owned: number;
    calls: number;
    status: number | null;
  }
  const open = new WeakMap<GatewayRequest, Open>();
  return {
    onEvent(req: GatewayRequest, event: GatewayEvent): void {
      const now = clock();
      let o = open.get(req);
      if (event.type === "start" || !o) {
        o = {
          started: now,
          waiting: now,
          skillsFrom: null,
          upstreamMs: 0,
          skillsMs: 0,
          owned: 0,
          calls: 0,
          status: null,
        };
        open.set(req, o);
      }
      const stopWaiting = () => {
        if (o.waiting !== null) o.upstreamMs += now - o.waiting;
        o.waiting = null;
      };
      switch (event.type) {
        case "upstream":
          o.calls++;
          o.status = event.status;
          if (event.status === null || event.status >= 400)
            upstreamFailed?.(req, {
              host: event.host,
              status: event.status,
              error: event.error,
              round: event.round,
            });
          break;
        case "round":
          stopWaiting();
          break;
        case "skills-start":
          o.skillsFrom = now;
          break;
        case "skills-end":
          if (o.skillsFrom !== null) o.skillsMs += now - o.skillsFrom;
          o.skillsFrom = null;
          o.owned += event.executions.length;
          break;
        case "continue":
          o.waiting = now;
          break;
        case "end":
          stopWaiting();
          open.delete(req);
          done(req, {
            apiKeyId: req.apiKeyId,
            format: req.format,
            model: cleanModel(req.model ?? req.body?.model),
            rounds: event.round,
            ownedCalls: o.owned,
            upstreamCalls: o.calls,
            upstreamStatus: o.status,
            status: event.status,
            totalMs: Math.max(0, now - o.started),
            upstreamMs: Math.max(0, o.upstreamMs),
            skillsMs: Math.max(0, o.skillsMs),
          });
          break;
      }
    },
  };
}

/**
 * The access log line of `m` (logfmt): `proxy access key=<id|-> format=… model=<name|-> rounds=…
 * owned_calls=… upstream_calls=… upstream_status=<status|-> status=… total_ms=… upstream_ms=…
 * skills_ms=…` (the request id is in the line's prefix, `logPrefix()`).
 */
export function accessLogLine(m: RequestMeasure): string {
  const ms = (v: number) => String(Math.round(v));
  return [
    "proxy access",
    `key=${m.apiKeyId ?? "-"}`,
    `format=${m.format}`,
    `model=${m.model ?? "-"}`,
    `rounds=${m.rounds}`,
    `owned_calls=${m.ownedCalls}`,
    `upstream_calls=${m.upstreamCalls}`,
    `upstream_status=${m.upstreamStatus ?? "-"}`,
    `status=${m.status}`,
    `total_ms=${ms(m.totalMs)}`,
    `upstream_ms=${ms(m.upstreamMs)}`,
    `skills_ms=${ms(m.skillsMs)}`,
  ].join(" ");
}

/** Longest upstream error text kept in its log line, in characters. */
const ERROR_MAX_CHARS = 200;

/**
 * The log line of a failed upstream call: the format, the round, the upstream's host and its
 * status or the network error (cut to 200 characters, line breaks removed); never the URL's
 * path or query, never a header.
 */
export function upstreamErrorLine(
  format: WireFormat,
  f: { host: string; status: number | null; error?: string; round: number },
): string {
  const why =
    f.status !== null
      ? `answered ${f.status}`
      : `could not be reached: ${(f.error ?? "unknown error").replace(/\s+/g, " ").slice(0, ERROR_MAX_CHARS)}`;
  return `proxy upstream error: ${format} call ${f.round} to ${f.host} ${why}`;
}

/**
 * The error class of a failed upstream call by its status (null: no answer came, a network
 * failure or a timeout as `clientStatus` says): 429 rate_limit, 401/403 auth, 408/504 timeout,
 * other 4xx invalid_request, 5xx server_error.
 */
export function errorClassOf(upstreamStatus: number | null, clientStatus: number): ErrorClass {
  const s = upstreamStatus ?? clientStatus;
  if (s === 429) return "rate_limit";
  if (s === 401 || s === 403) return "auth";
  if (s === 408 || s === 504) return "timeout";
  if (s >= 400 && s < 500) return "invalid_request";
  if (s >= 500) return "server_error";
  return "other";
}

/**
 * The routing observation of a finished request (docs/a2a.md#memory_aware_routing), or null when
 * it says nothing about the upstream: no upstream call, no model named, or the client went away
 * (499). Provider: the format's family (`openai`, `anthropic`, `gemini`); latency: the time spent
 * waiting on the upstream over all rounds; success when the client got a 200.
 */
export function routingObservation(m: RequestMeasure): UpstreamCall | null {
  if (m.upstreamCalls === 0 || m.model === null || m.status === 499) return null;
  const ok = m.status === 200 && (m.upstreamStatus === null || m.upstreamStatus < 400);
  return {
    provider: getFormatAdapter(m.format).family,
    model: m.model,
    status: ok ? "success" : "error",
    errorClass: ok ? null : errorClassOf(m.upstreamStatus, m.status),
    latencyMs: Math.round(m.upstreamMs),
    task: null,
  };
}
