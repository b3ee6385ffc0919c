/**
 * Responses API stream translator (`response.created` … `response.completed`, every event with a
 * `sequence_number`, output events with an `output_index`). One `response.created` and one
 * `response.completed` reach the client, the first under the first round's response id and the
 * second under the last round's (the one to continue from with `previous_response_id`); message and
 * reasoning items are forwarded as they arrive with `output_index` and `sequence_number`
 * renumbered; `function_call` items are withheld (their argument deltas accumulated by the
 * upstream's `response.output_item.done`) and written at the end when they are the client's.
 */

import { sseFrame } from "../sse-frame.js";
import type { Emit, EventOutcome, StreamTranslator } from "../stream-types.js";
import type { JsonObject } from "../types.js";
import { isObject, sumUsage } from "../wire.js";
import { isResponsesCallItem } from "./adapter.js";

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
  /** The round's output items in the order they were announced, as assembled from the events. */
  let roundItems: JsonObject[] = [];
  /** upstream output_index → the item it currently continues. */
  let slots = new Map<number, JsonObject>();
  let completed: JsonObject | undefined;
  let ended = false;
  /**
   * Keeps the item at `upIndex` up to date: argument deltas appended, the `.done` arguments and
   * the `output_item.done` item taking over (an item never announced is added then).
   */
  const assemble = (type: string, upIndex: number, data: JsonObject) => {
    const item = slots.get(upIndex);
    if (type === "response.function_call_arguments.delta" && item && typeof data.delta === "string")
      item.arguments = (typeof item.arguments === "string" ? item.arguments : "") + data.delta;
    if (
      type === "response.function_call_arguments.done" &&
      item &&
      typeof data.arguments === "string"
    )
      item.arguments = data.arguments;
    if (type === "response.output_item.done" && isObject(data.item)) {
      if (item) {
        for (const k of Object.keys(item)) delete item[k];
        Object.assign(item, data.item);
      } else {
        const done = { ...data.item };
        slots.set(upIndex, done);
        roundItems.push(done);
      }
    }
  };
  const send = (type: string, data: JsonObject) =>
    emit(sseFrame(JSON.stringify({ ...data, type, sequence_number: seq++ }), type));
  // The last round's id: the response a client continues from with `previous_response_id`
  // (the stored conversation of an earlier round ends with an owned call it never answered).
  const finalResponse = (status: string): JsonObject => ({
    ...(completed ?? first ?? {}),
    id: completed?.id ?? first?.id,
    created_at: first?.created_at,
    status,
    output: shown,
    ...(usage === undefined ? {} : { usage }),
  });
  return {
    beginRound() {
      round++;
      indexMap = new Map();
      roundItems = [];
      slots = new Map();
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
        const item = { ...data.item };
        slots.set(upIndex, item);
        roundItems.push(item);
      }
      assemble(type, upIndex, data);
      const clientIndex = indexMap.get(upIndex);
      if (clientIndex === undefined || clientIndex < 0) return "continue";
      if (type === "response.output_item.done" && isObject(data.item)) shown.push(data.item);
      const { sequence_number: _s, type: _t, ...rest } = data;
      send(type, { ...rest, output_index: clientIndex });
      return "continue";
    },
    roundEnded: () => ended,
    roundResponse() {
      // The completed response's output is the authority (as in openai-node's ResponseStream);
      // an upstream that leaves it empty or out gets the items assembled from the events.
      const output =
        Array.isArray(completed?.output) && completed.output.length > 0
          ? completed.output
          : roundItems;
      return { ...(completed ?? first ?? {}), output };
    },
    finish(clientCalls) {
      // Positions count every call item, as extractCalls does; only function calls were
      // withheld (the client's other calls were forwarded as they came).
      const calls = (this.roundResponse().output as unknown[]).filter(isResponsesCallItem);
      calls.forEach((item, i) => {
        if (item.type !== "function_call" || !clientCalls.has(i)) return;
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
    keepAlive() {
      // A documented lifecycle event every SDK version reads (the undocumented `keepalive` event
      // stops the streams of older ones): the response so far, still in progress.
      send("response.in_progress", {
        response: { ...first, status: "in_progress", output: [...shown] },
      });
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
