/**
 * Choosing a ranker (docs/scoring.md#choosing-a-ranker): the `ranker` setting, a key's own
 * ranker, an inject call's `ranker` and the proxy's `x-skillgate-ranker` header, in that order of
 * precedence from last to first; `injected[].ranker` names the ranker of each score; a name that
 * is not a ranker answers 400 and changes nothing.
 *
 * The registry holds a skill named `web`, which the keyword table injects for "browse the website"
 * (the name is a substring of "website", +6) and the bm25 ranker does not (`website` is another
 * term than `web`), so the two rankers are told apart by what reaches the model.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declaredTools, textTurn } from "../support/proxy-fixtures.js";
import { type ProxyStand, startProxyStand } from "../support/proxy-stand.js";

let stand: ProxyStand;
const TEXT = "Browse the website and summarise it";

beforeAll(async () => {
  stand = await startProxyStand();
  const res = await stand.app.api.post("/api/skills/install", {
    name: "web",
    version: "1.0.0",
    description: "Fetch a page by URL",
    mode: "auto",
    schema: { input: { url: { type: "string", required: true } } },
    handlerCode: "echo-handler",
    apiKeyId: stand.key.id,
  });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await stand?.close();
});

const inject = (body: Record<string, unknown> = {}) =>
  stand.app.api.as(stand.key.key).post("/api/skills/inject", {
    format: "openai-chat",
    request: { model: "gpt-4.1", messages: [{ role: "user", content: TEXT }] },
    ...body,
  });
const webOf = (res: { body: { injected: { name: string; ranker: string; score: number }[] } }) =>
  res.body.injected.find((i) => i.name === "web");

async function setSetting(ranker: string) {
  const res = await stand.app.api.put("/api/settings", { ranker });
  expect(res.status).toBe(200);
  expect(res.body.settings.ranker).toBe(ranker);
}
async function setKey(ranker: string | null) {
  const res = await stand.app.api.put(`/api/keys/${stand.key.id}/ranker`, { ranker });
  expect(res.status).toBe(200);
  expect(res.body.apiKey.ranker).toBe(ranker);
}

describe("choosing a ranker", () => {
  it("setting, then key, then request: the most specific choice wins", async () => {
    await setKey(null);
    await setSetting("bm25");
    expect(webOf(await inject())).toBeUndefined();

    await setSetting("keyword");
    expect(webOf(await inject())).toMatchObject({ ranker: "keyword", score: 6 });

    await setKey("bm25");
    expect(webOf(await inject())).toBeUndefined();
    expect(webOf(await inject({ ranker: "keyword" }))).toMatchObject({ ranker: "keyword" });

    await setKey(null);
    expect(webOf(await inject())).toMatchObject({ ranker: "keyword" });
    expect(webOf(await inject({ ranker: "bm25" }))).toBeUndefined();
    await setSetting("bm25");
  });

  it("the proxy's x-skillgate-ranker header chooses for one request", async () => {
    await setKey(null);
    await setSetting("bm25");
    stand.script((_req, _body, n) => ({ kind: "json", body: textTurn("openai-chat", "done", n) }));
    const client = new OpenAI({ apiKey: stand.key.key, baseURL: `${stand.app.url}/v1` });
    const ask = (headers?: Record<string, string>) =>
      client.chat.completions.create(
        { model: "gpt-4.1", messages: [{ role: "user", content: TEXT }] },
        { headers },
      );
    await ask();
    expect(declaredTools("openai-chat", stand.requests()[0]!.body)).not.toContain("web_v1_0_0");
    stand.script((_req, _body, n) => ({ kind: "json", body: textTurn("openai-chat", "done", n) }));
    await ask({ "x-skillgate-ranker": "keyword" });
    expect(declaredTools("openai-chat", stand.requests()[0]!.body)).toContain("web_v1_0_0");
    await expect(ask({ "x-skillgate-ranker": "magic" })).rejects.toMatchObject({ status: 400 });
  });

  it("a name that is not a ranker answers 400 and changes nothing", async () => {
    await setSetting("bm25");
    await setKey(null);
    expect((await stand.app.api.put("/api/settings", { ranker: "magic" })).status).toBe(400);
    expect(
      (await stand.app.api.put(`/api/keys/${stand.key.id}/ranker`, { ranker: "magic" })).status,
    ).toBe(400);
    expect((await inject({ ranker: "magic" })).status).toBe(400);
    expect((await stand.app.api.get("/api/settings")).body.settings.ranker).toBe("bm25");
    expect((await stand.app.api.get(`/api/keys/${stand.key.id}`)).body.apiKey.ranker).toBeNull();
  });
});
