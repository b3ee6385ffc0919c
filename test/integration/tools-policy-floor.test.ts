/**
 * Over HTTP: a model's call never reaches a handler that runs commands unless the operator opted
 * in with SKILLS_ALLOW_MODEL_COMMANDS, whatever policy management stored and whatever the skill is
 * called; code runs only after approval. The handlers are recording stand-ins registered under
 * the real handler names, so the test sees whether a call reached them.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { toolTurn } from "../support/proxy-fixtures.js";

/** A Chat Completions answer calling `name` once with `args`. */
const chatCalling = (name: string, args: Record<string, unknown>) =>
  toolTurn("openai-chat", [{ id: "call_1", name, args }], 1);

interface Harness {
  t: TestApp;
  key: { key: string; id: string };
  reached: string[];
}

async function start(env: Record<string, string> = {}): Promise<Harness> {
  const t = await startTestApp({ env });
  const reached: string[] = [];
  for (const handler of ["execute_command", "eval_code"]) {
    t.services.executor.registerHandler(handler, async (input) => {
      reached.push(handler);
      return { handler, input };
    });
  }
  const key = await t.api.createKey(`floor-${Math.random().toString(36).slice(2)}`);
  const install = async (name: string, handlerCode: string) => {
    const res = await t.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      description: `Runs things through ${handlerCode}`,
      schema: { input: { type: "object", additionalProperties: true } },
      handlerCode,
      policy: "auto",
      mode: "on",
    });
    expect(res.status).toBe(201);
    expect(res.body.skill.policy).toBe("auto");
  };
  await install("shell-wrapper", "execute_command");
  await install("code-wrapper", "eval_code");
  return { t, key, reached };
}

const intercept = (h: Harness, name: string, args: Record<string, unknown> = { command: "id" }) =>
  h.t.api.as(h.key.key).post("/api/skills/intercept", {
    format: "openai-chat",
    response: chatCalling(name, args),
  });

const rowsOf = async (h: Harness, skill: string) =>
  (await h.t.api.get(`/api/skills/executions?skill=${skill}`)).body.data as Array<{
    id: string;
    status: string;
    approval: string;
  }>;

describe("policy floors by default", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start();
  });
  afterEach(() => h.t.close());

  it("execute_command set to auto by management still never runs from a model's call", async () => {
    const listed = await h.t.api.get("/api/skills?source=builtin&q=execute_command");
    const id = listed.body.data.find((s: { name: string }) => s.name === "execute_command").id;
    const put = await h.t.api.put(`/api/skills/${id}`, { policy: "auto" });
    expect(put.status).toBe(200);
    expect(put.body.skill.policy).toBe("auto");
    const res = await intercept(h, "execute_command");
    expect(res.status).toBe(200);
    expect(res.body.toolResults[0]).toMatchObject({
      skill: "execute_command@1.0.0",
      status: "error",
      executionId: null,
    });
    expect(res.body.toolResults[0].error).toContain("SKILLS_ALLOW_MODEL_COMMANDS");
    expect(h.reached).toEqual([]);
    expect(await rowsOf(h, "execute_command")).toEqual([]);
  });

  it("a custom skill whose handler is execute_command is held the same, and not injected", async () => {
    const inj = await h.t.api.as(h.key.key).post("/api/skills/inject", {
      format: "openai-chat",
      request: { model: "gpt-4.1", messages: [{ role: "user", content: "shell-wrapper please" }] },
      include: ["shell-wrapper"],
    });
    const injected = inj.body.injected.map((i: { name: string }) => i.name);
    expect(injected).not.toContain("shell-wrapper");
    expect(injected).toContain("code-wrapper");
    const res = await intercept(h, "shell-wrapper_v1_0_0");
    expect(res.body.toolResults[0]).toMatchObject({ status: "error", executionId: null });
    expect(res.body.toolResults[0].error).toMatch(/explicit execution/);
    expect(h.reached).toEqual([]);
    expect(await rowsOf(h, "shell-wrapper")).toEqual([]);
  });

  it("a custom skill whose handler is eval_code waits for approval, then runs once approved", async () => {
    const res = await intercept(h, "code-wrapper_v1_0_0", { code: "print(1)" });
    expect(res.body.toolResults[0].status).toBe("pending_approval");
    expect(h.reached).toEqual([]);
    const [row] = await rowsOf(h, "code-wrapper");
    expect(row).toMatchObject({ status: "pending", approval: "required" });
    const approved = await h.t.api.post(`/api/skills/executions/${row!.id}/approve`);
    expect(approved.body.execution.status).toBe("success");
    expect(h.reached).toEqual(["eval_code"]);
  });

  it("an explicit execute call is not a model call: it runs", async () => {
    const res = await h.t.api.as(h.key.key).post("/api/skills/executions", {
      skillName: "shell-wrapper",
      input: { command: "id" },
    });
    expect(res.status).toBe(200);
    expect(res.body.execution.status).toBe("success");
    expect(h.reached).toEqual(["execute_command"]);
  });
});

describe("with SKILLS_ALLOW_MODEL_COMMANDS=true", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start({ SKILLS_ALLOW_MODEL_COMMANDS: "true" });
  });
  afterEach(() => h.t.close());

  it("the stored policies apply: auto runs, the builtin's own manual still refuses", async () => {
    const custom = await intercept(h, "shell-wrapper_v1_0_0");
    expect(custom.body.toolResults[0].status).toBe("success");
    const code = await intercept(h, "code-wrapper_v1_0_0", { code: "print(1)" });
    expect(code.body.toolResults[0].status).toBe("success");
    expect(h.reached).toEqual(["execute_command", "eval_code"]);
    const builtin = await intercept(h, "execute_command");
    expect(builtin.body.toolResults[0].status).toBe("error");
    expect(builtin.body.toolResults[0].error).not.toContain("SKILLS_ALLOW_MODEL_COMMANDS");
    expect(h.reached).toEqual(["execute_command", "eval_code"]);
  });
});
