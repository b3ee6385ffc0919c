/**
 * The SSE form of a scripted provider answer (from the JSON fixtures), as each provider streams
 * it: Chat chunks with content and tool-call arguments split into small pieces and a usage chunk,
 * Responses events with sequence numbers, Anthropic events with `ping`s and `input_json_delta`
 * pieces, Gemini chunks with a whole `functionCall` and `finishReason` in a later empty chunk.
 */
import type { Format, Obj } from "./proxy-fixtures.js";

type Ev = { event?: string; data: unknown };
const pieces = (s: string, n = 3): string[] => {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out.length ? out : [""];
};
const asObjs = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

function chat(r: Obj): Ev[] {
  const choice = asObjs(r.choices)[0]!;
  const msg = choice.message as Obj;
  const base = { id: r.id, object: "chat.completion.chunk", created: r.created, model: r.model };
  const c = (delta: Obj, finish: string | null = null): Ev => ({
    data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] },
  });
  const evs: Ev[] = [c({ role: "assistant", content: "" })];
  if (typeof msg.content === "string")
    for (const p of pieces(msg.content)) evs.push(c({ content: p }));
  asObjs(msg.tool_calls).forEach((tc, index) => {
    const fn = tc.function as Obj;
    evs.push(
      c({
        tool_calls: [
          { index, id: tc.id, type: "function", function: { name: fn.name, arguments: "" } },
        ],
      }),
    );
    for (const p of pieces(String(fn.arguments), 4))
      evs.push(c({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  evs.push(c({}, String(choice.finish_reason)));
  evs.push({ data: { ...base, choices: [], usage: r.usage } });
  evs.push({ data: "[DONE]" });
  return evs;
}

function responses(r: Obj): Ev[] {
  let seq = 0;
  const e = (type: string, d: Obj): Ev => ({
    event: type,
    data: { type, sequence_number: seq++, ...d },
  });
  const shell = { ...r, status: "in_progress", output: [] };
  const evs: Ev[] = [
    e("response.created", { response: shell }),
    e("response.in_progress", { response: shell }),
  ];
  asObjs(r.output).forEach((item, output_index) => {
    if (item.type === "message") {
      const text = String((asObjs(item.content)[0] as Obj).text);
      evs.push(
        e("response.output_item.added", {
          output_index,
          item: { ...item, content: [], status: "in_progress" },
        }),
      );
      const part = { type: "output_text", text: "", annotations: [] };
      evs.push(
        e("response.content_part.added", {
          output_index,
          item_id: item.id,
          content_index: 0,
          part,
        }),
      );
      for (const p of pieces(text))
        evs.push(
          e("response.output_text.delta", {
            output_index,
            item_id: item.id,
            content_index: 0,
            delta: p,
            logprobs: [],
          }),
        );
      evs.push(
        e("response.output_text.done", {
          output_index,
          item_id: item.id,
          content_index: 0,
          text,
          logprobs: [],
        }),
      );
      evs.push(
        e("response.content_part.done", {
          output_index,
          item_id: item.id,
          content_index: 0,
          part: { ...part, text },
        }),
      );
    } else {
      evs.push(
        e("response.output_item.added", {
          output_index,
          item: { ...item, arguments: "", status: "in_progress" },
        }),
      );
      for (const p of pieces(String(item.arguments), 4))
        evs.push(
          e("response.function_call_arguments.delta", { output_index, item_id: item.id, delta: p }),
        );
      evs.push(
        e("response.function_call_arguments.done", {
          output_index,
          item_id: item.id,
          arguments: item.arguments,
        }),
      );
    }
    evs.push(e("response.output_item.done", { output_index, item }));
  });
  evs.push(e("response.completed", { response: r }));
  return evs;
}

function anthropic(r: Obj): Ev[] {
  const e = (type: string, d: Obj): Ev => ({ event: type, data: { type, ...d } });
  const usage = r.usage as Obj;
  const evs: Ev[] = [
    e("message_start", {
      message: {
        ...r,
        content: [],
        stop_reason: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 0 },
      },
    }),
    e("ping", {}),
  ];
  asObjs(r.content).forEach((b, index) => {
    if (b.type === "text") {
      evs.push(e("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const p of pieces(String(b.text)))
        evs.push(e("content_block_delta", { index, delta: { type: "text_delta", text: p } }));
    } else if (!("input" in b)) {
      // A result block of a server tool (tool_search_tool_result, …) comes whole in its start.
      evs.push(e("content_block_start", { index, content_block: b }));
    } else {
      evs.push(e("content_block_start", { index, content_block: { ...b, input: {} } }));
      for (const p of pieces(JSON.stringify(b.input), 4))
        evs.push(
          e("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } }),
        );
    }
    evs.push(e("content_block_stop", { index }));
  });
  evs.push(
    e("message_delta", {
      delta: { stop_reason: r.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
  );
  evs.push(e("message_stop", {}));
  return evs;
}

function gemini(r: Obj): Ev[] {
  const cand = asObjs(r.candidates)[0]!;
  const parts = asObjs((cand.content as Obj).parts);
  const evs: Ev[] = [];
  const chunk = (ps: Obj[], extra: Obj = {}): Ev => ({
    data: {
      candidates: [{ index: 0, content: { role: "model", parts: ps }, ...extra }],
      responseId: r.responseId,
    },
  });
  for (const p of parts) {
    if (typeof p.text === "string") for (const t of pieces(p.text)) evs.push(chunk([{ text: t }]));
    else evs.push(chunk([p]));
  }
  evs.push({
    data: {
      candidates: [{ index: 0, content: { role: "model", parts: [] }, finishReason: "STOP" }],
      usageMetadata: r.usageMetadata,
      responseId: r.responseId,
    },
  });
  return evs;
}

/** The SSE events of the JSON answer `r` in `format`. */
export function sseOf(format: Format, r: Obj): Ev[] {
  if (format === "openai-chat") return chat(r);
  if (format === "openai-responses") return responses(r);
  if (format === "anthropic") return anthropic(r);
  return gemini(r);
}

/** True when the request asks for a stream (body flag or Gemini's stream path). */
export function wantsStream(url: string, body: Obj): boolean {
  return body.stream === true || url.includes(":streamGenerateContent");
}

/** The text a Chat Completions event stream carries: its `delta.content` pieces joined. */
export function chatStreamContent(stream: string): string {
  return stream
    .split("\n")
    .filter((l) => l.startsWith("data: ") && l !== "data: [DONE]")
    .map((l) => JSON.parse(l.slice(6)) as { choices: { delta: { content?: string } }[] })
    .map((c) => c.choices[0]?.delta.content ?? "")
    .join("");
}
