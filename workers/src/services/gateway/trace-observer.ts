/**
 * OpenTelemetry spans of the gateway (docs/deployment.md#opentelemetry): a {@link GatewayObserver}
 * making one trace per proxied request: a root span `proxy <format>` (with the request id), a
 * `chat <model>` span per round from the start of its upstream wait to its complete answer, and an
 * `execute_tool <name>` span per owned call over the run of its turn's owned calls, with the
 * attributes of the OpenTelemetry semantic conventions for generative AI (`gen_ai.operation.name`,
 * `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens` /
 * `output_tokens`, `gen_ai.tool.name`, `gen_ai.tool.call.id`). No conversation content is put on
 * a span unless `captureContent` is on: then an owned call's arguments
 * (`gen_ai.tool.call.arguments`, at most 4,096 characters).
 */
import {
  type Attributes,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { getFormatAdapter } from "../../formats/index.js";
import type { ExtractedCall } from "../../formats/types.js";
import { currentRequestId } from "../../telemetry/request-context.js";
import { tokenCounts } from "../usage.js";
import { cleanModel } from "./access-log.js";
import type { GatewayEvent, GatewayObserver, GatewayRequest } from "./types.js";

/** Longest captured tool arguments on a span, in characters. */
const MAX_CAPTURED_CHARS = 4096;

/** The observer of `tracer` (see the module docs). */
export function traceObserver(
  tracer: Tracer,
  opts: { captureContent: boolean; clock?: () => number } = { captureContent: false },
): GatewayObserver {
  const clock = opts.clock ?? Date.now;
  interface Open {
    root: Span;
    round: Span | null;
    calls: readonly ExtractedCall[];
    skillsFrom: number | null;
  }
  const open = new WeakMap<GatewayRequest, Open>();
  const model = (req: GatewayRequest) => cleanModel(req.model ?? req.body?.model);
  const startRound = (req: GatewayRequest, o: Open, round: number) => {
    const m = model(req);
    const attrs: Attributes = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": getFormatAdapter(req.format).family,
      "skillgate.round": round,
    };
    if (m) attrs["gen_ai.request.model"] = m;
    o.round = tracer.startSpan(
      m ? `chat ${m}` : "chat",
      { kind: SpanKind.CLIENT, attributes: attrs },
      trace.setSpan(context.active(), o.root),
    );
  };
  return {
    onEvent(req: GatewayRequest, event: GatewayEvent): void {
      if (event.type === "start") {
        const attrs: Attributes = { "skillgate.format": req.format };
        const id = currentRequestId();
        if (id) attrs["skillgate.request_id"] = id;
        if (req.apiKeyId) attrs["skillgate.api_key_id"] = req.apiKeyId;
        const o: Open = {
          root: tracer.startSpan(`proxy ${req.format}`, {
            kind: SpanKind.SERVER,
            attributes: attrs,
          }),
          round: null,
          calls: [],
          skillsFrom: null,
        };
        open.set(req, o);
        startRound(req, o, 1);
        return;
      }
      const o = open.get(req);
      if (!o) return;
      switch (event.type) {
        case "upstream":
          if (o.round && event.status !== null)
            o.round.setAttribute("http.response.status_code", event.status);
          if (o.round && event.status === null) {
            o.round.setAttribute("error.type", "upstream_unreachable");
            o.round.setStatus({ code: SpanStatusCode.ERROR });
          } else if (o.round && event.status !== null && event.status >= 400) {
            o.round.setAttribute("error.type", String(event.status));
            o.round.setStatus({ code: SpanStatusCode.ERROR });
          }
          break;
        case "round": {
          const span = o.round;
          if (!span) break;
          const { input, output } = tokenCounts(req.format, event.usage);
          if (event.usage !== undefined) {
            span.setAttribute("gen_ai.usage.input_tokens", input);
            span.setAttribute("gen_ai.usage.output_tokens", output);
          }
          const responseModel = cleanModel(event.response.model ?? event.response.modelVersion);
          if (responseModel) span.setAttribute("gen_ai.response.model", responseModel);
          span.end();
          o.round = null;
          o.calls = event.calls;
          break;
        }
        case "skills-start":
          o.skillsFrom = clock();
          break;
        case "skills-end": {
          const parent = trace.setSpan(context.active(), o.root);
          const byId = new Map(o.calls.map((c) => [c.callId, c]));
          for (const r of event.owned) {
            const call = byId.get(r.callId);
            const attrs: Attributes = {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.call.id": r.callId,
              "skillgate.round": event.round,
            };
            if (call?.name) attrs["gen_ai.tool.name"] = call.name;
            if (r.executionId) attrs["skillgate.execution.id"] = r.executionId;
            if (opts.captureContent && call)
              attrs["gen_ai.tool.call.arguments"] = JSON.stringify(call.input ?? null).slice(
                0,
                MAX_CAPTURED_CHARS,
              );
            const span = tracer.startSpan(
              call?.name ? `execute_tool ${call.name}` : "execute_tool",
              { kind: SpanKind.INTERNAL, attributes: attrs, startTime: o.skillsFrom ?? clock() },
              parent,
            );
            span.end();
          }
          o.skillsFrom = null;
          break;
        }
        case "continue":
          startRound(req, o, event.round + 1);
          break;
        case "end":
          open.delete(req);
          if (o.round) {
            // No answer came for this round (unreachable, broken, or the master switch off).
            if (event.status >= 400) o.round.setStatus({ code: SpanStatusCode.ERROR });
            o.round.end();
          }
          o.root.setAttribute("http.response.status_code", event.status);
          o.root.setAttribute("skillgate.rounds", event.round);
          if (event.status >= 500) o.root.setStatus({ code: SpanStatusCode.ERROR });
          o.root.end();
          break;
      }
    },
  };
}
