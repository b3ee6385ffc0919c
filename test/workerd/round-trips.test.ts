/**
 * Round trips from the Worker to its libSQL server (docs/execution.md#what-an-execution-costs): an
 * execution costs at most two (its `running` row, then its end), and so does an interception of
 * several calls, whose executions share those two batches. Counted by the test Hrana server
 * (`GET /_test/stats`), once the registry, settings and key caches are warm.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createKey, installBody } from "./support.js";

/** HTTP pipeline requests the database server has received so far. */
async function pipelines(): Promise<number> {
  const res = await fetch(`${env.LIBSQL_URL}/_test/stats`);
  const stats = (await res.json()) as { pipelines: number };
  return stats.pipelines;
}

/** A Chat Completions response calling `toolName` `n` times in parallel. */
function chatCalls(toolName: string, n: number) {
  return {
    id: "chatcmpl-rt",
    object: "chat.completion",
    created: 1,
    model: "gpt-4.1",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: Array.from({ length: n }, (_, i) => ({
            id: `call_${i}`,
            type: "function",
            function: { name: toolName, arguments: JSON.stringify({ text: `t${i}` }) },
          })),
        },
      },
    ],
  };
}

describe("round trips to the libSQL server", () => {
  it("an execution through REST costs at most two once the caches are warm", async () => {
    const key = await createKey("round-trips-exec");
    const installed = await call("POST", "/api/skills/install", {
      body: installBody("rt-echo", { apiKeyId: key.id }),
    });
    expect(installed.status).toBe(201);
    const run = () =>
      call("POST", "/api/skills/executions", {
        token: key.key,
        body: { skillName: "rt-echo", input: { text: "hi" } },
      });
    expect((await run()).body.execution.status).toBe("success");

    const before = await pipelines();
    const res = await run();
    const used = (await pipelines()) - before;
    expect(res.body.execution).toMatchObject({ status: "success", output: { text: "hi" } });
    expect(used).toBeGreaterThanOrEqual(1);
    expect(used).toBeLessThanOrEqual(2);
  });

  it("an interception of four calls costs at most two in all", async () => {
    const key = await createKey("round-trips-intercept");
    const installed = await call("POST", "/api/skills/install", {
      body: installBody("rt-intercept", { apiKeyId: key.id }),
    });
    expect(installed.status).toBe(201);
    const inject = await call("POST", "/api/skills/inject", {
      token: key.key,
      body: {
        format: "openai-chat",
        request: { model: "gpt-4.1", messages: [{ role: "user", content: "reverse it" }] },
      },
    });
    const tool = inject.body.injected.find((t: { name: string }) => t.name === "rt-intercept");
    expect(tool).toBeDefined();
    const intercept = () =>
      call("POST", "/api/skills/intercept", {
        token: key.key,
        body: { format: "openai-chat", response: chatCalls(tool.toolName, 4) },
      });
    expect((await intercept()).body.toolResults).toHaveLength(4);

    const before = await pipelines();
    const res = await intercept();
    const used = (await pipelines()) - before;
    expect(res.status).toBe(200);
    expect(res.body.toolResults.map((r: { status: string }) => r.status)).toEqual([
      "success",
      "success",
      "success",
      "success",
    ]);
    expect(used).toBeGreaterThanOrEqual(1);
    expect(used).toBeLessThanOrEqual(2);
  });
});
