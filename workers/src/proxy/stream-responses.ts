/**
 * Responses API stream translator (`response.created` … `response.completed`, every event with a
 * `sequence_number`, output events with an `output_index`). One `response.created` and one
 * `response.completed` reach the client, under the first round's response id; message and
 * reasoning items are forwarded as they arrive with `output_index` and `sequence_number`
 * renumbered; `function_call` items are withheld (their argument deltas accumulated by the
 * upstream's `response.output_item.done`) and written at the end when they are the client's.
 */
import { isObject, type JsonObject } from "./domain.js";
import { sumUsage } from "./formats.js";
import { sseFrame } from "./sse.js";
import type { Emit, EventOutcome, StreamTranslator } from "./stream-types.js";

/** Creates the translator. */
export function responsesTranslator(emit: Emit): StreamTranslator {
  let seq = 0;
  let round = 0;
  /** Items announced to the client so far (the next `output_index`). */
  let clientCount = 0;
  let first: JsonObject | undefined;
  let usage: unknown;
  /** Items the client has seen, in order (the final `output`). */
  const shown: unknown[] = [];
  /** upstream output_index → client output_index for forwarded items; withheld: -1. */
  let indexMap = new Map<number, number>();
  let roundItems = new Map<number, JsonObject>();
  let completed: JsonObject | undefined;
  let ended = false;
  const send = (type: string, data: JsonObject) =>
    emit(sseFrame(JSON.stringify({ ...data, type, sequence_number: seq++ }), type));
  const finalResponse = (status: string): JsonObject => ({
    ...(completed ?? first ?? {}),
    id: first?.id,
    created_at: first?.created_at,
    status,
    output: shown,
    ...(usage === undefined ? {} : { usage }),
  });
  return {
    beginRound() {
      round++;
      indexMap = new Map();
      roundItems = new Map();
      completed = undefined;
      ended = false;
    },
    onEvent(ev): EventOutcome {
      let data: JsonObject;
      try {
        data = JSON.parse(ev.data) as JsonObject;
      } catch {
        return "continue";
      }
      const type = typeof data.type === "string" ? data.type : ev.event;
      if (type === "error" || type === "response.failed") {
        const { sequence_number: _s, ...rest } = data;
        send(type, rest);
        return "error";
      }
      if (type === "response.created" || type === "response.in_progress") {
        if (!first && isObject(data.response)) first = data.response;
        if (round === 1) send(type, { response: { ...first, output: [] } });
        return "continue";
      }
      if (type === "response.completed" || type === "response.incomplete") {
        if (isObject(data.response)) {
          completed = data.response;
          if (data.response.usage !== undefined) usage = sumUsage(usage, data.response.usage);
        }
        ended = true;
        return "end";
      }
      const upIndex = typeof data.output_index === "number" ? data.output_index : undefined;
      if (upIndex === undefined) return "continue";
      if (type === "response.output_item.added" && isObject(data.item)) {
        indexMap.set(upIndex, data.item.type === "function_call" ? -1 : clientCount++);
      }
      if (type === "response.output_item.done" && isObject(data.item))
        roundItems.set(upIndex, data.item);
      const clientIndex = indexMap.get(upIndex);
      if (clientIndex === undefined || clientIndex < 0) return "continue";
      if (type === "response.output_item.done" && isObject(data.item)) shown.push(data.item);
      const { sequence_number: _s, type: _t, ...rest } = data;
      send(type, { ...rest, output_index: clientIndex });
      return "continue";
    },
    roundEnded: () => ended,
    roundResponse() {
      const output = Array.isArray(completed?.output)
        ? completed.output
        : [...roundItems.entries()].sort((a, b) => a[0] - b[0]).map(([, item]) => item);
      return { ...(completed ?? first ?? {}), output };
    },
    finish(clientCalls) {
      const calls = this.roundResponse().output as unknown[];
      const fcs = calls.filter((i): i is JsonObject => isObject(i) && i.type === "function_call");
      fcs.forEach((item, i) => {
        if (!clientCalls.has(i)) return;
        const output_index = clientCount++;
        const args = typeof item.arguments === "string" ? item.arguments : "";
        send("response.output_item.added", {
          output_index,
          item: { ...item, arguments: "", status: "in_progress" },
        });
        send("response.function_call_arguments.delta", {
          output_index,
          item_id: item.id,
          delta: args,
        });
        send("response.function_call_arguments.done", {
          output_index,
          item_id: item.id,
          arguments: args,
        });
        send("response.output_item.done", { output_index, item });
        shown.push(item);
      });
      send("response.completed", { response: finalResponse("completed") });
    },
    fail(status, message, code) {
      send("error", {
        code: code ?? (status >= 500 ? "server_error" : "invalid_request_error"),
        message,
        param: null,
      });
    },
  };
}
