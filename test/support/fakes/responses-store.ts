/**
 * A Responses provider that stores its responses as the OpenAI API does, so `previous_response_id`
 * works as it does there: a request naming an earlier response is answered in the conversation of
 * that response (its input and its output) followed by the new `input`. An unknown id answers
 * 400 `previous_response_not_found`; a conversation with a `function_call` that no
 * `function_call_output` answers answers 400 "No tool output found for function call <call_id>."
 * (the API's own message); the other replay rules are those of `checkResponses`. What the model
 * says is decided by the test from the whole conversation. JSON or SSE, as the request asks.
 */
import { randomUUID } from "node:crypto";
import type { Format, Obj } from "../proxy-fixtures.js";
import { sseOf, wantsStream } from "../proxy-sse.js";
import type { Script, ScriptStep } from "./llm-script.js";
import { checkResponses } from "./llm-upstream.js";

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** What the model answers: output items without ids (the store gives them ids). */
export type Decide = (conversation: Obj[]) => Obj[];

/** A function call item to answer with (the store fills `id` and `call_id`). */
export const functionCall = (name: string, args: Obj): Obj => ({
  type: "function_call",
  name,
  arguments: JSON.stringify(args),
  status: "completed",
});

/** A message item to answer with. */
export const message = (text: string): Obj => ({
  type: "message",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations: [] }],
});

/** A running store: its script (for a proxy stand) and the ids it answered, in order. */
export interface ResponsesStore {
  script: Script;
  answered(): string[];
}

function refuse(message: string, param: string | null, code: string | null): ScriptStep {
  return {
    kind: "json",
    status: 400,
    body: { error: { message, type: "invalid_request_error", param, code } },
  };
}

/** A store whose model answers with `decide`. */
export function responsesStore(decide: Decide): ResponsesStore {
  const stored = new Map<string, Obj[]>();
  const answered: string[] = [];
  // Unique across stores, as the API's ids are (a proxy may remember ids across tests).
  const prefix = randomUUID().replaceAll("-", "").slice(0, 12);
  let n = 0;
  const script: Script = (req, body) => {
    const prev = body.previous_response_id;
    if (prev !== undefined && prev !== null && !stored.has(String(prev)))
      return refuse(
        `Previous response with id '${String(prev)}' not found.`,
        "previous_response_id",
        "previous_response_not_found",
      );
    const input =
      typeof body.input === "string"
        ? [{ role: "user", content: body.input }]
        : Array.isArray(body.input)
          ? body.input.filter(isObj)
          : [];
    const conversation = [...(prev ? stored.get(String(prev))! : []), ...input];
    const outputs = new Set(
      conversation.filter((i) => i.type === "function_call_output").map((i) => i.call_id),
    );
    for (const item of conversation)
      if (item.type === "function_call" && !outputs.has(item.call_id))
        return refuse(
          `No tool output found for function call ${String(item.call_id)}.`,
          "input",
          null,
        );
    const problem = checkResponses({ input: conversation });
    if (problem) return refuse(problem, "input", null);
    const id = `resp_${prefix}${n++}`;
    const output = decide(conversation).map((item, k) =>
      item.type === "function_call"
        ? { ...item, id: `fc_${id}_${k}`, call_id: `call_${id}_${k}` }
        : { ...item, id: `msg_${id}_${k}` },
    );
    stored.set(id, [...conversation, ...output]);
    answered.push(id);
    const response: Obj = {
      id,
      object: "response",
      created_at: 1,
      status: "completed",
      model: String(body.model),
      previous_response_id: prev ?? null,
      output,
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    };
    const format: Format = "openai-responses";
    return wantsStream(req.url, body)
      ? { kind: "sse", events: sseOf(format, response) }
      : { kind: "json", body: response };
  };
  return { script, answered: () => [...answered] };
}
