/**
 * Anthropic's own tool search over Skillgate's skills (docs/proxy.md#anthropic-tool-search),
 * through the official Anthropic SDK, JSON and streamed: with `x-skillgate-anthropic-tool-search`
 * (or the `PROXY_ANTHROPIC_TOOL_SEARCH` setting) the caller's AUTO skills that injection did not
 * pick reach the upstream with `defer_loading: true` beside Anthropic's tool search tool (added
 * once, unless the client sent one), `skill_search` is not offered, a scripted Claude that
 * searches natively and calls a deferred skill gets it run (an execution row), and the client
 * receives the final answer. The setting's bound caps the deferred tools; a bad header value is a
 * 400 in Anthropic's error shape; `off` turns a configured setting off for one request.
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Script } from "../support/fakes/llm-script.js";
import { sseOf } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand } from "../support/proxy-stand.js";

const RATES = "exchangeRates_v1_0_0";
const HEADER = "x-skillgate-anthropic-tool-search";
/** Shares no word with any skill: the ranker picks none, so every AUTO skill is deferred. */
const QUESTION = "convert twenty euros into dollars please";

type Tool = Record<string, unknown>;

/** AUTO skills of the stand besides the stand's own (always offered) ones. */
const AUTO_SKILLS: [string, string][] = [
  ["exchangeRates", "Currency exchange rate between two currencies"],
  ["calendarAdd", "Add an event to the calendar"],
  ["translateText", "Translate text between languages"],
  ["stockQuote", "Latest stock price of a ticker symbol"],
];

async function stand(env: Record<string, string>): Promise<ProxyStand> {
  const s = await startProxyStand({ SELECTION_LEARNING: "false", ...env });
  s.app.services.executor.registerHandler("rates-handler", async (input) => ({
    currency: (input as { currency?: unknown }).currency,
    rate: 1.25,
  }));
  for (const [name, description] of AUTO_SKILLS) {
    const res = await s.app.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      description,
      mode: "auto",
      schema: { input: { currency: { type: "string" } } },
      handlerCode: "rates-handler",
      apiKeyId: s.key.id,
    });
    expect(res.status).toBe(201);
  }
  // Never deferred: another key's skill, and a `manual` one (the model cannot call it).
  const other = await s.app.api.createKey("other");
  for (const extra of [
    { name: "otherKeys", apiKeyId: other.id },
    { name: "manualOnly", apiKeyId: s.key.id, policy: "manual" },
  ]) {
    const res = await s.app.api.post("/api/skills/install", {
      version: "1.0.0",
      description: "Currency exchange rate between two currencies",
      mode: "auto",
      schema: { input: { currency: { type: "string" } } },
      handlerCode: "rates-handler",
      ...extra,
    });
    expect(res.status).toBe(201);
  }
  return s;
}

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

/**
 * Claude with native tool search: round 1 searches (server-side blocks) and calls the rates
 * tool when it was deferred to it; round 2 answers with the tool's result.
 */
const nativeClaude =
  (variant: string): Script =>
  (_req, body, n) => {
    const messages = body.messages as { content: unknown }[];
    const tools = (body.tools ?? []) as Tool[];
    const deferred = tools.some((t) => t.name === RATES && t.defer_loading === true);
    const answer =
      messages.length === 1 && deferred
        ? turn(n, [
            {
              type: "server_tool_use",
              id: "srvtoolu_1",
              name: `tool_search_tool_${variant}`,
              input: { query: "currency" },
            },
            {
              type: "tool_search_tool_result",
              tool_use_id: "srvtoolu_1",
              content: {
                type: "tool_search_tool_search_result",
                tool_references: [{ type: "tool_reference", tool_name: RATES }],
              },
            },
            { type: "tool_use", id: "toolu_rates", name: RATES, input: { currency: "EUR" } },
          ])
        : turn(
            n,
            [
              {
                type: "text",
                text: JSON.stringify(messages.at(-1)?.content).includes("1.25")
                  ? "1.25 it is"
                  : "no rate",
              },
            ],
            "end_turn",
          );
    return body.stream === true
      ? { kind: "sse", events: sseOf("anthropic", answer as never) }
      : { kind: "json", body: answer };
  };

const client = (s: ProxyStand) =>
  new Anthropic({ baseURL: s.app.url, apiKey: s.key.key, maxRetries: 0 });

async function askClaude(
  s: ProxyStand,
  stream: boolean,
  headers: Record<string, string>,
  tools?: Anthropic.ToolUnion[],
): Promise<string> {
  const params = {
    model: "claude-test",
    max_tokens: 200,
    messages: [{ role: "user" as const, content: QUESTION }],
    ...(tools ? { tools } : {}),
  };
  const c = client(s);
  const message = stream
    ? await c.messages.stream(params, { headers }).finalMessage()
    : await c.messages.create(params, { headers });
  // The deferred call is Skillgate's: the client never gets a `tool_use` block to answer.
  expect(message.content.map((b) => b.type)).not.toContain("tool_use");
  return message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

const sentTools = (s: ProxyStand, i = 0) => (s.requests()[i]!.body.tools ?? []) as Tool[];

describe("per request header", () => {
  let s: ProxyStand;
  beforeAll(async () => {
    s = await stand({});
  });
  afterAll(() => s.close());

  it.each([false, true])(
    "stream %s: defers the skills to Claude's search and runs the deferred call it makes",
    async (stream) => {
      const session = `deferred-${stream}`;
      s.script(nativeClaude("bm25"));
      const text = await askClaude(s, stream, { [HEADER]: "bm25", "x-skillgate-session": session });
      expect(text).toBe("1.25 it is");
      const tools = sentTools(s);
      const searchTools = tools.filter((t) => String(t.type ?? "").startsWith("tool_search_tool_"));
      expect(searchTools).toEqual([
        { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
      ]);
      const deferred = tools.filter((t) => t.defer_loading === true).map((t) => t.name);
      // Every AUTO skill the caller sees (the builtins too), none twice.
      for (const name of ["calendarAdd_v1_0_0", RATES, "stockQuote_v1_0_0", "translateText_v1_0_0"])
        expect(deferred).toContain(name);
      expect(new Set(deferred).size).toBe(deferred.length);
      expect(tools.map((t) => t.name)).not.toContain("otherKeys_v1_0_0");
      expect(tools.map((t) => t.name)).not.toContain("manualOnly_v1_0_0");
      const rates = tools.find((t) => t.name === RATES)!;
      expect(rates.input_schema).toMatchObject({ properties: { currency: { type: "string" } } });
      // The stand's always-offered skills stay loaded; Skillgate's own search is not offered.
      expect(tools.find((t) => t.name === "lookupWeather_v1_0_0")?.defer_loading).toBeUndefined();
      expect(tools.map((t) => t.name)).not.toContain("skill_search");
      // The deferred call ran once, server-side, and its result went back upstream.
      expect(s.requests()).toHaveLength(2);
      const rows = await s.app.api.as(s.key.key).get(`/api/skills/executions?sessionId=${session}`);
      expect(rows.body.total).toBe(1);
      expect(rows.body.data[0].status).toBe("success");
      expect(JSON.stringify(rows.body.data[0])).toContain("exchangeRates");
    },
  );

  it("keeps the client's own tool search tool and adds none", async () => {
    s.script(nativeClaude("regex"));
    const own = {
      type: "tool_search_tool_regex_20251119",
      name: "tool_search_tool_regex",
    } as const;
    const text = await askClaude(s, false, { [HEADER]: "bm25" }, [own]);
    expect(text).toBe("1.25 it is");
    const searchTools = sentTools(s).filter((t) =>
      String(t.type ?? "").startsWith("tool_search_tool_"),
    );
    expect(searchTools).toEqual([own]);
  });

  it("without the header nothing is deferred", async () => {
    s.script(nativeClaude("bm25"));
    expect(await askClaude(s, false, {})).toBe("no rate");
    const tools = sentTools(s);
    expect(tools.filter((t) => t.defer_loading === true)).toEqual([]);
    expect(tools.filter((t) => "type" in t)).toEqual([]);
  });

  it("an unknown value is a 400 in Anthropic's error shape and reaches no upstream", async () => {
    s.script(nativeClaude("bm25"));
    const err = await askClaude(s, false, { [HEADER]: "semantic" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.BadRequestError>).message).toContain(HEADER);
    expect(s.requests()).toHaveLength(0);
  });
});

describe("the setting and its bound", () => {
  let s: ProxyStand;
  beforeAll(async () => {
    s = await stand({
      PROXY_ANTHROPIC_TOOL_SEARCH: "regex",
      PROXY_ANTHROPIC_DEFERRED_MAX_TOOLS: "2",
    });
  });
  afterAll(() => s.close());

  it("defers at most the bound's number of skills, with the configured variant", async () => {
    s.script(nativeClaude("regex"));
    await askClaude(s, true, {});
    const tools = sentTools(s);
    expect(tools.filter((t) => t.defer_loading === true)).toHaveLength(2);
    expect(tools.filter((t) => "type" in t)).toEqual([
      { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" },
    ]);
  });

  it("a request's `off` turns it off", async () => {
    s.script(nativeClaude("regex"));
    await askClaude(s, false, { [HEADER]: "off" });
    expect(sentTools(s).filter((t) => t.defer_loading === true || "type" in t)).toEqual([]);
  });
});
