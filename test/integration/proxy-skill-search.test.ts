/**
 * `skill_search` and learning from traffic in the proxy (docs/proxy.md#skill-search), through
 * the official SDKs unmodified, in every format, JSON and streamed: the injection offers
 * `skill_search` beside the AUTO picks when the caller sees more AUTO skills than were injected;
 * a scripted upstream calls it, the gateway answers it itself (the client never sees it), the
 * next round declares the found skill, the upstream calls that and it runs (an execution row);
 * a later request of the same `x-skillgate-session` offers the found skill from its first round.
 * Then learning: a proxied request's owned calls of its AUTO picks teach the ranker without the
 * client's help, so that a later question it could not match by its words offers that skill in
 * its first round; with learning off nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import type { Script } from "../support/fakes/llm-script.js";
import { ask, askStream } from "../support/proxy-clients.js";
import {
  declaredTools,
  FORMATS,
  type Format,
  formatOf,
  textTurn,
  toolResults,
  toolTurn,
} from "../support/proxy-fixtures.js";
import { sseOf, wantsStream } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand } from "../support/proxy-stand.js";

const SEARCH = "skill_search";
/** An AUTO skill installed for these tests (the stand's own skills are always offered). */
const RATES = "exchangeRates_v1_0_0";
/** Shares no word with the AUTO skills: the ranker injects none for it. */
const QUESTION = "Say hello to my friend";

/**
 * The scripted model: without results it calls `skill_search`; with the search's result it calls
 * the rates tool when that round declares it (else answers that it could not); then answers.
 */
function searchingModel(): Script {
  return (req, body, n) => {
    const f = formatOf(req.url.split("?")[0]!);
    const done = toolResults(f, body).length;
    const answer =
      done === 0
        ? toolTurn(f, [{ id: "s1", name: SEARCH, args: { query: "currency exchange rate" } }], n)
        : done === 1 && declaredTools(f, body).includes(RATES)
          ? toolTurn(f, [{ id: "w1", name: RATES, args: { currency: "EUR" } }], n)
          : textTurn(f, `answered after ${done} results`, n);
    return wantsStream(req.url, body)
      ? { kind: "sse", events: sseOf(f, answer), chunkBytes: 9 }
      : { kind: "json", body: answer };
  };
}

/** Installs the AUTO `exchangeRates` skill (and its handler) for the stand's key. */
async function installRates(s: ProxyStand): Promise<void> {
  s.app.services.executor.registerHandler("rates-handler", async (input) => ({
    currency: (input as { currency?: unknown }).currency,
    rate: 1.25,
  }));
  const res = await s.app.api.post("/api/skills/install", {
    name: "exchangeRates",
    version: "1.0.0",
    description: "Currency exchange rate between two currencies",
    mode: "auto",
    schema: { input: { currency: { type: "string", required: true } } },
    handlerCode: "rates-handler",
    apiKeyId: s.key.id,
  });
  expect(res.status).toBe(201);
}

describe("skill_search through the proxy", () => {
  let s: ProxyStand;
  beforeAll(async () => {
    // Learning off: a search's call would teach the ranker the question (tests run shuffled).
    s = await startProxyStand({ PROXY_MAX_ROUNDS: "4", SELECTION_LEARNING: "false" });
    await installRates(s);
  });
  afterAll(() => s.close());

  /** The three rounds' requests of one searching conversation, checked. */
  async function expectSearchRounds(format: Format, session: string) {
    const reqs = s.requests();
    expect(reqs).toHaveLength(3);
    const [first, second, third] = reqs.map((r) => declaredTools(format, r.body));
    // Round 1: the search beside no AUTO pick; the rates tool is not offered yet.
    expect(first).toContain(SEARCH);
    expect(first).not.toContain(RATES);
    // Round 2 carries the search's answer (found by Skillgate) and declares the found tool.
    expect(second).toContain(RATES);
    const found = toolResults(format, reqs[1]!.body);
    expect(found).toHaveLength(1);
    expect(found[0]!.text).toContain(RATES);
    expect(third).toContain(RATES);
    expect(toolResults(format, reqs[2]!.body)[1]!.text).toContain("1.25");
    // The found tool ran once, recorded as an execution of the session.
    const rows = await s.app.api
      .as(s.key.key)
      .get(`/api/skills/executions?sessionId=${encodeURIComponent(session)}`);
    expect(rows.status).toBe(200);
    expect(rows.body.total).toBe(1);
    expect(rows.body.data[0].status).toBe("success");
    expect(JSON.stringify(rows.body.data[0])).toContain("exchangeRates");
  }

  describe.each(FORMATS)("%s", (format: Format) => {
    it("JSON: answers skill_search itself and offers the found skill in the next round", async () => {
      const session = `search-json-${format}`;
      s.script(searchingModel());
      const answer = await ask(format, s.app.url, s.key.key, QUESTION, {
        headers: { "x-skillgate-session": session },
      });
      expect(answer.text).toBe("answered after 2 results");
      expect(answer.calls).toEqual([]);
      expect(JSON.stringify(answer.raw)).not.toContain(SEARCH);
      expect(answer.headers.get("x-skillgate-rounds")).toBe("3");
      await expectSearchRounds(format, session);

      // A later request of the same session offers the found skill from its first round.
      const plain: Script = (req, _body, n) => ({
        kind: "json",
        body: textTurn(formatOf(req.url.split("?")[0]!), "again", n),
      });
      s.script(plain);
      const again = await ask(format, s.app.url, s.key.key, QUESTION, {
        headers: { "x-skillgate-session": session },
      });
      expect(again.text).toBe("again");
      expect(declaredTools(format, s.requests()[0]!.body)).toContain(RATES);
      // Another session does not get it.
      s.script(plain);
      await ask(format, s.app.url, s.key.key, QUESTION, {
        headers: { "x-skillgate-session": `${session}-other` },
      });
      expect(declaredTools(format, s.requests()[0]!.body)).not.toContain(RATES);
    });

    it("streamed: the same conversation streams only the final answer", async () => {
      const session = `search-sse-${format}`;
      s.script(searchingModel());
      const answer = await askStream(format, s.app.url, s.key.key, QUESTION, {
        headers: { "x-skillgate-session": session },
      });
      expect(answer.text).toBe("answered after 2 results");
      expect(answer.calls).toEqual([]);
      await expectSearchRounds(format, session);
    });
  });

  it("a request without a session still searches and calls the found skill in the same request", async () => {
    s.script(searchingModel());
    const answer = await ask("openai-chat", s.app.url, s.key.key, QUESTION);
    expect(answer.text).toBe("answered after 2 results");
    const reqs = s.requests();
    expect(reqs).toHaveLength(3);
    expect(declaredTools("openai-chat", reqs[1]!.body)).toContain(RATES);
    expect(answer.headers.get("x-skillgate-executions")?.split(",")).toHaveLength(1);
  });

  it("the found skills a search adds are not declared twice when the model searches again", async () => {
    s.script((req, body, n) => {
      const f = formatOf(req.url.split("?")[0]!);
      const done = toolResults(f, body).length;
      const search = { name: SEARCH, args: { query: "currency exchange rate" } };
      return {
        kind: "json",
        body:
          done < 2
            ? toolTurn(f, [{ id: `s${done}`, ...search }], n)
            : textTurn(f, "searched twice", n),
      };
    });
    const answer = await ask("anthropic", s.app.url, s.key.key, QUESTION);
    expect(answer.text).toBe("searched twice");
    const last = s.requests()[2]!.body;
    expect(declaredTools("anthropic", last).filter((t) => t === RATES)).toHaveLength(1);
    // The second search leaves out what the request already offers.
    expect(toolResults("anthropic", last)[1]!.text).not.toContain(RATES);
  });
});

describe("when skill_search is not Skillgate's", () => {
  it("a client's own skill_search is declared once and its call goes to the client", async () => {
    const s = await startProxyStand({ SELECTION_LEARNING: "false" });
    try {
      await installRates(s);
      s.script(searchingModel());
      const answer = await ask("openai-chat", s.app.url, s.key.key, QUESTION, {
        clientTools: [SEARCH],
      });
      expect(answer.calls.map((c) => c.name)).toEqual([SEARCH]);
      const reqs = s.requests();
      expect(reqs).toHaveLength(1);
      expect(declaredTools("openai-chat", reqs[0]!.body).filter((t) => t === SEARCH)).toHaveLength(
        1,
      );
    } finally {
      await s.close();
    }
  });

  it("SKILLS_SEARCH_TOOL=off offers nothing, and a call of the name is not answered", async () => {
    const s = await startProxyStand({ SELECTION_LEARNING: "false", SKILLS_SEARCH_TOOL: "off" });
    try {
      await installRates(s);
      s.script(searchingModel());
      const answer = await ask("anthropic", s.app.url, s.key.key, QUESTION);
      expect(declaredTools("anthropic", s.requests()[0]!.body)).not.toContain(SEARCH);
      expect(s.requests()).toHaveLength(1);
      expect(answer.calls.map((c) => c.name)).toEqual([SEARCH]);
    } finally {
      await s.close();
    }
  });
});

const REFUND = "orders_refund_v1_0_0";
/** Shares no term with `orders_refund`: cold, the ranker does not offer it. */
const TARGET = "send back the blender";
const TRAINING = [
  "refund the blender",
  "I want a refund for this blender",
  "refund my blender order, it is broken",
];

/** A stand with a small registry where `orders_refund` is matched by "refund" only. */
async function learningStand(
  env: Record<string, string>,
  cache = new MemoryCache(),
): Promise<ProxyStand> {
  const s = await startProxyStand(env, { cache });
  for (const [name, description] of [
    ["orders_refund", "Refund an order and print the shipping label"],
    ["kitchen_manuals", "Blender, toaster and oven manuals with recipes"],
    ["calendar_add", "Add an event to the calendar"],
    ["translate_text", "Translate text between languages"],
  ]) {
    const res = await s.app.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      description,
      mode: "auto",
      schema: { input: { type: "object", properties: {} } },
      handlerCode: "echo-handler",
      apiKeyId: s.key.id,
    });
    expect(res.status).toBe(201);
  }
  return s;
}

/** The scripted model calls `orders_refund` when the round offers it, then answers. */
const refundingModel: Script = (req, body, n) => {
  const f = formatOf(req.url.split("?")[0]!);
  const offered = declaredTools(f, body).includes(REFUND);
  return {
    kind: "json",
    body:
      offered && toolResults(f, body).length === 0
        ? toolTurn(f, [{ id: "r1", name: REFUND, args: {} }], n)
        : textTurn(f, offered ? "refunded" : "no refund tool", n),
  };
};

/** Whether the first round of a proxied `question` declares `orders_refund`. */
async function offersRefund(s: ProxyStand, format: Format, question: string): Promise<boolean> {
  s.script(refundingModel);
  await ask(format, s.app.url, s.key.key, question);
  return declaredTools(format, s.requests()[0]!.body).includes(REFUND);
}

describe("learning from proxied traffic", () => {
  it.each(["openai-chat", "anthropic"] as const)(
    "%s: calls of the injected skill teach the ranker without the client's help",
    async (format) => {
      const s = await learningStand({});
      try {
        expect(await offersRefund(s, format, TARGET)).toBe(false);
        for (const q of TRAINING) {
          s.script(refundingModel);
          const answer = await ask(format, s.app.url, s.key.key, q);
          expect(answer.text).toBe("refunded");
        }
        expect(await offersRefund(s, format, TARGET)).toBe(true);
        // An unrelated question is not changed by it.
        expect(await offersRefund(s, format, "translate this into French")).toBe(false);
      } finally {
        await s.close();
      }
    },
  );

  it("the link of a proxied request stays in the request: learning works with no link in the cache", async () => {
    const written: string[] = [];
    const cache = new (class extends MemoryCache {
      override async put(key: string, value: unknown, ttlSeconds: number): Promise<void> {
        written.push(key);
        await super.put(key, value, ttlSeconds);
      }
    })();
    const s = await learningStand({}, cache);
    try {
      for (const q of TRAINING) {
        s.script(refundingModel);
        expect((await ask("openai-chat", s.app.url, s.key.key, q)).text).toBe("refunded");
      }
      expect(await offersRefund(s, "openai-chat", TARGET)).toBe(true);
      expect(written.filter((k) => k.startsWith("learn:link:"))).toEqual([]);
      // The inject API still links through the cache, for an intercept call that comes later.
      const res = await fetch(`${s.app.url}/api/skills/inject`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.key.key}`, "content-type": "application/json" },
        body: JSON.stringify({
          format: "openai-chat",
          request: { model: "m", messages: [{ role: "user", content: "refund my order" }] },
        }),
      });
      expect(res.status).toBe(200);
      expect(written.filter((k) => k.startsWith("learn:link:")).length).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });

  it("a skill found by the proxy's skill_search and then called is offered directly next time", async () => {
    const s = await startProxyStand({ PROXY_MAX_ROUNDS: "4" });
    try {
      await installRates(s);
      const firstRound = async () => {
        s.script(searchingModel());
        const answer = await ask("gemini", s.app.url, s.key.key, QUESTION);
        expect(answer.text).toMatch(/^answered after \d results$/);
        return declaredTools("gemini", s.requests()[0]!.body);
      };
      expect(await firstRound()).not.toContain(RATES);
      await firstRound();
      expect(await firstRound()).toContain(RATES);
    } finally {
      await s.close();
    }
  });

  it("with learning off the same traffic changes nothing", async () => {
    const s = await learningStand({ SELECTION_LEARNING: "false" });
    try {
      for (const q of TRAINING) {
        s.script(refundingModel);
        expect((await ask("openai-chat", s.app.url, s.key.key, q)).text).toBe("refunded");
      }
      expect(await offersRefund(s, "openai-chat", TARGET)).toBe(false);
      const rows = await s.app.client.execute("SELECT count(*) AS n FROM skill_learning");
      expect(Number(rows.rows[0]!.n)).toBe(0);
      // Nothing is linked either: the calls are not counted as calls of an injected pick.
      const stats = await s.app.services.tools.feedback.selectionStats();
      const refund = stats.skills.find((x) => x.skill === "orders_refund@1.0.0");
      expect(refund?.injected).toBeGreaterThan(0);
      expect(refund?.calledWhenInjected ?? 0).toBe(0);
    } finally {
      await s.close();
    }
  });
});
