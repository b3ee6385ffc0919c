/**
 * Anthropic's own tool search passes through Skillgate unharmed (docs/proxy.md#provider-tool-search):
 * a request carrying the tool search tool (`tool_search_tool_regex_20251119`) and a client tool
 * with `defer_loading: true` reaches the upstream with both as sent; an answer with
 * `server_tool_use`, `tool_search_tool_result` (its `tool_reference` blocks) and a client
 * `tool_use` reaches the official Anthropic SDK as sent, JSON and streamed, while Skillgate's own
 * call of the same turn runs; the next turn's history (the client's replay with its own result)
 * reaches the upstream with the search blocks in place and the owned call and its result restored;
 * and the interception door hands the server-tool blocks back untouched, running only the owned call.
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sseOf } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand, tempOf, WEATHER } from "../support/proxy-stand.js";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand();
});
afterAll(() => s.close());

const SEARCH = {
  type: "server_tool_use",
  id: "srvtoolu_1",
  name: "tool_search_tool_regex",
  input: { query: "calendar" },
};
const FOUND = {
  type: "tool_search_tool_result",
  tool_use_id: "srvtoolu_1",
  content: {
    type: "tool_search_tool_search_result",
    tool_references: [{ type: "tool_reference", tool_name: "addEvent" }],
  },
};
const CLIENT_CALL = {
  type: "tool_use",
  id: "toolu_client",
  name: "addEvent",
  input: { title: "Lunch" },
};
const OWNED_CALL = { type: "tool_use", id: "toolu_own", name: WEATHER, input: { city: "Paris" } };

const turn = (n: number, content: unknown[], stop = "tool_use") => ({
  id: `msg_${n}`,
  type: "message",
  role: "assistant",
  model: "claude-test",
  content,
  stop_reason: stop,
  stop_sequence: null,
  usage: { input_tokens: 5, output_tokens: 5 },
});

const TOOLS = [
  { type: "tool_search_tool_regex_20251119" as const, name: "tool_search_tool_regex" as const },
  {
    name: "addEvent",
    description: "Adds a calendar event",
    input_schema: { type: "object" as const, properties: { title: { type: "string" } } },
    defer_loading: true,
  },
];

const QUESTION = {
  role: "user" as const,
  content: "Add lunch to my calendar and tell me the weather in Paris",
};

describe.each([false, true])("stream: %s", (stream) => {
  it("passes the search tool, deferred tools and search blocks through both turns; the owned call runs", async () => {
    s.script((_req, body, n) => {
      const messages = body.messages as unknown[];
      const answer =
        messages.length === 1
          ? turn(n, [SEARCH, FOUND, CLIENT_CALL, OWNED_CALL])
          : turn(n, [{ type: "text", text: "Added, and it is mild." }], "end_turn");
      return body.stream === true
        ? { kind: "sse", events: sseOf("anthropic", answer as never) }
        : { kind: "json", body: answer };
    });
    const c = new Anthropic({ baseURL: s.app.url, apiKey: s.key.key, maxRetries: 0 });
    const headers = { "x-skillgate-session": `tool-search-${stream}` };
    const params = { model: "claude-test", max_tokens: 200, messages: [QUESTION], tools: TOOLS };
    const first = stream
      ? await c.messages.stream(params, { headers }).finalMessage()
      : await c.messages.create(params, { headers });
    // The request reached the upstream with the client's tools as sent, Skillgate's beside them.
    const sent = s.requests()[0]!.body as { tools: Record<string, unknown>[] };
    expect(sent.tools.slice(0, 2)).toEqual(TOOLS);
    expect(sent.tools.map((t) => t.name)).toContain(WEATHER);
    // The client sees the search blocks and its own call; Skillgate's call is not handed over.
    const blocks = first.content.map(
      (b) => JSON.parse(JSON.stringify(b)) as Record<string, unknown>,
    );
    expect(blocks.map((b) => b.type)).toEqual([
      "server_tool_use",
      "tool_search_tool_result",
      "tool_use",
    ]);
    expect(blocks[0]).toMatchObject(SEARCH);
    expect(blocks[1]).toEqual(FOUND);
    expect(blocks[2]).toMatchObject(CLIENT_CALL);

    // The client answers its own call; the history goes back with the search blocks.
    const second = await c.messages.create(
      {
        ...params,
        messages: [
          QUESTION,
          { role: "assistant", content: first.content as Anthropic.ContentBlockParam[] },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "toolu_client", content: "added" }],
          },
        ],
      },
      { headers },
    );
    expect(second.content).toEqual([{ type: "text", text: "Added, and it is mild." }]);
    const replay = s.requests().at(-1)!.body as {
      messages: { role: string; content: Record<string, unknown>[] }[];
    };
    const [assistant, results] = replay.messages.slice(1);
    expect(assistant!.content.map((b) => b.type)).toEqual([
      "server_tool_use",
      "tool_search_tool_result",
      "tool_use",
      "tool_use",
    ]);
    expect(assistant!.content[1]).toEqual(FOUND);
    expect(assistant!.content[3]).toMatchObject({ id: "toolu_own", name: WEATHER });
    const byId = Object.fromEntries(results!.content.map((b) => [b.tool_use_id, b]));
    expect(Object.keys(byId).sort()).toEqual(["toolu_client", "toolu_own"]);
    expect(JSON.stringify(byId.toolu_own)).toContain(`${tempOf("Paris")}`);
  });
});

it("interception returns the server-tool blocks untouched and runs only the owned call", async () => {
  const res = await s.app.api.as(s.key.key).post("/api/skills/intercept", {
    format: "anthropic",
    response: turn(1, [SEARCH, FOUND, CLIENT_CALL, OWNED_CALL]),
  });
  expect(res.status).toBe(200);
  expect(res.body.toolResults).toHaveLength(1);
  expect(JSON.stringify(res.body.toolResults[0])).toContain("toolu_own");
  expect(res.body.passThrough).toEqual(["toolu_client"]);
  // The answer keeps the server tool's blocks as the upstream sent them.
  expect(res.body.response.content.slice(0, 2)).toEqual([SEARCH, FOUND]);
});
