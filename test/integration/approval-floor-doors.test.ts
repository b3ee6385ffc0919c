/**
 * The policy floors hold on every door a model can reach (docs/policies.md#model-calls-on-every-door):
 * interception, the proxy (an official OpenAI SDK as the client), MCP skill tools and the MCP
 * execute tool (the official MCP client), and an A2A skill that runs a registry skill (the official
 * A2A client). For each door and each floored builtin the answer is the same — `eval_code` waits for
 * approval, `execute_command` is refused — and nothing reaches a handler before an approval.
 *
 * The sandbox handlers are recording stand-ins registered under the real handler names (the
 * sandbox client points at a closed port, only so that the builtins count as available and the
 * proxy injects them); a call that reached one would show in `reached`.
 */

import { TaskState } from "@a2a-js/sdk";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandboxClient } from "../../workers/src/sandbox/client.js";
import { artifactData, connectA2A, sendForTask, skillMessage } from "../support/a2a.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { type ScriptedLlm, startScriptedLlm } from "../support/fakes/llm-script.js";
import { callTool, connectMcp } from "../support/mcp.js";
import { ask } from "../support/proxy-clients.js";
import { textTurn, toolResults, toolTurn } from "../support/proxy-fixtures.js";

type Outcome = "pending_approval" | "refused" | "ran" | "passed_through";
type Floored = "eval_code" | "execute_command";

const INPUTS: Record<Floored, Record<string, unknown>> = {
  eval_code: { language: "python", code: "print(6*7)" },
  execute_command: { command: "id", args: ["-u"] },
};
const EXPECTED: Record<Floored, Outcome> = {
  eval_code: "pending_approval",
  execute_command: "refused",
};

let app: TestApp;
let llm: ScriptedLlm;
/** Handler name and the key it ran for, for every call that reached a stand-in handler. */
const reached: { handler: string; apiKeyId: string | null }[] = [];
/** Upstream requests by the caller whose question caused them ("run <tool> for <key id>"). */
const upstreamBodies = new Map<string, Record<string, unknown>[]>();

beforeAll(async () => {
  llm = await startScriptedLlm((_req, body, n) => {
    const question = String((body.messages as { content?: unknown }[])[0]?.content ?? "");
    const [, tool, caller] = /^run (\w+) for (\S+)$/.exec(question) ?? [];
    upstreamBodies.set(caller!, [...(upstreamBodies.get(caller!) ?? []), body]);
    if (toolResults("openai-chat", body).length === 0)
      return {
        kind: "json",
        body: toolTurn(
          "openai-chat",
          [{ id: "call_1", name: tool!, args: INPUTS[tool as Floored] }],
          n,
        ),
      };
    return { kind: "json", body: textTurn("openai-chat", "done", n) };
  });
  app = await startTestApp({
    env: {
      UPSTREAM_OPENAI_BASE_URL: `${llm.url}/v1`,
      UPSTREAM_OPENAI_API_KEY: "sk-configured-openai",
    },
    deps: {
      sandbox: createSandboxClient({ baseUrl: "http://127.0.0.1:9", secret: "s".repeat(32) }),
    },
  });
  for (const handler of ["eval_code", "execute_command"]) {
    app.services.executor.registerHandler(handler, async (_input, ctx) => {
      reached.push({ handler, apiKeyId: ctx.apiKeyId });
      return { ran: handler };
    });
  }
  // What an embedding application's A2A skill does: run a registry skill the agent names.
  app.a2aSkills.registerA2ASkill({
    id: "run-registry-skill",
    name: "Run a registry skill",
    description: "Runs the registry skill named in the data part with its input",
    tags: ["test"],
    scope: "execute",
    async run(input, ctx) {
      const execution = await ctx.services.executions.run(
        String(input.data.skillName),
        input.data.input ?? {},
        { apiKeyId: ctx.apiKeyId, sessionId: null },
      );
      return { text: `execution ${execution.id}: ${execution.status}`, data: { execution } };
    },
  });
});

afterAll(async () => {
  await app?.close();
  await llm?.close();
});

interface Caller {
  key: string;
  id: string;
}

/** The outcome of a tool result of interception or the proxy, as the model reads it. */
function fromToolResult(r: { status: string; executionId: string | null; error?: string }) {
  if (r.status === "pending_approval" && r.executionId) return "pending_approval";
  if (r.status === "error" && r.executionId === null && /explicit execution/.test(r.error ?? ""))
    return "refused";
  return r.status === "success" ? "ran" : `unexpected ${JSON.stringify(r)}`;
}

const mcpClients: Client[] = [];
afterAll(async () => {
  await Promise.all(mcpClients.map((c) => c.close()));
});
async function mcpFor(caller: Caller): Promise<Client> {
  const client = await connectMcp(app.url, caller.key);
  mcpClients.push(client);
  return client;
}

/** Each door a model can drive, asking it to run `tool` with its input. */
const DOORS: Record<string, (caller: Caller, tool: Floored) => Promise<string>> = {
  async interception(caller, tool) {
    const res = await app.api.as(caller.key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: toolTurn("openai-chat", [{ id: "call_1", name: tool, args: INPUTS[tool] }], 1),
    });
    expect(res.status).toBe(200);
    if (res.body.passThrough.length > 0) return "passed_through";
    return fromToolResult(res.body.toolResults[0]);
  },

  async proxy(caller, tool) {
    const answer = await ask("openai-chat", app.url, caller.key, `run ${tool} for ${caller.id}`);
    if (answer.calls.length > 0) return "passed_through";
    expect(answer.text).toBe("done");
    const bodies = upstreamBodies.get(caller.id) ?? [];
    expect(bodies).toHaveLength(2);
    const [result] = toolResults("openai-chat", bodies[1]!);
    const parsed = JSON.parse(result!.text) as {
      status: string;
      executionId?: string | null;
      error?: string;
    };
    return fromToolResult({ ...parsed, executionId: parsed.executionId ?? null });
  },

  async "MCP skill tool"(caller, tool) {
    const result = await callTool(await mcpFor(caller), tool, INPUTS[tool]);
    const sc = result.structuredContent;
    if (!result.isError && sc.status === "pending_approval" && sc.executionId)
      return "pending_approval";
    if (result.isError && sc.executionId === null && /explicit execution/.test(sc.error))
      return "refused";
    return result.isError ? `unexpected ${JSON.stringify(sc)}` : "ran";
  },

  async "MCP execute tool"(caller, tool) {
    const result = await callTool(await mcpFor(caller), "skillgate_skills_execute", {
      skillName: tool,
      input: INPUTS[tool],
    });
    const sc = result.structuredContent;
    if (
      !result.isError &&
      sc.execution.status === "pending" &&
      sc.execution.approval === "required"
    )
      return "pending_approval";
    if (result.isError && sc.error.code === "model_call_refused") return "refused";
    return result.isError ? `unexpected ${JSON.stringify(sc)}` : "ran";
  },

  async "A2A skill"(caller, tool) {
    const client = await connectA2A(app.url, caller.key);
    const task = await sendForTask(
      client,
      skillMessage("run-registry-skill", { data: { skillName: tool, input: INPUTS[tool] } }),
    );
    if (task.status?.state === TaskState.TASK_STATE_COMPLETED) {
      const { execution } = artifactData(task);
      if (execution.status === "pending" && execution.approval === "required")
        return "pending_approval";
      return "ran";
    }
    const message = JSON.stringify(task.status?.message ?? null);
    if (task.status?.state === TaskState.TASK_STATE_FAILED && /explicit execution/.test(message))
      return "refused";
    return `unexpected ${message}`;
  },
};

const ROWS = Object.keys(DOORS).flatMap((door) =>
  (Object.keys(EXPECTED) as Floored[]).map((tool) => ({ door, tool, expected: EXPECTED[tool] })),
);

describe("policy floors on every door a model can reach", () => {
  it.each(ROWS)("$door × $tool → $expected, and nothing runs", async ({ door, tool, expected }) => {
    const caller = await app.api.createKey(`floors-${Math.random().toString(36).slice(2)}`);
    const outcome = await DOORS[door]!(caller, tool);
    expect(outcome).toBe(expected);
    expect(reached.filter((r) => r.apiKeyId === caller.id)).toEqual([]);
    const rows = (await app.api.get(`/api/skills/executions?apiKeyId=${caller.id}`)).body.data;
    if (expected === "refused") expect(rows).toEqual([]);
    else {
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        skillName: tool,
        status: "pending",
        approval: "required",
        attempts: 0,
      });
    }
  });

  it("a model cannot approve its own pending call through a model door", async () => {
    const caller = await app.api.createKey(`floors-approve-${Math.random().toString(36).slice(2)}`);
    app.a2aSkills.get("approve-by-agent") ??
      app.a2aSkills.registerA2ASkill({
        id: "approve-by-agent",
        name: "Approve",
        description: "Approves an execution by id",
        tags: ["test"],
        scope: "execute",
        async run(input, ctx) {
          const principal = {
            kind: "key" as const,
            apiKeyId: String(ctx.apiKeyId),
            name: "agent",
            scopes: ["execute" as const],
          };
          const id = String(input.data.id);
          const via =
            input.data.via === "operator" ? ctx.services.operator : ctx.services.executions;
          const done = await via.approve(principal, id);
          return { text: done.status };
        },
      });
    const pending = await DOORS["MCP execute tool"]!(caller, "eval_code");
    expect(pending).toBe("pending_approval");
    const [row] = (await app.api.get(`/api/skills/executions?apiKeyId=${caller.id}`)).body.data;
    const client = await connectA2A(app.url, caller.key);
    for (const via of ["executions", "operator"]) {
      const task = await sendForTask(
        client,
        skillMessage("approve-by-agent", { data: { id: row.id, via } }),
      );
      expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(JSON.stringify(task.status?.message)).toContain("A model cannot approve");
    }
    expect(reached.filter((r) => r.apiKeyId === caller.id)).toEqual([]);
    const after = await app.api.get(`/api/skills/executions/${row.id}`);
    expect(after.body.execution).toMatchObject({ status: "pending", approval: "required" });
    // The operator's approval over REST runs it, once.
    const approved = await app.api.post(`/api/skills/executions/${row.id}/approve`);
    expect(approved.body.execution.status).toBe("success");
    expect(reached.filter((r) => r.apiKeyId === caller.id)).toEqual([
      { handler: "eval_code", apiKeyId: caller.id },
    ]);
  });
});
