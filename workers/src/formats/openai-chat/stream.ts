/**
 * Chat Completions stream translator (OpenAI `chat.completion.chunk` events, `data: [DONE]`).
 * Content deltas are forwarded as they arrive under the first round's id; `tool_calls` deltas
 * are accumulated per `index` as openai-node does (a new `id` at a used index starts a new call);
 * `finish_reason` and the usage chunk are withheld until the last
 * round, so an owned call never shows an intermediate `finish_reason: "tool_calls"`. A chunk
 * carrying both a complete call and `finish_reason: "stop"` is a tool turn.
 */

import { sseFrame } from "../sse-frame.js";
import type { Emit, EventOutcome, StreamTranslator } from "../stream-types.js";
import type { JsonObject } from "../types.js";
import { isObject, sumUsage } from "../wire.js";

interface CallAcc {
  id: string;
  type: string;
  name: string;
  args: string;
}

/** Creates the translator; `includeUsage` = the client asked for `stream_options.include_usage`. */
export function chatTranslator(emit: Emit, includeUsage: boolean): StreamTranslator {
  let id = "";
  let model = "";
  let created = 0;
  let usage: unknown;
  /** This round's usage chunk (token accounting sums the rounds). */
  let roundUsage: unknown;
  let text = "";
  let calls: CallAcc[] = [];
  /** Upstream `index` → position in `calls` of the call that index currently continues. */
  let slots = new Map<number, number>();
  /**
   * Adds one `tool_calls` delta, as openai-node's `ChatCompletionStream` does (per `index`: the
   * id and the name set, not appended; arguments appended), except that an `id` other than the
   * one already at that index starts a new call (providers that put every call at index 0), and
   * a delta without an index continues the last call unless it brings a new id.
   */
  const accumulate = (tc: JsonObject) => {
    const id = typeof tc.id === "string" && tc.id !== "" ? tc.id : undefined;
    const index = typeof tc.index === "number" ? tc.index : undefined;
    const at = index === undefined ? calls.length - 1 : (slots.get(index) ?? -1);
    let acc = calls[at];
    if (!acc || (id !== undefined && acc.id !== "" && acc.id !== id)) {
      acc = { id: "", type: "function", name: "", args: "" };
      if (index !== undefined) slots.set(index, calls.length);
      calls.push(acc);
    }
    if (id !== undefined) acc.id = id;
    if (typeof tc.type === "string" && tc.type !== "") acc.type = tc.type;
    const fn = isObject(tc.function) ? tc.function : {};
    if (typeof fn.name === "string" && fn.name !== "") acc.name = fn.name;
    if (typeof fn.arguments === "string") {
      acc.args += fn.arguments;
      longestArgs = Math.max(longestArgs, acc.args.length);
    }
  };
  let finishReason: string | null = null;
  let ended = false;
  let roleSent = false;
  /** Longest accumulated `arguments` of this round's calls, in characters. */
  let longestArgs = 0;
  const chunk = (delta: JsonObject, finish: string | null = null, extra: JsonObject = {}) =>
    emit(
      sseFrame(
        JSON.stringify({
          id,
          object: "chat.completion.chunk",
          created,
          model,
          choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
          ...extra,
        }),
      ),
    );
  return {
    beginRound() {
      roundUsage = undefined;
      text = "";
      calls = [];
      longestArgs = 0;
      slots = new Map();
      finishReason = null;
      ended = false;
    },
    onEvent(ev): EventOutcome {
      if (ev.data.trim() === "[DONE]") {
        ended = true;
        return "end";
      }
      let data: JsonObject;
      try {
        data = JSON.parse(ev.data) as JsonObject;
      } catch {
        return "continue";
      }
      if (isObject(data.error)) {
        emit(sseFrame(JSON.stringify(data)));
        return "error";
      }
      if (!id && typeof data.id === "string") id = data.id;
      if (!model && typeof data.model === "string") model = data.model;
      if (!created && typeof data.created === "number") created = data.created;
      if (isObject(data.usage)) {
        usage = sumUsage(usage, data.usage);
        roundUsage = sumUsage(roundUsage, data.usage);
      }
      const choice = Array.isArray(data.choices) ? data.choices.find(isObject) : undefined;
      if (!choice) return "continue";
      if (typeof choice.finish_reason === "string") finishReason = choice.finish_reason;
      const delta = isObject(choice.delta) ? choice.delta : {};
      for (const tc of Array.isArray(delta.tool_calls) ? delta.tool_calls.filter(isObject) : [])
        accumulate(tc);
      const forward: JsonObject = {};
      if (typeof delta.content === "string" && delta.content !== "") {
        forward.content = delta.content;
        text += delta.content;
      }
      if (typeof delta.refusal === "string" && delta.refusal !== "")
        forward.refusal = delta.refusal;
      if (!roleSent && (Object.keys(forward).length > 0 || typeof delta.role === "string")) {
        forward.role = "assistant";
        roleSent = true;
      }
      if (Object.keys(forward).length > 0) chunk(forward);
      return "continue";
    },
    roundEnded: () => ended,
    longestArguments: () => longestArgs,
    roundResponse() {
      const toolCalls = calls.map((c) => ({
        id: c.id,
        type: c.type,
        function: { name: c.name, arguments: c.args },
      }));
      const message: JsonObject = { role: "assistant", content: text || null };
      if (toolCalls.length > 0) message.tool_calls = toolCalls;
      return {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [{ index: 0, message, finish_reason: finishReason ?? "stop" }],
        ...(roundUsage === undefined ? {} : { usage: roundUsage }),
      };
    },
    finish(clientCalls) {
      const mine = calls.filter((_, i) => clientCalls.has(i));
      if (!roleSent) {
        chunk({ role: "assistant", content: "" });
        roleSent = true;
      }
      mine.forEach((c, index) => {
        chunk({
          tool_calls: [
            { index, id: c.id, type: c.type, function: { name: c.name, arguments: c.args } },
          ],
        });
      });
      chunk(
        {},
        mine.length > 0
          ? "tool_calls"
          : finishReason === "tool_calls"
            ? "stop"
            : (finishReason ?? "stop"),
      );
      if (includeUsage && usage !== undefined)
        emit(
          sseFrame(
            JSON.stringify({
              id,
              object: "chat.completion.chunk",
              created,
              model,
              choices: [],
              usage,
            }),
          ),
        );
      emit(sseFrame("[DONE]"));
    },
    keepAlive() {
      if (roleSent) chunk({});
      else {
        chunk({ role: "assistant", content: "" });
        roleSent = true;
      }
    },
    fail(status, message, code) {
      emit(
        sseFrame(
          JSON.stringify({
            error: {
              message,
              type: status >= 500 ? "server_error" : "invalid_request_error",
              code: code ?? null,
              param: null,
            },
          }),
        ),
      );
    },
  };
}
