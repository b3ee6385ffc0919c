/**
 * The proxy's non-streaming loop through the official SDKs: multi-round conversations ending in
 * a final answer, credentials and headers, the round limit, hybrid skills, and errors in each
 * provider's own shape (each SDK raises its own error type).
 */
import Anthropic from "@anthropic-ai/sdk";
import { ApiError } from "@google/genai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ask } from "../support/proxy-clients.js";
import {
  declaredTools,
  FORMATS,
  type Format,
  formatOf,
  rateLimitBody,
  textTurn,
  toolResults,
  toolTurn,
} from "../support/proxy-fixtures.js";
import {
  APPROVE,
  type ProxyStand,
  startProxyStand,
  tempOf,
  WEATHER,
} from "../support/proxy-stand.js";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand({ PROXY_MAX_ROUNDS: "3" });
});
afterAll(() => s.close());

const weather = (id: string, city: string) => ({ id, name: WEATHER, args: { city } });

describe.each(FORMATS)("%s", (format: Format) => {
  it("runs owned calls over several rounds and answers with the final text", async () => {
    let lastId = -1;
    s.script((req, body, n) => {
      const f = formatOf(req.url.split("?")[0]!);
      const done = toolResults(f, body).length;
      lastId = n;
      if (done === 0)
        return {
          kind: "json",
          body: toolTurn(f, [weather("c1", "Paris"), weather("c2", "Rome")], n),
        };
      if (done === 2) return { kind: "json", body: toolTurn(f, [weather("c3", "Stockholm")], n) };
      return { kind: "json", body: textTurn(f, `three cities, ${done} results`, n) };
    });
    const answer = await ask(
      format,
      s.app.url,
      s.key.key,
      "Weather in Paris, Rome and Stockholm?",
      {
        headers: {
          "x-skillgate-session": `loop-${format}`,
          "x-upstream-api-key": "sk-from-client",
        },
      },
    );
    expect(answer.text).toBe("three cities, 3 results");
    expect(answer.calls).toEqual([]);
    expect(answer.headers.get("x-skillgate-rounds")).toBe("3");
    expect(answer.totalTokens).toBe(45);
    const reqs = s.requests();
    expect(reqs).toHaveLength(3);
    const lastBody = textTurn(format, "", lastId) as { id?: string; responseId?: string };
    expect(answer.id).toBe(lastBody.id ?? lastBody.responseId);
    // Every round declares the injected tool; the results are the handler's.
    for (const r of reqs) expect(declaredTools(format, r.body)).toContain(WEATHER);
    const last = toolResults(format, reqs[2]!.body);
    expect(last.map((r) => r.text.includes(String(tempOf("Stockholm"))))).toEqual([
      false,
      false,
      true,
    ]);
    expect(last[0]!.text).toContain(String(tempOf("Paris")));
    expect(last[1]!.text).toContain(String(tempOf("Rome")));
    // Credentials: the client's upstream key is forwarded; the Skillgate key never is.
    for (const { req } of reqs) {
      const all = JSON.stringify(req.headers);
      expect(all).not.toContain(s.key.key);
      expect(all).toContain("sk-from-client");
      expect(req.headers["x-upstream-api-key"]).toBeUndefined();
    }
    const ids = answer.headers.get("x-skillgate-executions")!.split(",");
    expect(ids).toHaveLength(3);
    const rows = await s.app.api
      .as(s.key.key)
      .get(`/api/skills/executions?sessionId=loop-${format}`);
    expect(rows.body.total).toBe(3);
    expect(rows.body.data.map((e: { id: string }) => e.id).sort()).toEqual([...ids].sort());
  });

  it("uses the configured upstream key and forwards provider headers", async () => {
    s.script((req, _b, n) => ({
      kind: "json",
      body: textTurn(formatOf(req.url.split("?")[0]!), "hi", n),
    }));
    const answer = await ask(format, s.app.url, s.key.key, "hello");
    expect(answer.text).toBe("hi");
    expect(answer.headers.get("x-skillgate-rounds")).toBe("1");
    const { req } = s.requests()[0]!;
    const expected = {
      "openai-chat": ["authorization", "Bearer sk-configured-openai"],
      "openai-responses": ["authorization", "Bearer sk-configured-openai"],
      anthropic: ["x-api-key", "sk-configured-anthropic"],
      gemini: ["x-goog-api-key", "configured-gemini"],
    }[format];
    expect(req.headers[expected[0]!]).toBe(expected[1]);
    if (format === "anthropic")
      expect(req.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("stops at the round limit and returns the last answer as it is", async () => {
    s.script((req, _b, n) => ({
      kind: "json",
      body: toolTurn(formatOf(req.url.split("?")[0]!), [weather(`loop${n}`, "Nice")], n),
    }));
    const answer = await ask(format, s.app.url, s.key.key, "weather forever");
    expect(s.requests()).toHaveLength(3);
    expect(answer.headers.get("x-skillgate-rounds")).toBe("3");
    expect(answer.headers.get("x-skillgate-limit")).toBe("rounds");
    expect(answer.calls.map((c) => c.name)).toEqual([WEATHER]);
    expect(answer.headers.get("x-skillgate-executions")!.split(",")).toHaveLength(2);
  });

  it("a hybrid call in the loop gets the pending-approval result and an execution to approve", async () => {
    const session = `hybrid-${format}`;
    s.script((req, body, n) => {
      const f = formatOf(req.url.split("?")[0]!);
      if (toolResults(f, body).length === 0)
        return {
          kind: "json",
          body: toolTurn(f, [{ id: "h1", name: APPROVE, args: { city: "Lyon" } }], n),
        };
      return { kind: "json", body: textTurn(f, "waiting for approval", n) };
    });
    const answer = await ask(format, s.app.url, s.key.key, "approve me", {
      headers: { "x-skillgate-session": session },
    });
    expect(answer.text).toBe("waiting for approval");
    const [result] = toolResults(format, s.requests()[1]!.body);
    expect(result!.text).toContain("pending_approval");
    const pending = await s.app.api
      .as(s.key.key)
      .get(`/api/skills/executions?sessionId=${session}`);
    expect(pending.body.data).toHaveLength(1);
    expect(pending.body.data[0]).toMatchObject({ status: "pending", approval: "required" });
    expect(answer.headers.get("x-skillgate-executions")).toBe(pending.body.data[0].id);
  });

  it("an upstream 429 reaches the SDK as its own rate-limit error, Retry-After kept", async () => {
    s.script((req) => {
      const body = rateLimitBody(formatOf(req.url.split("?")[0]!), "slow down");
      return { kind: "json", status: 429, body, headers: { "retry-after": "7" } };
    });
    const err = await ask(format, s.app.url, s.key.key, "hi").catch((e: unknown) => e);
    if (format === "anthropic") {
      expect(err).toBeInstanceOf(Anthropic.RateLimitError);
      expect(
        (err as InstanceType<typeof Anthropic.RateLimitError>).headers.get("retry-after"),
      ).toBe("7");
    } else if (format === "gemini") {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(429);
      expect((err as ApiError).message).toContain("RESOURCE_EXHAUSTED");
    } else {
      expect(err).toBeInstanceOf(OpenAI.RateLimitError);
      expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers.get("retry-after")).toBe(
        "7",
      );
      expect((err as InstanceType<typeof OpenAI.RateLimitError>).code).toBe("rate_limit_exceeded");
    }
  });

  it("an upstream 500 raises the SDK's server error", async () => {
    s.script(() => ({
      kind: "json",
      status: 500,
      body: { error: { message: "boom", type: "server_error" } },
    }));
    const err = await ask(format, s.app.url, s.key.key, "hi").catch((e: unknown) => e);
    if (format === "anthropic") expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    else if (format === "gemini") expect((err as ApiError).status).toBe(500);
    else expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(s.requests()).toHaveLength(1);
  });

  it("a bad Skillgate key answers 401 in the provider's shape and never reaches the upstream", async () => {
    s.script((req, _b, n) => ({ kind: "json", body: textTurn(formatOf(req.url), "x", n) }));
    const err = await ask(format, s.app.url, "sg_not_a_key", "hi").catch((e: unknown) => e);
    if (format === "anthropic") {
      expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
      expect((err as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({
        type: "error",
        error: { type: "authentication_error" },
      });
    } else if (format === "gemini") {
      expect((err as ApiError).status).toBe(401);
      expect((err as ApiError).message).toContain("UNAUTHENTICATED");
    } else expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(s.requests()).toHaveLength(0);
  });
});
