/**
 * Streamed tool calls are assembled the way the SDKs assemble them. The same raw event sequence
 * is read by the SDK's own stream helper straight from the fake provider and through the proxy
 * (the calls being the client's, so they come back to it), and the two results are compared:
 * Chat deltas that repeat the name in every delta; calls that a provider puts all at `index: 0`
 * with their own ids (read as separate calls, as the SDK reads them at distinct indexes); the same
 * with an owned call and a client call; Responses streams whose `response.completed` leaves
 * `output` empty; Anthropic blocks started twice at one index.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Obj } from "../support/proxy-fixtures.js";
import { type ProxyStand, startProxyStand, tempOf, WEATHER } from "../support/proxy-stand.js";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand({ PROXY_MAX_ROUNDS: "3" });
});
afterAll(() => s.close());

type Ev = { event?: string; data: unknown };
const params = { type: "object", properties: {} } as const;

/** Serves `events` as the answer to every request. */
function serve(events: (n: number) => Ev[]): void {
  s.script((_req, _body, n) => ({ kind: "sse", events: events(n), chunkBytes: 9 }));
}

// --- Chat Completions ---------------------------------------------------------------------

const chunk = (delta: Obj, finish: string | null = null): Ev => ({
  data: {
    id: "chatcmpl-d",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-test",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  },
});
const tc = (index: number, fields: Obj): Obj => ({ index, ...fields });
const chatEnd: Ev[] = [
  {
    data: {
      id: "chatcmpl-d",
      object: "chat.completion.chunk",
      created: 1,
      model: "gpt-test",
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  },
  { data: "[DONE]" },
];

/** Two client calls, the second at `secondIndex`; each delta optionally repeats id and name. */
function twoCalls(secondIndex: number, repeat: boolean): Ev[] {
  const call = (index: number, id: string, name: string, args: string[]): Ev[] =>
    args.map((a, i) =>
      chunk({
        tool_calls: [
          tc(index, {
            ...(i === 0 || repeat ? { id, type: "function" } : {}),
            function: { ...(i === 0 || repeat ? { name } : {}), arguments: a },
          }),
        ],
      }),
    );
  return [
    chunk({ role: "assistant", content: null }),
    ...call(0, "c_x", "x", ["", '{"q"', ":1}"]),
    ...call(secondIndex, "c_y", "y", ["", '{"r":', "2}"]),
    chunk({}, "tool_calls"),
    ...chatEnd,
  ];
}

const tools = (names: string[]) =>
  names.map((name) => ({ type: "function" as const, function: { name, parameters: params } }));

/** The final tool calls of a Chat stream read by openai-node's `ChatCompletionStream`. */
async function chatCalls(baseURL: string, apiKey: string, names: string[]) {
  const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  const done = await client.chat.completions
    .stream({
      model: "gpt-test",
      messages: [{ role: "user", content: "go" }],
      tools: tools(names),
      stream_options: { include_usage: true },
    })
    .finalChatCompletion();
  return (done.choices[0]!.message.tool_calls ?? []).map((t) =>
    t.type === "function"
      ? { id: t.id, name: t.function.name, arguments: t.function.arguments }
      : t,
  );
}

describe("Chat Completions deltas", () => {
  it("a name and id repeated in every delta are set once, as openai-node reads them", async () => {
    serve(() => twoCalls(1, true));
    const direct = await chatCalls(`${s.llm.url}/v1`, "sk-direct", ["x", "y"]);
    const proxied = await chatCalls(`${s.app.url}/v1`, s.key.key, ["x", "y"]);
    expect(direct).toEqual([
      { id: "c_x", name: "x", arguments: '{"q":1}' },
      { id: "c_y", name: "y", arguments: '{"r":2}' },
    ]);
    expect(proxied).toEqual(direct);
  });

  it("a new id at an index already in use starts a new call", async () => {
    serve(() => twoCalls(1, false));
    const reference = await chatCalls(`${s.llm.url}/v1`, "sk-direct", ["x", "y"]);
    serve(() => twoCalls(0, false));
    const proxied = await chatCalls(`${s.app.url}/v1`, s.key.key, ["x", "y"]);
    expect(proxied).toEqual(reference);
    expect(proxied.map((c) => "name" in c && c.name)).toEqual(["x", "y"]);
  });

  it("an owned call and a client call both at index 0: the owned one runs, the client gets its own", async () => {
    const session = `deltas-mixed-${Date.now()}`;
    serve(() => [
      chunk({ role: "assistant", content: null }),
      chunk({
        tool_calls: [
          tc(0, { id: "c_w", type: "function", function: { name: WEATHER, arguments: "" } }),
        ],
      }),
      chunk({ tool_calls: [tc(0, { function: { arguments: '{"city":"Lima"}' } })] }),
      chunk({
        tool_calls: [
          tc(0, { id: "c_b", type: "function", function: { name: "Bash", arguments: "" } }),
        ],
      }),
      chunk({ tool_calls: [tc(0, { function: { arguments: '{"command":"ls"}' } })] }),
      chunk({}, "tool_calls"),
      ...chatEnd,
    ]);
    const client = new OpenAI({ baseURL: `${s.app.url}/v1`, apiKey: s.key.key, maxRetries: 0 });
    const done = await client.chat.completions
      .stream(
        { model: "gpt-test", messages: [{ role: "user", content: "go" }], tools: tools(["Bash"]) },
        { headers: { "x-skillgate-session": session } },
      )
      .finalChatCompletion();
    const calls = done.choices[0]!.message.tool_calls ?? [];
    expect(
      calls.map((t) =>
        t.type === "function" ? [t.id, t.function.name, t.function.arguments] : [],
      ),
    ).toEqual([["c_b", "Bash", '{"command":"ls"}']]);
    const rows = await s.app.api.as(s.key.key).get(`/api/skills/executions?sessionId=${session}`);
    expect(rows.body.total).toBe(1);
    expect(rows.body.data[0].input).toEqual({ city: "Lima" });
  });
});

// --- Responses ------------------------------------------------------------------------------

/** A Responses stream of one function call whose `response.completed` has an empty `output`. */
function responsesEmptyCompleted(n: number, name: string, args: string): Ev[] {
  let seq = 0;
  const e = (type: string, d: Obj): Ev => ({
    event: type,
    data: { type, sequence_number: seq++, ...d },
  });
  const shell = {
    id: `resp_e${n}`,
    object: "response",
    created_at: 1,
    model: "gpt-test",
    status: "in_progress",
    output: [],
  };
  const item = {
    type: "function_call",
    id: `fc_e${n}`,
    call_id: `call_e${n}`,
    name,
    status: "completed",
  };
  return [
    e("response.created", { response: shell }),
    e("response.output_item.added", {
      output_index: 0,
      item: { ...item, arguments: "", status: "in_progress" },
    }),
    e("response.function_call_arguments.delta", {
      output_index: 0,
      item_id: item.id,
      delta: args.slice(0, 5),
    }),
    e("response.function_call_arguments.delta", {
      output_index: 0,
      item_id: item.id,
      delta: args.slice(5),
    }),
    e("response.function_call_arguments.done", {
      output_index: 0,
      item_id: item.id,
      arguments: args,
    }),
    e("response.output_item.done", { output_index: 0, item: { ...item, arguments: args } }),
    e("response.completed", {
      response: {
        ...shell,
        status: "completed",
        output: [],
        usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
      },
    }),
  ];
}

function responsesText(n: number, text: string): Ev[] {
  let seq = 0;
  const e = (type: string, d: Obj): Ev => ({
    event: type,
    data: { type, sequence_number: seq++, ...d },
  });
  const shell = {
    id: `resp_t${n}`,
    object: "response",
    created_at: 1,
    model: "gpt-test",
    status: "in_progress",
    output: [],
  };
  const msg = {
    type: "message",
    id: `msg_t${n}`,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  };
  return [
    e("response.created", { response: shell }),
    e("response.output_item.added", {
      output_index: 0,
      item: { ...msg, content: [], status: "in_progress" },
    }),
    e("response.content_part.added", {
      output_index: 0,
      item_id: msg.id,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    }),
    e("response.output_text.delta", {
      output_index: 0,
      item_id: msg.id,
      content_index: 0,
      delta: text,
      logprobs: [],
    }),
    e("response.output_item.done", { output_index: 0, item: msg }),
    e("response.completed", { response: { ...shell, status: "completed", output: [msg] } }),
  ];
}

describe("Responses events", () => {
  it("an owned call whose response.completed leaves output empty still runs, from the streamed items", async () => {
    s.script((_req, body, n) => {
      const answered =
        Array.isArray(body.input) &&
        (body.input as Obj[]).some((i) => i.type === "function_call_output");
      return {
        kind: "sse",
        events: answered
          ? responsesText(n, "Lima answered")
          : responsesEmptyCompleted(n, WEATHER, '{"city":"Lima"}'),
      };
    });
    const client = new OpenAI({ baseURL: `${s.app.url}/v1`, apiKey: s.key.key, maxRetries: 0 });
    const done = await client.responses
      .stream({ model: "gpt-test", input: "Lima?" })
      .finalResponse();
    expect(done.output_text).toBe("Lima answered");
    const reqs = s.requests();
    expect(reqs).toHaveLength(2);
    const outputs = (reqs[1]!.body.input as Obj[]).filter((i) => i.type === "function_call_output");
    expect(outputs.map((o) => String(o.output).includes(String(tempOf("Lima"))))).toEqual([true]);
  });

  it("a client call whose response.completed leaves output empty reaches the client whole", async () => {
    serve((n) => responsesEmptyCompleted(n, "Bash", '{"command":"ls"}'));
    const client = new OpenAI({ baseURL: `${s.app.url}/v1`, apiKey: s.key.key, maxRetries: 0 });
    const done = await client.responses
      .stream({
        model: "gpt-test",
        input: "files?",
        tools: [{ type: "function", name: "Bash", parameters: params, strict: false }],
      })
      .finalResponse();
    expect(
      done.output.flatMap((o) => (o.type === "function_call" ? [[o.name, o.arguments]] : [])),
    ).toEqual([["Bash", '{"command":"ls"}']]);
  });
});

/** A round with a client custom tool call, then an owned function call (answered next round). */
function customThenOwned(n: number): Ev[] {
  let seq = 0;
  const e = (type: string, d: Obj): Ev => ({
    event: type,
    data: { type, sequence_number: seq++, ...d },
  });
  const shell = {
    id: `resp_c${n}`,
    object: "response",
    created_at: 1,
    model: "gpt-test",
    status: "in_progress",
    output: [],
  };
  const custom = {
    type: "custom_tool_call",
    id: `ctc_${n}`,
    call_id: `call_custom${n}`,
    name: "apply",
    input: "*** patch",
    status: "completed",
  };
  const owned = {
    type: "function_call",
    id: `fc_o${n}`,
    call_id: `call_owned${n}`,
    name: WEATHER,
    arguments: '{"city":"Lima"}',
    status: "completed",
  };
  return [
    e("response.created", { response: shell }),
    e("response.output_item.added", { output_index: 0, item: { ...custom, input: "" } }),
    e("response.custom_tool_call_input.delta", {
      output_index: 0,
      item_id: custom.id,
      delta: custom.input,
    }),
    e("response.custom_tool_call_input.done", {
      output_index: 0,
      item_id: custom.id,
      input: custom.input,
    }),
    e("response.output_item.done", { output_index: 0, item: custom }),
    e("response.output_item.added", { output_index: 1, item: { ...owned, arguments: "" } }),
    e("response.function_call_arguments.delta", {
      output_index: 1,
      item_id: owned.id,
      delta: owned.arguments,
    }),
    e("response.output_item.done", { output_index: 1, item: owned }),
    e("response.completed", {
      response: { ...shell, status: "completed", output: [custom, owned] },
    }),
  ];
}

describe("Responses call positions", () => {
  it("a client custom tool call before an owned function call: the client gets only its own", async () => {
    serve((n) => customThenOwned(n));
    const client = new OpenAI({ baseURL: `${s.app.url}/v1`, apiKey: s.key.key, maxRetries: 0 });
    const done = await client.responses
      .stream({ model: "gpt-test", input: "patch it", tools: [{ type: "custom", name: "apply" }] })
      .finalResponse();
    expect(done.output.map((o) => [o.type, "name" in o ? o.name : ""])).toEqual([
      ["custom_tool_call", "apply"],
    ]);
    expect(s.requests()).toHaveLength(1);
  });
});

// --- Anthropic ------------------------------------------------------------------------------

/** Two client tool_use blocks; the second starts at `secondIndex`. */
function anthropicTwoBlocks(secondIndex: number): Ev[] {
  const e = (type: string, d: Obj): Ev => ({ event: type, data: { type, ...d } });
  const block = (index: number, id: string, name: string, json: string): Ev[] => [
    e("content_block_start", { index, content_block: { type: "tool_use", id, name, input: {} } }),
    e("content_block_delta", {
      index,
      delta: { type: "input_json_delta", partial_json: json.slice(0, 4) },
    }),
    e("content_block_delta", {
      index,
      delta: { type: "input_json_delta", partial_json: json.slice(4) },
    }),
    e("content_block_stop", { index }),
  ];
  return [
    e("message_start", {
      message: {
        id: "msg_d",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 0 },
      },
    }),
    ...block(0, "toolu_x", "x", '{"q":1}'),
    ...block(secondIndex, "toolu_y", "y", '{"r":2}'),
    e("message_delta", {
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 1 },
    }),
    e("message_stop", {}),
  ];
}

async function anthropicCalls(baseURL: string, apiKey: string) {
  const client = new Anthropic({ baseURL, apiKey, maxRetries: 0 });
  const done = await client.messages
    .stream({
      model: "claude-test",
      max_tokens: 64,
      messages: [{ role: "user", content: "go" }],
      tools: ["x", "y"].map((name) => ({ name, input_schema: params })),
    })
    .finalMessage();
  return done.content.flatMap((b) =>
    b.type === "tool_use" ? [{ id: b.id, name: b.name, input: b.input }] : [],
  );
}

describe("Anthropic blocks", () => {
  it("a tool_use block started at an index already used is a new call", async () => {
    serve(() => anthropicTwoBlocks(1));
    const reference = await anthropicCalls(s.llm.url, "sk-direct");
    serve(() => anthropicTwoBlocks(0));
    const proxied = await anthropicCalls(s.app.url, s.key.key);
    expect(reference).toEqual([
      { id: "toolu_x", name: "x", input: { q: 1 } },
      { id: "toolu_y", name: "y", input: { r: 2 } },
    ]);
    expect(proxied).toEqual(reference);
  });
});
