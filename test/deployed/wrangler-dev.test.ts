/**
 * The Worker as deployed: `wrangler dev` with the repository's wrangler.toml bundles and starts
 * workers/src/runtime/worker/index.ts in workerd (which refuses an entry module exporting anything but
 * handlers), and the API works end to end over real HTTP against a real libSQL server: health →
 * API key → install → execute → inject → intercept, and the cron trigger.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DeployedWorker, startDeployedWorker } from "./wrangler-dev.js";

let worker: DeployedWorker;

beforeAll(async () => {
  worker = await startDeployedWorker();
});
afterAll(async () => {
  await worker?.close();
});

/** A JSON answer of the Worker. */
interface Answer {
  status: number;
  body: any;
}

/** Sends a JSON request to the Worker; `token` defaults to the management token. */
async function call(method: string, path: string, body?: unknown, token?: string): Promise<Answer> {
  const res = await fetch(worker.url + path, {
    method,
    headers: {
      authorization: `Bearer ${token ?? worker.mgmtToken}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: keep the text.
  }
  return { status: res.status, body: parsed };
}

/** Creates an API key and installs a key-owned `echo-handler` skill with a unique name. */
async function keyWithSkill(): Promise<{ key: string; keyId: string; name: string; id: string }> {
  const created = await call("POST", "/api/keys", { name: `deployed-${randomUUID()}` });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const key: string = created.body.key;
  const keyId: string = created.body.apiKey.id;
  const name = `reverse_${randomUUID().slice(0, 8)}`;
  const installed = await call("POST", "/api/skills/install", {
    name,
    version: "1.0.0",
    description: "Reverses a string",
    schema: { input: { text: { type: "string", required: true } } },
    handlerCode: "echo-handler",
    apiKeyId: keyId,
  });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  return { key, keyId, name, id: installed.body.skill.id };
}

describe("the Worker under wrangler dev (deployed form)", () => {
  it("answers health, with workerd and the database in the management details", async () => {
    const anonymous = await fetch(`${worker.url}/api/health`);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({ status: "ok" });

    const detailed = await call("GET", "/api/health");
    expect(detailed.status).toBe(200);
    expect(detailed.body.details).toMatchObject({ runtime: "workerd", database: { ok: true } });
    expect(detailed.body.details.handlers).toContain("echo-handler");
  });

  it("creates a key, installs a skill, executes it, injects it and runs the model's call", async () => {
    const { key, keyId, name, id } = await keyWithSkill();

    const run = await call(
      "POST",
      "/api/skills/executions",
      { skillName: `${name}@^1.0.0`, input: { text: "hello from wrangler dev" } },
      key,
    );
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.execution).toMatchObject({
      skillId: id,
      skillName: name,
      version: "1.0.0",
      status: "success",
      output: { text: "hello from wrangler dev" },
    });
    const stored = worker.database.db
      .prepare("select status, api_key_id from skill_executions where id = ?")
      .get(run.body.execution.id);
    expect(stored).toMatchObject({ status: "success", api_key_id: keyId });

    const injected = await call(
      "POST",
      "/api/skills/inject",
      {
        format: "openai-chat",
        request: {
          model: "gpt-4.1",
          messages: [{ role: "user", content: `Please ${name} this: hello` }],
        },
      },
      key,
    );
    expect(injected.status, JSON.stringify(injected.body)).toBe(200);
    const toolName = `${name}_v1_0_0`;
    expect(injected.body.injected).toContainEqual({
      name,
      version: "1.0.0",
      toolName,
      mode: "on",
      score: null,
      ranker: null,
    });
    const tool = injected.body.request.tools.find(
      (t: { function: { name: string } }) => t.function.name === toolName,
    );
    expect(tool.function.parameters).toMatchObject({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });

    const callId = `call_${randomUUID().slice(0, 8)}`;
    const intercepted = await call(
      "POST",
      "/api/skills/intercept",
      {
        format: "openai-chat",
        injected: [toolName],
        response: {
          choices: [
            {
              index: 0,
              finish_reason: "tool_calls",
              message: {
                role: "assistant",
                content: null,
                tool_calls: [
                  {
                    id: callId,
                    type: "function",
                    function: { name: toolName, arguments: '{"text":"from the model"}' },
                  },
                ],
              },
            },
          ],
        },
      },
      key,
    );
    expect(intercepted.status, JSON.stringify(intercepted.body)).toBe(200);
    expect(intercepted.body.toolResults).toMatchObject([
      { callId, status: "success", skill: `${name}@1.0.0`, output: { text: "from the model" } },
    ]);
    expect(intercepted.body.messages).toMatchObject([{ role: "tool", tool_call_id: callId }]);
    expect(intercepted.body.passThrough).toEqual([]);
  });

  it("runs the cron trigger, which finishes a stale running execution as interrupted", async () => {
    const { name, id } = await keyWithSkill();
    const stale = randomUUID();
    const longAgo = Date.now() - 10 * 60_000;
    worker.database.db
      .prepare(
        `insert into skill_executions
           (id, skill_id, skill_name, version, status, approval, input, attempts, timeout_ms, created_at, updated_at, started_at)
         values (?, ?, ?, '1.0.0', 'running', 'none', '{"text":"x"}', 1, 1000, ?, ?, ?)`,
      )
      .run(stale, id, name, longAgo, longAgo, longAgo);

    const trigger = await fetch(`${worker.url}/cdn-cgi/local/scheduled?cron=*+*+*+*+*`);
    expect(trigger.status).toBe(200);

    const finished = await call("GET", `/api/skills/executions/${stale}`);
    expect(finished.status).toBe(200);
    expect(finished.body.execution.status).toBe("error");
    expect(finished.body.execution.errorMessage).toMatch(/^interrupted/);
  });
});
