/**
 * What the gateway needs from the Responses API (docs/proxy.md): `POST {base}/responses` with
 * `Authorization: Bearer`, the history in `input` (a string or items), a mixed turn split by
 * removing the owned `function_call` / `function_call_output` items (kept under the first client
 * call's id and the response's id), and `previous_response_id` chains.
 */
import { bearer, openaiErrorBody } from "../openai-error.js";
import type { GatewayFacet, JsonObject } from "../types.js";
import { asArray, isObject, tokenCount } from "../wire.js";
import { responsesChain, responseTurnKey } from "./chain.js";
import { responsesTranslator } from "./stream.js";

/** True for an output item the stream withholds (a call, or a spliced call output). */
function isCallOrOutput(item: unknown): item is JsonObject {
  return isObject(item) && (item.type === "function_call" || item.type === "function_call_output");
}

/** The gateway facet of the Responses API. */
export const openaiResponsesGateway: GatewayFacet = {
  family: "openai",
  historyField: "input",
  textHistory: true,
  usageField: "usage",
  // OpenAI API reference, Response object `usage`.
  tokenCounts(usage) {
    if (!isObject(usage)) return { input: 0, output: 0 };
    return { input: tokenCount(usage.input_tokens), output: tokenCount(usage.output_tokens) };
  },
  clientKeyHeader: "authorization",
  upstreamKeyHeader: "authorization",
  upstreamCredential: bearer,
  providerHeaderPrefix: "openai-",
  defaultHeaders: {},
  upstreamPath: () => "/responses",
  streamingBody: (request) => ({ ...request, stream: true }),
  streamTranslator: (emit) => responsesTranslator(emit),
  errorBody: openaiErrorBody,
  roundContent: (response) => asArray(response.output).filter((i) => !isCallOrOutput(i)),
  withEarlierContent(body, pieces) {
    const output = [...pieces, ...asArray(body.output)];
    // `output_text` is an SDK convenience; a body that carries it keeps it in step.
    if (typeof body.output_text !== "string") return { ...body, output };
    const text = output
      .filter((i): i is JsonObject => isObject(i) && i.type === "message")
      .flatMap((i) => asArray(i.content))
      .filter((c): c is JsonObject => isObject(c) && c.type === "output_text")
      .map((c) => String(c.text ?? ""))
      .join("");
    return { ...body, output, output_text: text };
  },
  mixedTurn: {
    split({ response, owned, client }) {
      const removed: unknown[] = [];
      const output = asArray(response.output).filter((item) => {
        const mine = isCallOrOutput(item) && owned.has(String(item.call_id));
        if (mine) removed.push(item);
        return !mine;
      });
      return {
        response: { ...response, output },
        entry: { full: removed, results: [] },
        keys: [
          client[0]!.callId,
          ...(typeof response.id === "string" ? [responseTurnKey(response.id)] : []),
        ],
      };
    },
    turnKeys: (item) =>
      item.type === "function_call" && typeof item.call_id === "string"
        ? [item.call_id]
        : undefined,
    matches: () => true,
    restore(history, at, e) {
      history.splice(at, 0, ...e.full);
    },
  },
  responseChain: responsesChain,
};
