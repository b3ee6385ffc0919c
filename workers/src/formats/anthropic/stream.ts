/**
 * Anthropic Messages stream translator (`message_start`, `content_block_*`, `message_delta`,
 * `message_stop`, `ping`, `error`). One `message_start` and one `message_stop` reach the client;
 * text and thinking blocks are forwarded as they arrive with block indexes renumbered across
 * rounds; `tool_use` blocks are accumulated (`input_json_delta` pieces joined; a
 * `content_block_start` at an index already used starts a new block) and written at the end when
 * they are the client's. Thinking blocks keep their `signature` so the replayed
 * turn is exactly what was received.
 */

import { sseFrame } from "../sse-frame.js";
import type { Emit, EventOutcome, StreamTranslator } from "../stream-types.js";
import type { JsonObject } from "../types.js";
import { isObject } from "../wire.js";

interface Block {
  /** The block as in a non-streaming response (text / thinking / redacted_thinking / tool_use). */
  block: JsonObject;
  /** Accumulated `input_json_delta` text of a tool_use block. */
  json: string;
  /** Index in the client's stream (forwarded blocks only). */
  clientIndex?: number;
}

const ANTHROPIC_ERRORS: Record<number, string> = {
  400: "invalid_request_error",
  429: "rate_limit_error",
  504: "timeout_error",
};

/** Creates the translator. */
export function anthropicTranslator(emit: Emit): StreamTranslator {
  let started = false;
  let message: JsonObject = {};
  /** The block each upstream `index` currently continues (a new `content_block_start` replaces it). */
  let blocks = new Map<number, Block>();
  /** The round's blocks in the order they started. */
  let order: Block[] = [];
  let nextClientIndex = 0;
  let stopReason: unknown = null;
  let stopSequence: unknown = null;
  const usage = { input_tokens: 0, output_tokens: 0 } as Record<string, number>;
  /** This round's usage (token accounting sums the rounds); `usage` is the request's sum. */
  let roundUsage: Record<string, number> = {};
  let ended = false;
  /** Longest accumulated `input_json_delta` text of this round's tool_use blocks, in characters. */
  let longestJson = 0;
  const send = (event: string, data: JsonObject) =>
    emit(sseFrame(JSON.stringify({ type: event, ...data }), event));
  const addUsage = (u: unknown, fields: readonly string[]) => {
    if (!isObject(u)) return;
    for (const f of fields) {
      if (typeof u[f] !== "number") continue;
      usage[f] = (usage[f] ?? 0) + (u[f] as number);
      roundUsage[f] = (roundUsage[f] ?? 0) + (u[f] as number);
    }
  };
  return {
    beginRound() {
      roundUsage = {};
      blocks = new Map();
      order = [];
      stopReason = null;
      stopSequence = null;
      ended = false;
      longestJson = 0;
    },
    onEvent(ev): EventOutcome {
      let data: JsonObject;
      try {
        data = JSON.parse(ev.data) as JsonObject;
      } catch {
        return "continue";
      }
      const type = typeof data.type === "string" ? data.type : ev.event;
      if (type === "error") {
        send("error", { error: data.error });
        return "error";
      }
      if (type === "message_start" && isObject(data.message)) {
        addUsage(data.message.usage, [
          "input_tokens",
          "cache_creation_input_tokens",
          "cache_read_input_tokens",
        ]);
        if (!started) {
          message = data.message;
          started = true;
          send("message_start", { message: { ...data.message, content: [] } });
        }
        return "continue";
      }
      if (
        type === "content_block_start" &&
        typeof data.index === "number" &&
        isObject(data.content_block)
      ) {
        const block: Block = { block: { ...data.content_block }, json: "" };
        blocks.set(data.index, block);
        order.push(block);
        if (block.block.type !== "tool_use") {
          block.clientIndex = nextClientIndex++;
          send("content_block_start", {
            index: block.clientIndex,
            content_block: data.content_block,
          });
        }
        return "continue";
      }
      if (
        type === "content_block_delta" &&
        typeof data.index === "number" &&
        isObject(data.delta)
      ) {
        const b = blocks.get(data.index);
        if (!b) return "continue";
        const d = data.delta;
        if (d.type === "input_json_delta" && typeof d.partial_json === "string") {
          b.json += d.partial_json;
          longestJson = Math.max(longestJson, b.json.length);
        }
        if (d.type === "text_delta" && typeof d.text === "string")
          b.block.text = String(b.block.text ?? "") + d.text;
        if (d.type === "thinking_delta" && typeof d.thinking === "string")
          b.block.thinking = String(b.block.thinking ?? "") + d.thinking;
        if (d.type === "signature_delta" && typeof d.signature === "string")
          b.block.signature = String(b.block.signature ?? "") + d.signature;
        if (d.type === "citations_delta" && isObject(d.citation))
          b.block.citations = [
            ...(Array.isArray(b.block.citations) ? b.block.citations : []),
            d.citation,
          ];
        if (b.clientIndex !== undefined)
          send("content_block_delta", { index: b.clientIndex, delta: d });
        return "continue";
      }
      if (type === "content_block_stop" && typeof data.index === "number") {
        const b = blocks.get(data.index);
        if (b?.clientIndex !== undefined) send("content_block_stop", { index: b.clientIndex });
        return "continue";
      }
      if (type === "message_delta") {
        if (isObject(data.delta)) {
          stopReason = data.delta.stop_reason ?? stopReason;
          stopSequence = data.delta.stop_sequence ?? stopSequence;
        }
        addUsage(data.usage, ["output_tokens"]);
        return "continue";
      }
      if (type === "message_stop") {
        ended = true;
        return "end";
      }
      return "continue";
    },
    roundEnded: () => ended,
    longestArguments: () => longestJson,
    roundResponse() {
      const content = order.map((b) => {
        if (b.block.type !== "tool_use") return b.block;
        let input: unknown = {};
        try {
          input = b.json.trim() === "" ? (b.block.input ?? {}) : JSON.parse(b.json);
        } catch {
          input = b.json;
        }
        return { ...b.block, input };
      });
      return {
        ...message,
        type: "message",
        role: "assistant",
        content,
        stop_reason: stopReason,
        stop_sequence: stopSequence,
        usage: { input_tokens: 0, output_tokens: 0, ...roundUsage },
      };
    },
    finish(clientCalls) {
      const calls = order.filter((b) => b.block.type === "tool_use");
      const mine = calls.filter((_, i) => clientCalls.has(i));
      for (const b of mine) {
        const index = nextClientIndex++;
        send("content_block_start", { index, content_block: { ...b.block, input: {} } });
        send("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: b.json || "{}" },
        });
        send("content_block_stop", { index });
      }
      const stop =
        mine.length > 0
          ? "tool_use"
          : stopReason === "tool_use"
            ? "end_turn"
            : (stopReason ?? "end_turn");
      send("message_delta", { delta: { stop_reason: stop, stop_sequence: stopSequence }, usage });
      send("message_stop", {});
    },
    keepAlive() {
      // Anthropic docs "Streaming messages": `ping` events may appear anywhere in the stream.
      send("ping", {});
    },
    fail(status, message) {
      const type =
        ANTHROPIC_ERRORS[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
      send("error", { error: { type, message } });
    },
  };
}
