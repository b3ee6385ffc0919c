/**
 * The content of a non-streaming proxied answer (docs/proxy.md#non-streaming-answers): what the
 * model said in every round, as the streamed answer shows it. A stream forwards each round's text
 * (and reasoning) as it arrives and withholds only the tool calls, so the JSON answer puts the
 * earlier rounds' content before the last round's, in order: Chat `message.content` joined
 * without separator (as the stream's deltas join), Responses output items other than function
 * calls, Anthropic content blocks other than `tool_use`, Gemini parts other than `functionCall`.
 */
import { asArray, isObject, type JsonObject, type WireFormat } from "./domain.js";

/** What one round showed the client, in the format's own pieces (text, items, blocks, parts). */
export type RoundContent = unknown[];

/** Chat `choices[0]`, Gemini `candidates[0]` (the replayed alternative). */
function first(list: unknown): JsonObject | undefined {
  const item = asArray(list)[0];
  return isObject(item) ? item : undefined;
}

/** True for a Responses output item the stream withholds (a call, or a spliced call output). */
function isResponsesCall(item: unknown): boolean {
  return isObject(item) && (item.type === "function_call" || item.type === "function_call_output");
}

/** The content of `response` that a stream would have forwarded to the client. */
export function roundContent(format: WireFormat, response: JsonObject): RoundContent {
  if (format === "openai-chat") {
    const msg = first(response.choices)?.message;
    return isObject(msg) && typeof msg.content === "string" && msg.content !== ""
      ? [msg.content]
      : [];
  }
  if (format === "openai-responses")
    return asArray(response.output).filter((i) => !isResponsesCall(i));
  if (format === "anthropic")
    return asArray(response.content).filter((b) => !(isObject(b) && b.type === "tool_use"));
  const content = first(response.candidates)?.content;
  return isObject(content)
    ? asArray(content.parts).filter((p) => !(isObject(p) && isObject(p.functionCall)))
    : [];
}

/**
 * `body` (the last round's answer) with `earlier` (the content of the rounds before it, in
 * order) put before its own content; `body` itself when `earlier` is empty.
 */
export function withEarlierContent(
  format: WireFormat,
  body: JsonObject,
  earlier: readonly RoundContent[],
): JsonObject {
  const pieces = earlier.flat();
  if (pieces.length === 0) return body;
  if (format === "openai-chat") {
    const choices = [...asArray(body.choices)];
    const choice = first(choices);
    if (!choice || !isObject(choice.message)) return body;
    const own = typeof choice.message.content === "string" ? choice.message.content : "";
    const content = `${pieces.join("")}${own}`;
    choices[0] = { ...choice, message: { ...choice.message, content } };
    return { ...body, choices };
  }
  if (format === "openai-responses") {
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
  }
  if (format === "anthropic") return { ...body, content: [...pieces, ...asArray(body.content)] };
  const candidates = [...asArray(body.candidates)];
  const cand = first(candidates);
  if (!cand) return body;
  const content = isObject(cand.content) ? cand.content : { role: "model" };
  candidates[0] = {
    ...cand,
    content: { ...content, parts: [...pieces, ...asArray(content.parts)] },
  };
  return { ...body, candidates };
}
