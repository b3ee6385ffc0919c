/**
 * The gateway proxy inside workerd through the Worker entry: a Chat Completions request runs the
 * owned call in the loop and answers with the final text, as JSON and as one event stream, against
 * the scripted upstream of ./global-setup.ts.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { chatStreamContent } from "../support/proxy-sse.js";
import { call, createKey, installBody, ORIGIN } from "./support.js";

async function setup() {
  const key = await createKey(`workerd-proxy-${crypto.randomUUID().slice(0, 8)}`);
  const installed = await call("POST", "/api/skills/install", {
    body: installBody("workerdEcho", { apiKeyId: key.id }),
  });
  expect(installed.status).toBe(201);
  return key;
}

function chat(key: string, stream: boolean): Promise<Response> {
  return exports.default.fetch(
    new Request(`${ORIGIN}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-test",
        stream,
        messages: [{ role: "user", content: "echo something" }],
      }),
    }),
  );
}

describe("gateway proxy in workerd", () => {
  it("runs the owned call and answers with the final text (JSON)", async () => {
    const key = await setup();
    const res = await chat(key.key, false);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      choices: { message: { content: string } }[];
      usage: { total_tokens: number };
    };
    expect(body.choices[0]!.message.content).toContain("from workerd");
    expect(body.usage.total_tokens).toBe(30);
    expect(res.headers.get("x-skillgate-rounds")).toBe("2");
  });

  it("streams both rounds as one answer", async () => {
    const key = await setup();
    const res = await chat(key.key, true);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(chatStreamContent(text)).toContain("from workerd");
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  });
});
