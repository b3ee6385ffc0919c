/**
 * Token accounting of the gateway proxy (docs/limits.md#token-budgets): usage summed over every
 * round of a proxied request is recorded per key and UTC day (tokens, requests, rounds, owned
 * calls) and shown by `GET /api/keys/{id}/token-usage`; a key's daily token budget refuses its next
 * request with 429 `token_budget_exceeded` in the provider's error shape, through the official
 * OpenAI SDK and on the Anthropic path.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrometheusMetrics } from "../../workers/src/metrics/prometheus.js";
import { MGMT_TOKEN, startTestApp } from "../support/app.js";
import { signIn } from "../support/dashboard-client.js";
import { parsePrometheus, sampleValue } from "../support/prometheus.js";
import { ask, askStream } from "../support/proxy-clients.js";
import {
  FORMATS,
  type Format,
  formatOf,
  textTurn,
  toolResults,
  toolTurn,
} from "../support/proxy-fixtures.js";
import { sseOf } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand, WEATHER } from "../support/proxy-stand.js";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand();
});
afterAll(() => s.close());

/** Every turn of the fixtures reports 10 input and 5 output tokens: a two-round request is 30. */
const twoRounds = () =>
  s.script((_req, body, n) =>
    toolResults("openai-chat", body).length === 0
      ? {
          kind: "json",
          body: toolTurn("openai-chat", [{ id: "c1", name: WEATHER, args: { city: "Oslo" } }], n),
        }
      : { kind: "json", body: textTurn("openai-chat", "sunny", n) },
  );

const usage = async () => {
  const res = await s.app.api.get(`/api/keys/${s.key.id}/token-usage?days=2`);
  expect(res.status).toBe(200);
  return res.body.tokenUsage;
};

/** Waits until the key's requests today reach `n` (the write joins the next batch). */
async function recorded(n: number) {
  for (let i = 0; i < 200; i++) {
    const u = await usage();
    if (u.today.requests >= n) return u;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`usage of ${n} requests never recorded`);
}

describe("token accounting", () => {
  it.each(FORMATS)(
    "records a streamed two-round %s request with its owned call",
    async (format: Format) => {
      await s.app.api.put(`/api/keys/${s.key.id}/token-budget`, { dailyTokens: null });
      const before = (await usage()).today;
      s.script((req, body, n) => {
        const f = formatOf(req.url.split("?")[0]!);
        const turn =
          toolResults(f, body).length === 0
            ? toolTurn(f, [{ id: "c1", name: WEATHER, args: { city: "Oslo" } }], n)
            : textTurn(f, "sunny", n);
        return { kind: "sse", events: sseOf(f, turn) };
      });
      const answer = await askStream(format, s.app.url, s.key.key, "Weather in Oslo?");
      expect(answer.text).toBe("sunny");
      const u = await recorded(before.requests + 1);
      expect(u.today.rounds - before.rounds).toBe(2);
      expect(u.today.ownedCalls - before.ownedCalls).toBe(1);
      expect(u.today.inputTokens).toBeGreaterThan(before.inputTokens);
      expect(u.today.outputTokens).toBeGreaterThan(before.outputTokens);
    },
  );

  it("records a two-round request with one owned call as its summed usage, per key and day", async () => {
    await s.app.api.put(`/api/keys/${s.key.id}/token-budget`, { dailyTokens: null });
    const before = (await usage()).today;
    twoRounds();
    const answer = await ask("openai-chat", s.app.url, s.key.key, "Weather in Oslo?");
    expect(answer.text).toBe("sunny");
    const u = await recorded(before.requests + 1);
    expect(u.today).toEqual({
      day: new Date().toISOString().slice(0, 10),
      inputTokens: before.inputTokens + 20,
      outputTokens: before.outputTokens + 10,
      requests: before.requests + 1,
      rounds: before.rounds + 2,
      ownedCalls: before.ownedCalls + 1,
    });
    expect(u.dailyTokenBudget).toBeNull();
    const row = await s.app.client.execute({
      sql: "select input_tokens, output_tokens, rounds, owned_calls from api_key_token_usage where api_key_id = ?",
      args: [s.key.id],
    });
    expect(Number(row.rows[0]?.input_tokens)).toBe(u.today.inputTokens);
  });

  it("refuses a key over its daily token budget with 429 in the provider's shape, until the budget is raised", async () => {
    const start = (await usage()).today;
    const used = start.inputTokens + start.outputTokens;
    const put = await s.app.api.put(`/api/keys/${s.key.id}/token-budget`, {
      dailyTokens: used + 30,
    });
    expect(put.status).toBe(200);
    expect(put.body.tokenUsage.dailyTokenBudget).toBe(used + 30);
    twoRounds();
    // Under the budget: answered, and its 30 tokens reach it exactly.
    expect((await ask("openai-chat", s.app.url, s.key.key, "Weather?")).text).toBe("sunny");
    await recorded(start.requests + 1);
    const upstreamCalls = s.requests().length;

    const client = new OpenAI({ apiKey: s.key.key, baseURL: `${s.app.url}/v1`, maxRetries: 0 });
    const refused = await client.chat.completions
      .create({ model: "gpt-test", messages: [{ role: "user", content: "again" }] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    const err = refused as InstanceType<typeof OpenAI.RateLimitError>;
    expect(err.status).toBe(429);
    expect(err.code).toBe("token_budget_exceeded");
    expect(err.message).toContain(
      `Daily token budget reached for this API key: ${used + 30} tokens`,
    );
    expect(Number(err.headers?.get("retry-after"))).toBeGreaterThan(0);

    const anthropic = await fetch(`${s.app.url}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": s.key.key,
        "anthropic-version": "2023-06-01",
      },
      body: JSON.stringify({
        model: "claude-test",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    expect(anthropic.status).toBe(429);
    const body = (await anthropic.json()) as { type: string; error: { type: string } };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("rate_limit_error");
    // Nothing went upstream for the refused requests.
    expect(s.requests().length).toBe(upstreamCalls);

    const cleared = await s.app.api.put(`/api/keys/${s.key.id}/token-budget`, {
      dailyTokens: null,
    });
    expect(cleared.body.tokenUsage.dailyTokenBudget).toBeNull();
    twoRounds();
    expect((await ask("openai-chat", s.app.url, s.key.key, "Weather?")).text).toBe("sunny");
  });

  it("rejects a budget that is not a non-negative integer or null, changing nothing", async () => {
    const before = (await usage()).dailyTokenBudget;
    for (const dailyTokens of [-1, 1.5, "100"]) {
      const res = await s.app.api.put(`/api/keys/${s.key.id}/token-budget`, { dailyTokens });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_input");
    }
    expect((await usage()).dailyTokenBudget).toBe(before);
    const unknown = await s.app.api.get("/api/keys/no-such-key/token-usage");
    expect(unknown.status).toBe(404);
  });
});

describe("token accounting in /metrics", () => {
  it("a proxied request's tokens, rounds and owned calls reach the Prometheus counters by format", async () => {
    const prometheus = createPrometheusMetrics({ defaultMetrics: false });
    const stand = await startTestApp({ deps: { metrics: prometheus } });
    try {
      const key = await stand.api.post("/api/keys", { name: "metrics-tokens" });
      stand.services.tokenUsage.record(
        key.body.apiKey.id,
        "anthropic",
        { input_tokens: 7, cache_read_input_tokens: 3, output_tokens: 4 },
        2,
        1,
      );
      await stand.services.tokenUsage.settled();
      const res = await fetch(`${stand.url}/metrics`, {
        headers: { authorization: `Bearer ${stand.api.token}` },
      });
      expect(res.status).toBe(200);
      const samples = parsePrometheus(await res.text());
      const at = (name: string, labels: Record<string, string>) =>
        sampleValue(samples, name, labels);
      expect(at("skillgate_proxy_tokens_total", { format: "anthropic", direction: "input" })).toBe(
        10,
      );
      expect(at("skillgate_proxy_tokens_total", { format: "anthropic", direction: "output" })).toBe(
        4,
      );
      expect(at("skillgate_proxy_rounds_total", { format: "anthropic" })).toBe(2);
      expect(at("skillgate_proxy_owned_calls_total", { format: "anthropic" })).toBe(1);
      const day = await stand.api.get(`/api/keys/${key.body.apiKey.id}/token-usage`);
      expect(day.body.tokenUsage.today).toMatchObject({ inputTokens: 10, outputTokens: 4 });
    } finally {
      await stand.close();
    }
  });
});

describe("token accounting on the dashboard", () => {
  it("the key's page shows its tokens today and its budget", async () => {
    const stand = await startTestApp();
    try {
      const key = await stand.api.post("/api/keys", { name: "dashboard-tokens" });
      const id = key.body.apiKey.id as string;
      stand.services.tokenUsage.record(
        id,
        "openai-chat",
        { prompt_tokens: 12, completion_tokens: 8 },
        3,
        2,
      );
      await stand.services.tokenUsage.settled();
      await stand.api.put(`/api/keys/${id}/token-budget`, { dailyTokens: 5000 });
      const dash = await signIn(stand, MGMT_TOKEN);
      const page = await dash.get(`/dashboard/keys/${id}`);
      expect(page.status).toBe(200);
      const value = (name: string) =>
        page.html
          .match(new RegExp(`<tr data-tokens="${name}">([\\s\\S]*?)</tr>`))?.[1]
          ?.match(/data-field="value"[^>]*>([^<]*)</)?.[1];
      expect(value("inputTokens")).toBe("12");
      expect(value("outputTokens")).toBe("8");
      expect(value("requests")).toBe("1");
      expect(value("rounds")).toBe("3");
      expect(value("ownedCalls")).toBe("2");
      expect(value("dailyTokenBudget")).toBe("5000");
    } finally {
      await stand.close();
    }
  });
});
