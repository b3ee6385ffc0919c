/**
 * The proxy with its upstream down (docs/proxy.md#upstream): the client gets 502 naming the
 * upstream host and the network cause (never a key), and the server logs exactly one line, with
 * no key either. The official OpenAI SDK is the client.
 */
import { createServer } from "node:net";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ProxyStand, startProxyStand } from "../support/proxy-stand.js";

let stand: ProxyStand;
let port: number;
const UPSTREAM_KEY = "sk-upstream-secret-never-logged";

beforeAll(async () => {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  stand = await startProxyStand({ UPSTREAM_OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` });
});
afterAll(async () => {
  await stand.close();
});

describe("proxy with the upstream down", () => {
  it("answers 502 naming the upstream host and the cause, and logs one line without secrets", async () => {
    const logged: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
    const client = new OpenAI({
      baseURL: `${stand.app.url}/v1`,
      apiKey: stand.key.key,
      maxRetries: 0,
      defaultHeaders: { "x-upstream-api-key": UPSTREAM_KEY },
    });
    const err = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    spy.mockRestore();
    expect(err).toBeInstanceOf(OpenAI.APIError);
    const apiErr = err as InstanceType<typeof OpenAI.APIError>;
    expect(apiErr.status).toBe(502);
    expect(apiErr.message).toContain(
      `The upstream 127.0.0.1:${port} could not be reached: connection refused`,
    );
    expect(apiErr.message).not.toContain("fetch failed");
    const lines = logged.filter((l) => l.includes("proxy upstream"));
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\[skillgate(?: request_id=[\\w=-]+)?\\] proxy upstream error: openai-chat call 1 to 127\\.0\\.0\\.1:${port} could not be reached: connection refused$`,
        ),
      ),
    ]);
    for (const line of logged) {
      expect(line).not.toContain(stand.key.key);
      expect(line).not.toContain(UPSTREAM_KEY);
    }
    expect(apiErr.message).not.toContain(UPSTREAM_KEY);
  });
});
