/**
 * Learning from traffic (docs/scoring.md#learning-from-traffic), end to end through the real
 * inject and intercept endpoints: a model's call of an injected skill teaches the `bm25` ranker,
 * so that a later question it could not match by its words offers that skill; what is stored is
 * hashed features only; one key's traffic does not change another key's picks unless the
 * operator shares global learning; learned weights decay; deleting a skill deletes what was
 * learned for it; the off switch records and reads nothing; retention deletes old rows.
 *
 * The registry: `orders_refund` ("Refund an order …") among unrelated skills, one of which
 * (`kitchen_manuals`) mentions blenders. "send back the blender" shares no term with
 * `orders_refund`, so cold it is not offered; questions that say "refund … blender" offer it and
 * the scripted model calls it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { createPrometheusMetrics } from "../../workers/src/metrics/prometheus.js";
import { MCP_LINK } from "../../workers/src/services/tools.js";
import { learningFeatures } from "../../workers/src/skills/learning/features.js";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";
import { signIn } from "../support/dashboard-client.js";
import { callTool, connectMcp } from "../support/mcp.js";
import { parsePrometheus, sampleValue } from "../support/prometheus.js";
import { toolTurn } from "../support/proxy-fixtures.js";

const SKILLS: [string, string][] = [
  ["orders_refund", "Refund an order and print the shipping label"],
  ["kitchen_manuals", "Blender, toaster and oven manuals with recipes"],
  ["weather_now", "Current weather and forecast for a city"],
  ["calendar_add", "Add an event to the calendar"],
  ["translate_text", "Translate text between languages"],
  ["stock_quote", "Latest stock price of a ticker symbol"],
];
const TARGET = "send back the blender";
const TRAINING = [
  "refund the blender",
  "I want a refund for this blender",
  "refund my blender order, it is broken",
];

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Started {
  app: TestApp;
  cache: MemoryCache;
  now: { ms: number };
  keyA: { id: string; key: string };
  keyB: { id: string; key: string };
  ids: Map<string, string>;
}

async function start(env: Record<string, string> = {}): Promise<Started> {
  const now = { ms: Date.parse("2026-06-01T00:00:00Z") };
  const cache = new MemoryCache(() => now.ms);
  const metrics = createPrometheusMetrics({ defaultMetrics: false });
  const app = await startTestApp({ env, deps: { cache, clock: () => now.ms, metrics } });
  t = app;
  const ids = new Map<string, string>();
  for (const [name, description] of SKILLS) {
    const res = await app.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      description,
      mode: "auto",
      schema: { input: { type: "object", properties: {} } },
      handlerCode: "echo-handler",
    });
    expect(res.status).toBe(201);
    ids.set(name, res.body.skill.id);
  }
  const key = async (name: string) => {
    const res = await app.api.post("/api/keys", { name });
    expect(res.status).toBe(201);
    return { id: res.body.apiKey.id as string, key: res.body.key as string };
  };
  return { app, cache, now, keyA: await key("a"), keyB: await key("b"), ids };
}

const chat = (text: string) => ({
  model: "gpt-4.1",
  messages: [{ role: "user", content: text }],
});

async function inject(s: Started, key: string, text: string, sessionId?: string) {
  const res = await s.app.api.as(key).post("/api/skills/inject", {
    format: "openai-chat",
    request: chat(text),
    ...(sessionId ? { sessionId } : {}),
  });
  expect(res.status).toBe(200);
  return res.body as {
    injected: { name: string; toolName: string }[];
    selectionId?: string;
  };
}

const picks = async (s: Started, key: string, text: string) =>
  (await inject(s, key, text)).injected.map((i) => i.name);

/** Injects `text`, and the scripted model calls `orders_refund` (it must be offered). */
async function teach(s: Started, key: string, text: string, via: "selection" | "session") {
  const sessionId = via === "session" ? `conv-${text.length}` : undefined;
  const got = await inject(s, key, text, sessionId);
  const tool = got.injected.find((i) => i.name === "orders_refund");
  expect(tool, `orders_refund offered for "${text}"`).toBeDefined();
  const res = await s.app.api.as(key).post("/api/skills/intercept", {
    format: "openai-chat",
    response: toolTurn("openai-chat", [{ id: "call_1", name: tool!.toolName, args: {} }], 1),
    ...(via === "selection" ? { selectionId: got.selectionId } : { sessionId }),
  });
  expect(res.status).toBe(200);
  expect(res.body.toolResults[0].status).toBe("success");
}

async function train(s: Started, key: string) {
  for (const [i, text] of TRAINING.entries()) {
    await teach(s, key, text, i === 0 ? "session" : "selection");
  }
}

const learnedRows = async (s: Started, skillId?: string) =>
  Number(
    (
      await s.app.client.execute({
        sql: `SELECT count(*) AS n FROM skill_learning${skillId ? " WHERE skill_id = ?" : ""}`,
        args: skillId ? [skillId] : [],
      })
    ).rows[0]!.n,
  );

describe("learning from traffic", () => {
  it("a called skill is offered first for a later question it could not match by its words", async () => {
    const s = await start();
    expect(await picks(s, s.keyA.key, TARGET)).not.toContain("orders_refund");
    await train(s, s.keyA.key);
    expect((await picks(s, s.keyA.key, TARGET))[0]).toBe("orders_refund");
    // An unrelated question is not changed by it.
    expect(await picks(s, s.keyA.key, "what is the weather in Paris")).not.toContain(
      "orders_refund",
    );
  });

  it("skill_search finds what the key's own traffic taught for the query's words, and only for that key", async () => {
    const s = await start();
    /** The names a `skill_search` for `query` returns to `key`'s model (through intercept). */
    const searched = async (key: string, query: string, sessionId: string) => {
      const res = await s.app.api.as(key).post("/api/skills/intercept", {
        format: "openai-chat",
        response: toolTurn(
          "openai-chat",
          [{ id: "call_s", name: "skill_search", args: { query } }],
          1,
        ),
        sessionId,
      });
      expect(res.status).toBe(200);
      const message = res.body.messages[0] as { role: string; content: string };
      expect(message.role).toBe("tool");
      return (JSON.parse(message.content).skills as { name: string }[]).map((f) => f.name);
    };
    // "send back the blender" shares no word with orders_refund: a cold search does not find it.
    expect(await searched(s.keyA.key, TARGET, "cold")).not.toContain("orders_refund");
    await train(s, s.keyA.key);
    expect((await searched(s.keyA.key, TARGET, "taught"))[0]).toBe("orders_refund");
    expect(await searched(s.keyB.key, TARGET, "other-key")).not.toContain("orders_refund");
  });

  it("stores hashed features only: no word of the conversation is in the database or the cache", async () => {
    const s = await start();
    const words = ["zanzibar", "grandmother", "grandmoth"];
    await teach(
      s,
      s.keyA.key,
      "my grandmother in Zanzibar wants a refund for the blender",
      "session",
    );
    await teach(s, s.keyA.key, "refund the Zanzibar blender for grandmother", "selection");
    expect(await learnedRows(s)).toBeGreaterThan(0);
    const tables = (
      await s.app.client.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    ).rows.map((r) => String(r.name));
    let dump = "";
    for (const table of tables) {
      const rows = (await s.app.client.execute(`SELECT * FROM "${table}"`)).rows;
      dump += JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? String(v) : v));
    }
    const cached = (s.cache as unknown as { entries: Map<string, unknown> }).entries;
    expect(cached.size).toBeGreaterThan(0);
    dump += JSON.stringify([...cached]);
    expect(dump.toLowerCase()).toContain("orders_refund");
    for (const w of words) expect(dump.toLowerCase()).not.toContain(w);
  });

  it("one key's traffic does not change another key's picks unless global learning is shared", async () => {
    const s = await start();
    const before = await picks(s, s.keyB.key, TARGET);
    await train(s, s.keyA.key);
    expect((await picks(s, s.keyA.key, TARGET))[0]).toBe("orders_refund");
    expect(await picks(s, s.keyB.key, TARGET)).toEqual(before);
    await s.app.close();

    const shared = await start({ SELECTION_LEARNING_SHARE_GLOBAL: "true" });
    expect(await picks(shared, shared.keyB.key, TARGET)).not.toContain("orders_refund");
    await train(shared, shared.keyA.key);
    expect((await picks(shared, shared.keyB.key, TARGET))[0]).toBe("orders_refund");
  });

  it("learned weights decay: after many half-lives the old habit is gone", async () => {
    const s = await start({ SELECTION_LEARNING_HALF_LIFE_DAYS: "1" });
    await train(s, s.keyA.key);
    expect((await picks(s, s.keyA.key, TARGET))[0]).toBe("orders_refund");
    s.now.ms += 3 * 86_400_000;
    expect(await picks(s, s.keyA.key, TARGET)).not.toContain("orders_refund");
  });

  it("deleting a skill deletes what was learned for it", async () => {
    const s = await start();
    await train(s, s.keyA.key);
    const id = s.ids.get("orders_refund")!;
    expect(await learnedRows(s, id)).toBeGreaterThan(0);
    expect((await s.app.api.delete(`/api/skills/${id}`)).status).toBe(204);
    expect(await learnedRows(s, id)).toBe(0);
  });

  it("switched off, nothing is linked, recorded or read", async () => {
    const s = await start({ SELECTION_LEARNING: "false" });
    const got = await inject(s, s.keyA.key, TRAINING[0]!);
    expect(got.selectionId).toBeUndefined();
    for (const text of TRAINING) await teach(s, s.keyA.key, text, "session");
    expect(await learnedRows(s)).toBe(0);
    expect(await picks(s, s.keyA.key, TARGET)).not.toContain("orders_refund");
  });

  it("retention deletes what was last learned before the executions' cut-off", async () => {
    const s = await start();
    await train(s, s.keyA.key);
    const rows = await learnedRows(s);
    expect(rows).toBeGreaterThan(0);
    expect(await s.app.services.learning.applyRetention(30, s.now.ms + 29 * 86_400_000)).toBe(0);
    expect(await s.app.services.learning.applyRetention(30, s.now.ms + 31 * 86_400_000)).toBe(rows);
    expect(await learnedRows(s)).toBe(0);
  });

  it("counts per skill: injected, called when injected, found only by search, and the ranker, on /metrics and the dashboard", async () => {
    const s = await start();
    await train(s, s.keyA.key);
    const weather = await s.app.services.skills.byId(s.ids.get("weather_now")!);
    const got = await inject(s, s.keyA.key, TARGET);
    await s.app.services.tools.feedback.noteSearchFound(
      s.keyA.id,
      { ids: [got.selectionId!] },
      [],
      [weather!],
    );

    const res = await fetch(`${s.app.url}/metrics`, {
      headers: { authorization: `Bearer ${MGMT_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const samples = parsePrometheus(await res.text());
    const skill = { skill: "orders_refund" };
    expect(sampleValue(samples, "skillgate_selection_injected_total", skill)).toBe(4);
    expect(sampleValue(samples, "skillgate_selection_called_total", skill)).toBe(3);
    expect(
      sampleValue(samples, "skillgate_selection_search_found_total", { skill: "weather_now" }),
    ).toBe(1);
    expect(sampleValue(samples, "skillgate_selection_ranker", { ranker: "bm25" })).toBe(1);

    const dash = await signIn(s.app, MGMT_TOKEN);
    const page = await dash.get("/dashboard/selection");
    expect(page.status).toBe(200);
    const row = page.html.match(
      /<tr><td><code>orders_refund@1\.0\.0<\/code><\/td>(.*?)<\/tr>/,
    )?.[1];
    expect(row).toBe("<td>4</td><td>3</td><td>75.0 %</td><td>0</td>");
    expect(page.html).toContain("<code>bm25</code>");
    const keyDash = await signIn(s.app, s.keyA.key);
    expect((await keyDash.get("/dashboard/selection")).status).toBe(403);
  });

  it("over MCP, a call of a skill the key's latest search found teaches selection", async () => {
    const s = await start();
    const refund = await s.app.services.skills.byId(s.ids.get("orders_refund")!);
    expect(await picks(s, s.keyA.key, TARGET)).not.toContain("orders_refund");
    const client = await connectMcp(s.app.url, s.keyA.key);
    try {
      const toolName = (await inject(s, s.keyA.key, "refund the order")).injected.find(
        (i) => i.name === "orders_refund",
      )!.toolName;
      for (let i = 0; i < 3; i++) {
        await s.app.services.tools.feedback.noteSearchFound(
          s.keyA.id,
          { ids: [MCP_LINK] },
          learningFeatures(TARGET),
          [refund!],
        );
        const result = await callTool(client, toolName, {});
        expect(result.isError ?? false).toBe(false);
      }
    } finally {
      await client.close();
    }
    expect(await learnedRows(s, s.ids.get("orders_refund")!)).toBeGreaterThan(0);
    expect((await picks(s, s.keyA.key, TARGET))[0]).toBe("orders_refund");
  });
});
