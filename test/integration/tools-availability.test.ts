/**
 * Builtins that cannot work with the deployment's configuration (no search provider, no sandbox
 * host) are never injected; configured ones take part in AUTO scoring like other skills.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createSandboxClient } from "../../workers/src/sandbox/client.js";
import { startTestApp, type TestApp } from "../support/app.js";

const request = {
  model: "gpt-4.1",
  messages: [
    {
      role: "user",
      content:
        "Please web_search the web for python news, then eval_code some python code to run it and search again",
    },
  ],
};

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function injectedNames(app: TestApp): Promise<string[]> {
  const key = await app.api.createKey("availability");
  const res = await app.api
    .as(key.key)
    .post("/api/skills/inject", { format: "openai-chat", request });
  expect(res.status).toBe(200);
  return res.body.injected.map((i: { name: string }) => i.name);
}

describe("builtin availability", () => {
  it("does not inject web_search or the sandbox builtins when they are not configured", async () => {
    t = await startTestApp();
    const names = await injectedNames(t);
    expect(names).not.toContain("web_search");
    expect(names).not.toContain("eval_code");
    expect(names).not.toContain("execute_command");
  });

  it("injects them when a search provider and a sandbox host are configured", async () => {
    t = await startTestApp({
      env: { WEB_SEARCH_PROVIDER: "searxng", SEARXNG_URL: "http://127.0.0.1:9" },
      deps: {
        sandbox: createSandboxClient({ baseUrl: "http://127.0.0.1:9", secret: "s".repeat(32) }),
      },
    });
    const names = await injectedNames(t);
    expect(names).toContain("web_search");
    expect(names).toContain("eval_code");
    // execute_command is manual: the model can never call it, so it is never injected.
    expect(names).not.toContain("execute_command");
  });
});
