/**
 * The gateway proxy's tool loop under a key's execution limits (docs/rate-limits.md): an owned
 * call over the limit goes back to the model as a tool error, and the conversation goes on to
 * the model's final answer, through the official OpenAI SDK.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { ask } from "../support/proxy-clients.js";
import { textTurn, toolResults, toolTurn } from "../support/proxy-fixtures.js";
import { type ProxyStand, startProxyStand, WEATHER } from "../support/proxy-stand.js";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand();
});
afterAll(() => s.close());

it("hands the model a tool error for calls over the key's limit and answers with its final text", async () => {
  const put = await s.app.api.put(`/api/keys/${s.key.id}/limits`, { executionsPerMinute: 0 });
  expect(put.status).toBe(200);
  s.script((_req, body, n) => {
    const done = toolResults("openai-chat", body);
    if (done.length === 0) {
      return {
        kind: "json",
        body: toolTurn(
          "openai-chat",
          [
            { id: "c1", name: WEATHER, args: { city: "Paris" } },
            { id: "c2", name: WEATHER, args: { city: "Rome" } },
          ],
          n,
        ),
      };
    }
    return { kind: "json", body: textTurn("openai-chat", `got ${done.length} results`, n) };
  });
  const answer = await ask("openai-chat", s.app.url, s.key.key, "Weather in Paris and Rome?");
  expect(answer.text).toBe("got 2 results");
  const followUp = s.requests()[1]!.body;
  const results = toolResults("openai-chat", followUp);
  expect(results.map((r) => r.id)).toEqual(["c1", "c2"]);
  for (const r of results) {
    expect(JSON.parse(r.text)).toEqual({
      status: "error",
      error: "This API key may not start executions (executionsPerMinute is 0)",
    });
  }
  // Nothing ran, so nothing was recorded.
  expect((await s.app.api.as(s.key.key).get("/api/skills/executions")).body.total).toBe(0);
});
