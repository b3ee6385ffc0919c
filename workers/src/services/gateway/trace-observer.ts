/**
 * OpenTelemetry spans of the gateway (docs/deployment.md#opentelemetry): a {@link GatewayObserver}
 * making one trace per proxied request: a root span `proxy <format>` (with the request id), a
 * `chat <model>` span per round from the start of its upstream wait to its complete answer, and an
 * `execute_tool <name>` span per owned call over that call's run, with the
 * attributes of the OpenTelemetry semantic conventions for generative AI (`gen_ai.operation.name`,
 * `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens` /
 * `output_tokens`, `gen_ai.tool.name`, `gen_ai.tool.call.id`). No conversation content is put on
 * a span unless `captureContent` is on: then an owned call's arguments
 * (`gen_ai.tool.call.arguments`, at most 4,096 characters). Each call runs with its
 * `execute_tool` span as the current trace context (telemetry/trace-context.ts), so the sandbox
 * host's request carries it in `traceparent` and the host's `sandbox.run` span joins the trace as
 * its child.
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
import type { CallOutcome, ExtractedCall } from "../../formats/types.js";
import { currentRequestId } from "../../telemetry/request-context.js";
import { runInTraceContext } from "../../telemetry/trace-context.js";
import { tokenCounts } from "../usage.js";
import { cleanModel } from "./access-log.js";
import type { GatewayEvent, GatewayObserver, GatewayRequest } from "./types.js";

/** Longest captured tool arguments on a span, in characters. */
const MAX_CAPTURED_CHARS = 4096;

/** The observer of `tracer` (see the module docs). */
export function traceObserver(
  tracer: Tracer,
  opts: { captureContent: boolean } = { captureContent: false },
): GatewayObserver {
  interface Open {
    root: Span;
    round: Span | null;
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
    async aroundCall(
      req: GatewayRequest,
      round: number,
      call: ExtractedCall,
      run: () => Promise<CallOutcome>,
    ): Promise<CallOutcome> {
      const o = open.get(req);
      if (!o) return run();
      const attrs: Attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.call.id": call.callId,
        "skillgate.round": round,
      };
      if (call.name) attrs["gen_ai.tool.name"] = call.name;
      if (opts.captureContent)
        attrs["gen_ai.tool.call.arguments"] = JSON.stringify(call.input ?? null).slice(
          0,
          MAX_CAPTURED_CHARS,
        );
      const span = tracer.startSpan(
        call.name ? `execute_tool ${call.name}` : "execute_tool",
        { kind: SpanKind.INTERNAL, attributes: attrs },
        trace.setSpan(context.active(), o.root),
      );
      try {
        const outcome = await runInTraceContext(trace.setSpan(context.active(), span), run);
        if (outcome.executionId) span.setAttribute("skillgate.execution.id", outcome.executionId);
        if (outcome.status === "error" || outcome.status === "timeout") {
          span.setAttribute("error.type", outcome.status === "timeout" ? "timeout" : "tool_error");
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        return outcome;
      } finally {
        span.end();
      }
    },
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
