/**
 * Bodies the proxy refuses before any upstream call, in the provider's own error shape: JSON
 * nested deeper than `MAX_JSON_DEPTH` (400 `json_too_deep`, as on the REST routes, never a crash
 * reported as an unreachable upstream), and a `stream` that is not a boolean (400).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORMATS, type Format } from "../support/proxy-fixtures.js";
import { type ProxyStand, startProxyStand } from "../support/proxy-stand.js";

let stand: ProxyStand;
beforeAll(async () => {
  stand = await startProxyStand();
});
afterAll(async () => {
  await stand.close();
});

/** The path and key header each SDK uses. */
function target(format: Format, key: string): { path: string; headers: Record<string, string> } {
  switch (format) {
    case "openai-chat":
      return { path: "/v1/chat/completions", headers: { authorization: `Bearer ${key}` } };
    case "openai-responses":
      return { path: "/v1/responses", headers: { authorization: `Bearer ${key}` } };
    case "anthropic":
      return { path: "/v1/messages", headers: { "x-api-key": key } };
    case "gemini":
      return {
        path: "/v1beta/models/gemini-2.5-flash:generateContent",
        headers: { "x-goog-api-key": key },
      };
  }
}

async function post(format: Format, body: string) {
  const { path, headers } = target(format, stand.key.key);
  const res = await fetch(stand.app.url + path, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body,
  });
  return { status: res.status, text: await res.text() };
}

describe.each(FORMATS)("%s", (format: Format) => {
  it("refuses JSON nested thousands of levels deep with 400 json_too_deep, calling no upstream", async () => {
    stand.script(() => ({ kind: "json", body: {} }));
    const deep = `{"model":"m","messages":[{"role":"user","content":${"[".repeat(5000)}${"]".repeat(5000)}}]}`;
    const res = await post(format, deep);
    expect(res.status).toBe(400);
    expect(res.text).toContain("nested deeper than");
    expect(res.text).not.toContain("call stack");
    expect(stand.requests()).toEqual([]);
  });

  it("refuses a stream flag that is not a boolean with 400", async () => {
    stand.script(() => ({ kind: "json", body: {} }));
    const res = await post(format, JSON.stringify({ model: "m", stream: "yes", messages: [] }));
    expect(res.status).toBe(400);
    expect(res.text).toContain("stream must be a boolean");
    expect(stand.requests()).toEqual([]);
  });
});
