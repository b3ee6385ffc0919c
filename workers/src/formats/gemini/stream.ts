/**
 * Gemini `streamGenerateContent?alt=sse` translator: every event is a `GenerateContentResponse`
 * chunk. Text parts are forwarded as they arrive; `functionCall` parts (always whole, with their
 * `thoughtSignature`) are withheld; `finishReason` and `usageMetadata` are held back to the final
 * chunk. A call in one chunk and `finishReason: "STOP"` in a later empty one is a tool turn.
 */

import { sseFrame } from "../sse-frame.js";
import type { Emit, EventOutcome, StreamTranslator } from "../stream-types.js";
import type { JsonObject } from "../types.js";
import { isObject, sumUsage } from "../wire.js";

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** Creates the translator. */
export function geminiTranslator(emit: Emit): StreamTranslator {
  let responseId: unknown;
  let modelVersion: unknown;
  let usage: unknown;
  let roundUsage: unknown;
  let parts: JsonObject[] = [];
  let finishReason: unknown;
  let sawChunk = false;
  const chunk = (body: JsonObject) => emit(sseFrame(JSON.stringify(body)));
  return {
    beginRound() {
      parts = [];
      finishReason = undefined;
      roundUsage = undefined;
      sawChunk = false;
    },
    onEvent(ev): EventOutcome {
      let data: JsonObject;
      try {
        data = JSON.parse(ev.data) as JsonObject;
      } catch {
        return "continue";
      }
      if (isObject(data.error)) {
        chunk(data);
        return "error";
      }
      sawChunk = true;
      responseId ??= data.responseId;
      modelVersion ??= data.modelVersion;
      if (isObject(data.usageMetadata)) roundUsage = data.usageMetadata;
      const cand = Array.isArray(data.candidates) ? data.candidates.find(isObject) : undefined;
      if (!cand) return "continue";
      if (typeof cand.finishReason === "string") finishReason = cand.finishReason;
      const content = isObject(cand.content) ? cand.content : {};
      const forward: JsonObject[] = [];
      for (const p of Array.isArray(content.parts) ? content.parts.filter(isObject) : []) {
        parts.push(p);
        if (!isObject(p.functionCall)) forward.push(p);
      }
      if (forward.length > 0)
        chunk({
          candidates: [{ index: 0, content: { role: "model", parts: forward } }],
          ...(responseId === undefined ? {} : { responseId }),
          ...(modelVersion === undefined ? {} : { modelVersion }),
        });
      return "continue";
    },
    // Gemini streams have no terminal event: a round is complete once a chunk carried its
    // `finishReason` (the last chunk of every generation has one) and the upstream closed.
    roundEnded: () => sawChunk && finishReason !== undefined,
    roundResponse() {
      // The round's own usage (token accounting sums the rounds); the request's sum goes to the
      // client in the final chunk.
      const own = roundUsage;
      if (roundUsage !== undefined) {
        usage = sumUsage(usage, roundUsage);
        roundUsage = undefined;
      }
      return {
        candidates: [
          { index: 0, content: { role: "model", parts }, finishReason: finishReason ?? "STOP" },
        ],
        responseId,
        modelVersion,
        ...(own === undefined ? {} : { usageMetadata: own }),
      };
    },
    finish(clientCalls) {
      const calls = parts.filter((p) => isObject(p.functionCall));
      const mine = calls.filter((_, i) => clientCalls.has(i));
      chunk({
        candidates: [
          {
            index: 0,
            // An empty `parts` makes @google/genai's chat drop the turn from its history.
            content: { role: "model", parts: mine.length > 0 ? mine : [{ text: "" }] },
            finishReason: finishReason ?? "STOP",
          },
        ],
        ...(usage === undefined ? {} : { usageMetadata: usage }),
        ...(responseId === undefined ? {} : { responseId }),
        ...(modelVersion === undefined ? {} : { modelVersion }),
      });
    },
    keepAlive() {
      chunk({
        candidates: [{ index: 0, content: { role: "model", parts: [{ text: "" }] } }],
        ...(responseId === undefined ? {} : { responseId }),
        ...(modelVersion === undefined ? {} : { modelVersion }),
      });
    },
    fail(status, message) {
      chunk({
        error: {
          code: status,
          message,
          status: STATUS[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION"),
        },
      });
    },
  };
}
