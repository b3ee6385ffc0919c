/**
 * The executor policies of a model's call (workers/src/skills/interception/model-call.ts), the one function
 * interception and MCP skill tools share: each rule in order, with an executor double that
 * records what reached it.
 */
import { describe, expect, it } from "vitest";
import { DisabledError, InvalidInputError } from "../../workers/src/errors.js";
import {
  CUSTOM_DISABLED_ERROR,
  MANUAL_POLICY_ERROR,
  type ModelCallExecutor,
  runModelCall,
} from "../../workers/src/skills/interception/model-call.js";
import type { Skill } from "../../workers/src/skills/types.js";
import { execution, skill } from "./injection-fixtures.js";

function recorder(fail?: Error) {
  const calls: { kind: "execute" | "approval"; input: unknown }[] = [];
  const executor: ModelCallExecutor = {
    async execute(s, input) {
      calls.push({ kind: "execute", input });
      if (fail) throw fail;
      return execution(s, { input, output: { echoed: input } });
    },
    async requestApproval(s, input) {
      calls.push({ kind: "approval", input });
      return execution(s, { status: "pending", approval: "required", input });
    },
  };
  return { executor, calls };
}

const ctx = { apiKeyId: "key-a", sessionId: null };
const run = (s: Skill, args: unknown, executor: ModelCallExecutor, extra = {}) =>
  runModelCall(s, args, { executor, ctx, ...extra });

describe("runModelCall", () => {
  it("runs an auto skill and returns the execution's output", async () => {
    const r = recorder();
    const out = await run(skill({ name: "echo" }), { query: "x" }, r.executor);
    expect(out).toMatchObject({ status: "success", output: { echoed: { query: "x" } } });
    expect(out.executionId).toMatch(/^ex-/);
    expect(r.calls).toEqual([{ kind: "execute", input: { query: "x" } }]);
  });

  it("refuses unparsable arguments, inactive, custom-when-off and manual skills without reaching the executor", async () => {
    const r = recorder();
    const cases: [Skill, Record<string, unknown>, string][] = [
      [skill({ name: "a" }), { inputError: "arguments are not JSON" }, "arguments are not JSON"],
      [skill({ name: "b", mode: "off", enabled: false }), {}, "is disabled"],
      [skill({ name: "c", enabled: false }), {}, "is disabled"],
      [skill({ name: "d" }), { customSkillExecutionEnabled: false }, CUSTOM_DISABLED_ERROR],
      [skill({ name: "e", policy: "manual" }), {}, MANUAL_POLICY_ERROR],
    ];
    for (const [s, extra, message] of cases) {
      const out = await run(s, { query: "x" }, r.executor, extra);
      expect(out.status).toBe("error");
      expect(out.error).toContain(message);
      expect(out.executionId).toBeNull();
    }
    expect(r.calls).toEqual([]);
  });

  it("lets a builtin run when custom skills are off", async () => {
    const r = recorder();
    const builtin = skill({ name: "web_search", sourceProvider: "builtin" });
    const out = await run(builtin, { query: "x" }, r.executor, {
      customSkillExecutionEnabled: false,
    });
    expect(out.status).toBe("success");
  });

  it("records a hybrid call as awaiting approval", async () => {
    const r = recorder();
    const out = await run(skill({ name: "h", policy: "hybrid" }), { query: "x" }, r.executor);
    expect(out).toMatchObject({ status: "pending_approval" });
    expect(out.executionId).toMatch(/^ex-/);
    expect(r.calls).toEqual([{ kind: "approval", input: { query: "x" } }]);
  });

  it("maps provider-safe argument names back to the skill's own before execution", async () => {
    const r = recorder();
    const s = skill({
      name: "pager",
      schema: { input: { type: "object", properties: { "page[size]": { type: "integer" } } } },
    });
    await run(s, { page_size: 10 }, r.executor);
    expect(r.calls[0]!.input).toEqual({ "page[size]": 10 });
  });

  it("turns the executor's errors into error results", async () => {
    for (const err of [
      new InvalidInputError("Invalid input: query (required)"),
      new DisabledError("Skills execution is disabled (skillsEnabled = false)", "skills_disabled"),
    ]) {
      const out = await run(skill({ name: "z" }), {}, recorder(err).executor);
      expect(out).toEqual({ status: "error", error: err.message, executionId: null });
    }
    const crash = await run(skill({ name: "z" }), {}, recorder(new Error("boom")).executor);
    expect(crash.error).toBe("Skill execution failed: boom");
  });
});
