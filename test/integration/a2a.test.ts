/**
 * The A2A agent over real HTTP with the official `@a2a-js/sdk` client (protocol 1.0) and raw
 * protocol 0.3 JSON-RPC: the agent card, each skill (`list-capabilities`, `memory_aware_routing`
 * with and without history, a skill registered with `registerA2ASkill`), the task lifecycle and
 * cancel with the state kept in the database, streaming, key isolation and authentication.
 */
import { TaskState } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  artifactData,
  connectA2A,
  legacyMessage,
  rawRpc,
  sendForTask,
  skillMessage,
} from "../support/a2a.js";
import { startTestApp, type TestApp } from "../support/app.js";

let t: TestApp;
let keyA: { key: string; id: string };
let keyB: { key: string; id: string };
let a: Client;
let b: Client;
const gates = new Map<string, () => void>();
const aborted = new Set<string>();

const storedState = async (id: string) =>
  (
    await t.client.execute({
      sql: "select state, api_key_id from a2a_tasks where id = ?",
      args: [id],
    })
  ).rows[0];

beforeAll(async () => {
  t = await startTestApp();
  keyA = await t.api.createKey("a2a-a");
  keyB = await t.api.createKey("a2a-b");
  const res = await t.api.post("/api/skills/install", {
    name: "ownedByA",
    version: "1.0.0",
    description: "A's skill",
    handlerCode: "echo-handler",
    apiKeyId: keyA.id,
  });
  expect(res.status).toBe(201);
  // A skill that waits for the test (or a cancel) before answering: no timing involved.
  t.a2aSkills.registerA2ASkill({
    id: "wait-for-gate",
    name: "Wait for gate",
    description: "Echoes its input once the test opens its gate",
    tags: ["test"],
    async run(input, ctx) {
      await new Promise<void>((resolve) => {
        gates.set(input.text, resolve);
        ctx.signal.addEventListener("abort", () => {
          aborted.add(input.text);
          resolve();
        });
      });
      return { text: `echo ${input.text}`, data: { echoed: input.text, taskId: ctx.taskId } };
    },
  });
  t.a2aSkills.registerA2ASkill({
    id: "needs-execute",
    name: "Needs execute",
    description: "Answers only keys holding the execute scope",
    tags: ["test"],
    scope: "execute",
    async run() {
      return { text: "ran" };
    },
  });
  a = await connectA2A(t.url, keyA.key);
  b = await connectA2A(t.url, keyB.key);
});
afterAll(() => t?.close());

async function waitForState(client: Client, id: string, state: TaskState) {
  for (let i = 0; i < 500; i++) {
    const task = await client.getTask({ tenant: "", id, historyLength: undefined });
    if (task.status?.state === state) return task;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`task ${id} never reached state ${state}`);
}

describe("A2A agent card", () => {
  it("is public and lists the skills, both protocol versions and the bearer scheme", async () => {
    const res = await fetch(`${t.url}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card = await res.json();
    expect(card.name).toBe("Skillgate");
    expect(card.capabilities.streaming).toBe(true);
    expect(card.supportedInterfaces).toEqual([
      expect.objectContaining({
        url: `${t.url}/a2a`,
        protocolBinding: "JSONRPC",
        protocolVersion: "1.0",
      }),
      expect.objectContaining({
        url: `${t.url}/a2a`,
        protocolBinding: "JSONRPC",
        protocolVersion: "0.3",
      }),
    ]);
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe("Bearer");
    const ids = card.skills.map((s: { id: string }) => s.id);
    expect(ids).toEqual([
      "list-capabilities",
      "memory_aware_routing",
      "wait-for-gate",
      "needs-execute",
    ]);
    for (const s of card.skills) {
      expect(s.description.length).toBeGreaterThan(10);
      expect(s.tags.length).toBeGreaterThan(0);
      expect(s.inputModes).toContain("application/json");
      expect(s.outputModes).toContain("text/plain");
    }
  });
});

describe("A2A skills", () => {
  it("list-capabilities describes the caller's skills, the formats and the Agent Skills entries", async () => {
    const task = await sendForTask(a, skillMessage("list-capabilities"));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const data = artifactData(task);
    expect(data.skills.map((s: { toolName: string }) => s.toolName)).toContain("ownedByA_v1_0_0");
    expect(data.formats).toEqual(["openai-chat", "openai-responses", "anthropic", "gemini"]);
    expect(data.agentSkills.map((e: { name: string }) => e.name)).toContain("skillgate-connect");
    expect(data.mcp).toEqual({ endpoint: "/mcp", toolPrefix: "skillgate_" });
    const forB = artifactData(await sendForTask(b, skillMessage("list-capabilities")));
    expect(forB.skills.map((s: { toolName: string }) => s.toolName)).not.toContain(
      "ownedByA_v1_0_0",
    );
  });

  it("memory_aware_routing says there is no history instead of recommending", async () => {
    const task = await sendForTask(
      b,
      skillMessage("memory_aware_routing", { text: "write a poem" }),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const data = artifactData(task);
    expect(data.recommendation).toBeNull();
    expect(data.basis).toBe("none");
    expect(data.reason).toContain("No upstream calls");
  });

  it("memory_aware_routing recommends from the caller's own history, with the numbers used", async () => {
    const call = (provider: string, model: string, latencyMs: number, extra: object = {}) => ({
      provider,
      model,
      status: "success",
      latencyMs,
      ...extra,
    });
    const recorded = await t.api.as(keyA.key).post("/api/routing/observations", {
      calls: [
        call("openai", "gpt-4.1", 800),
        call("openai", "gpt-4.1", 900),
        call("openai", "gpt-4.1", 1000),
        call("openai", "gpt-4.1", 1200),
        call("anthropic", "claude-sonnet", 500),
        call("anthropic", "claude-sonnet", 600),
        call("anthropic", "claude-sonnet", 700, { status: "error", errorClass: "rate_limit" }),
        call("google", "gemini-flash", 100),
        call("google", "gemini-flash", 120, { task: "translate french legal text" }),
        call("google", "gemini-flash", 130, { task: "translate french menu" }),
        call("google", "gemini-flash", 140, { task: "translate french poem" }),
      ],
    });
    expect(recorded.status).toBe(201);
    expect(recorded.body.recorded).toBe(11);

    const general = artifactData(
      await sendForTask(
        a,
        skillMessage("memory_aware_routing", { data: { task: "summarise a report" } }),
      ),
    );
    expect(general.basis).toBe("all-calls");
    expect(general.recommendation).toMatchObject({ provider: "google", model: "gemini-flash" });
    expect(general.callsConsidered).toBe(11);
    const anthropic = general.candidates.find(
      (c: { provider: string }) => c.provider === "anthropic",
    );
    expect(anthropic).toMatchObject({
      calls: 3,
      successes: 2,
      successRate: 0.6667,
      latencyP50Ms: 600,
      latencyP95Ms: 700,
      errorClasses: { rate_limit: 1 },
    });
    const openai = general.candidates.find((c: { provider: string }) => c.provider === "openai");
    expect(openai).toMatchObject({
      calls: 4,
      successRate: 1,
      latencyP50Ms: 900,
      latencyP95Ms: 1200,
    });

    const similar = artifactData(
      await sendForTask(
        a,
        skillMessage("memory_aware_routing", { text: "Translate this French contract" }),
      ),
    );
    expect(similar.basis).toBe("similar-tasks");
    expect(similar.callsConsidered).toBe(3);

    // B's history is its own: still empty.
    const forB = artifactData(await sendForTask(b, skillMessage("memory_aware_routing")));
    expect(forB.recommendation).toBeNull();

    const bad = await sendForTask(
      a,
      skillMessage("memory_aware_routing", { data: { windowHours: 0 } }),
    );
    expect(bad.status?.state).toBe(TaskState.TASK_STATE_FAILED);
  });

  it("rejects a message that names no known skill, listing the skills", async () => {
    const task = await sendForTask(a, skillMessage("no-such-skill"));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    const text = task.status?.message?.parts[0]?.content;
    expect(text?.$case === "text" && text.value).toContain("list-capabilities");
  });
});

describe("A2A tasks", () => {
  it("runs a registered skill through submitted → working → completed, kept in the database", async () => {
    const first = await sendForTask(
      a,
      skillMessage("wait-for-gate", { text: "lifecycle", returnImmediately: true }),
    );
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(
      first.status?.state,
    );
    await waitForState(a, first.id, TaskState.TASK_STATE_WORKING);
    expect((await storedState(first.id))!.state).toBe("working");
    gates.get("lifecycle")!();
    const done = await waitForState(a, first.id, TaskState.TASK_STATE_COMPLETED);
    expect(artifactData(done)).toEqual({ echoed: "lifecycle", taskId: first.id });
    expect(await storedState(first.id)).toMatchObject({ state: "completed", api_key_id: keyA.id });
    await expect(
      b.getTask({ tenant: "", id: first.id, historyLength: undefined }),
    ).rejects.toThrow();
    const listed = await a.listTasks({
      tenant: "",
      contextId: "",
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 100,
      pageToken: "",
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    expect(listed.tasks.map((x) => x.id)).toContain(first.id);
    const listedB = await b.listTasks({
      tenant: "",
      contextId: "",
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 100,
      pageToken: "",
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    expect(listedB.tasks.map((x) => x.id)).not.toContain(first.id);
  });

  it("cancels a working task: the skill sees the abort and the stored state stays canceled", async () => {
    const task = await sendForTask(
      a,
      skillMessage("wait-for-gate", { text: "to-cancel", returnImmediately: true }),
    );
    await waitForState(a, task.id, TaskState.TASK_STATE_WORKING);
    await expect(b.cancelTask({ tenant: "", id: task.id, metadata: {} })).rejects.toThrow();
    const canceled = await a.cancelTask({ tenant: "", id: task.id, metadata: {} });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(aborted.has("to-cancel")).toBe(true);
    expect((await storedState(task.id))!.state).toBe("canceled");
    const again = await a.getTask({ tenant: "", id: task.id, historyLength: undefined });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("streams a task's events with SendStreamingMessage, ending completed", async () => {
    const states: TaskState[] = [];
    for await (const event of a.sendMessageStream(skillMessage("list-capabilities"))) {
      if (event.payload?.$case === "statusUpdate") states.push(event.payload.value.status!.state);
      if (event.payload?.$case === "task") states.push(event.payload.value.status!.state);
    }
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(states).toContain(TaskState.TASK_STATE_WORKING);
  });
});

describe("A2A protocol 0.3 methods and authentication", () => {
  it("answers message/send, tasks/get and tasks/cancel (a completed task is not cancelable)", async () => {
    const sent = await rawRpc(t.url, keyA.key, "message/send", legacyMessage("list-capabilities"));
    expect(sent.status).toBe(200);
    expect(sent.body.result).toMatchObject({ kind: "task", status: { state: "completed" } });
    const id = sent.body.result.id;
    const got = await rawRpc(t.url, keyA.key, "tasks/get", { id });
    expect(got.body.result).toMatchObject({ id, status: { state: "completed" } });
    expect(got.body.result.artifacts[0].parts[0]).toMatchObject({ kind: "data" });
    const cancel = await rawRpc(t.url, keyA.key, "tasks/cancel", { id });
    expect(cancel.body.error.code).toBe(-32002);
    const foreign = await rawRpc(t.url, keyB.key, "tasks/get", { id });
    expect(foreign.body.error.code).toBe(-32001);
    const unknown = await rawRpc(t.url, keyA.key, "tasks/unknown", {});
    expect(unknown.body.error.code).toBe(-32601);
  });

  it("answers 401 with WWW-Authenticate: Bearer without credentials, and refuses unknown versions", async () => {
    const anonymous = await rawRpc(t.url, null, "message/send", legacyMessage("list-capabilities"));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    const wrong = await rawRpc(t.url, "sk-wrong", "tasks/get", { id: "x" });
    expect(wrong.status).toBe(401);
    const version = await rawRpc(t.url, keyA.key, "GetTask", { id: "x" }, { version: "9.9" });
    expect(version.body.error).toBeDefined();
    expect(version.body.error.message).toContain("not supported");
  });

  it("needs the read scope, and a skill's own scope: 403 missing_scope, or a rejected task", async () => {
    const created = await t.api.post("/api/keys", { name: "a2a-inject-only", scopes: ["inject"] });
    expect(created.status).toBe(201);
    const injectOnly = created.body.key as string;
    const refused = await rawRpc(
      t.url,
      injectOnly,
      "message/send",
      legacyMessage("list-capabilities"),
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "missing_scope", details: { scope: "read" } });
    expect(
      (
        await t.client.execute("select count(*) as n from a2a_tasks where api_key_id = ?", [
          created.body.apiKey.id,
        ])
      ).rows[0]!.n,
    ).toBe(0);

    const readOnly = await t.api.post("/api/keys", { name: "a2a-read-only", scopes: ["read"] });
    const rejected = await rawRpc(
      t.url,
      readOnly.body.key,
      "message/send",
      legacyMessage("needs-execute"),
    );
    expect(rejected.body.result.status.state).toBe("rejected");
    expect(rejected.body.result.status.message.parts[0].text).toContain('"execute"');
    const allowed = await rawRpc(t.url, keyA.key, "message/send", legacyMessage("needs-execute"));
    expect(allowed.body.result.status.state).toBe("completed");
  });
});
