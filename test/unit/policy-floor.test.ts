/**
 * Policy floors of the handlers that run commands or code: the policy a model's call gets, the
 * skills injection offers, and what interception does with a call, by handler name.
 */
import { describe, expect, it } from "vitest";
import { injectSkills } from "../../workers/src/skills/injection/injection.js";
import {
  FLOOR_POLICY_NOTE,
  type InterceptionExecutor,
  interceptToolCalls,
  MANUAL_POLICY_ERROR,
} from "../../workers/src/skills/interception/interception.js";
import {
  COMMAND_HANDLER_FLOORS,
  modelPolicy,
  NO_POLICY_FLOORS,
  type PolicyFloors,
  policyFloorsFor,
  raisedByFloor,
} from "../../workers/src/skills/interception/policy-floor.js";
import type { ExecutionPolicy, Skill } from "../../workers/src/skills/types.js";
import { execution, skill, snapshot } from "./injection-fixtures.js";

/** A Chat Completions response whose one choice calls `names`, in order. */
const chatCalling = (...names: string[]) => ({
  id: "chatcmpl-floor",
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
        tool_calls: names.map((name, i) => ({
          id: `call_${i}`,
          type: "function",
          function: { name, arguments: '{"query":"x"}' },
        })),
      },
    },
  ],
});

describe("modelPolicy", () => {
  const cases: Array<[handler: string, stored: ExecutionPolicy, floored: ExecutionPolicy]> = [
    ["execute_command", "auto", "manual"],
    ["execute_command", "hybrid", "manual"],
    ["execute_command", "manual", "manual"],
    ["eval_code", "auto", "hybrid"],
    ["eval_code", "hybrid", "hybrid"],
    ["eval_code", "manual", "manual"],
    ["echo-handler", "auto", "auto"],
    ["http_request", "hybrid", "hybrid"],
    ["file_write", "manual", "manual"],
  ];
  it.each(cases)("handler %s stored %s → %s under the product's floors", (h, stored, floored) => {
    const s = { handlerCode: h, policy: stored };
    expect(modelPolicy(s)).toBe(floored);
    expect(modelPolicy(s, COMMAND_HANDLER_FLOORS)).toBe(floored);
    expect(raisedByFloor(s)).toBe(floored !== stored);
    expect(modelPolicy(s, NO_POLICY_FLOORS)).toBe(stored);
  });

  it("follows the handler, not the skill's name", () => {
    expect(modelPolicy({ handlerCode: "noop", policy: "auto" })).toBe("auto");
    expect(modelPolicy(skill({ name: "shell-helper", handlerCode: "execute_command" }))).toBe(
      "manual",
    );
  });

  it("the operator setting alone lifts the floors", () => {
    expect(policyFloorsFor(false)).toBe(COMMAND_HANDLER_FLOORS);
    expect(policyFloorsFor(true)).toBe(NO_POLICY_FLOORS);
    expect([...COMMAND_HANDLER_FLOORS]).toEqual([
      ["execute_command", "manual"],
      ["eval_code", "hybrid"],
    ]);
  });
});

const shell = skill({ name: "shellRunner", handlerCode: "execute_command", policy: "auto" });
const coder = skill({ name: "codeRunner", handlerCode: "eval_code", policy: "auto" });
const plain = skill({ name: "plainEcho", handlerCode: "echo-handler", policy: "auto" });

function recordingExecutor() {
  const calls: Array<{ skill: string; approval: boolean }> = [];
  const executor: InterceptionExecutor = {
    execute: async (s, input) => {
      calls.push({ skill: s.name, approval: false });
      return execution(s, { input, output: { ran: s.name } });
    },
    requestApproval: async (s, input) => {
      calls.push({ skill: s.name, approval: true });
      return execution(s, { status: "pending", approval: "required", input });
    },
  };
  return { executor, calls };
}

const intercept = (skills: Skill[], names: string[], policyFloors?: PolicyFloors) => {
  const rec = recordingExecutor();
  return interceptToolCalls({
    format: "openai-chat",
    response: chatCalling(...names),
    snapshot: snapshot(skills),
    apiKeyId: null,
    executor: rec.executor,
    ...(policyFloors ? { policyFloors } : {}),
  }).then((r) => ({ ...r, calls: rec.calls }));
};

describe("interception applies the floors", () => {
  it("a custom skill over execute_command with policy auto is refused; nothing runs", async () => {
    const r = await intercept(
      [shell, coder, plain],
      ["shellRunner_v1_0_0", "codeRunner_v1_0_0", "plainEcho_v1_0_0"],
    );
    expect(r.toolResults.map((t) => [t.skill, t.status, t.executionId === null])).toEqual([
      ["shellRunner@1.0.0", "error", true],
      ["codeRunner@1.0.0", "pending_approval", false],
      ["plainEcho@1.0.0", "success", false],
    ]);
    expect(r.toolResults[0]!.error).toBe(
      `Skill shellRunner@1.0.0 ${MANUAL_POLICY_ERROR}; ${FLOOR_POLICY_NOTE}`,
    );
    expect(r.calls).toEqual([
      { skill: "codeRunner", approval: true },
      { skill: "plainEcho", approval: false },
    ]);
  });

  it("a skill that is manual by its own policy gets the plain manual error", async () => {
    const manual = skill({ name: "ownManual", handlerCode: "execute_command", policy: "manual" });
    const r = await intercept([manual], ["ownManual_v1_0_0"]);
    expect(r.toolResults[0]!.error).toBe(`Skill ownManual@1.0.0 ${MANUAL_POLICY_ERROR}`);
    expect(r.calls).toEqual([]);
  });

  it("without floors the stored policies apply", async () => {
    const r = await intercept(
      [shell, coder],
      ["shellRunner_v1_0_0", "codeRunner_v1_0_0"],
      NO_POLICY_FLOORS,
    );
    expect(r.toolResults.map((t) => t.status)).toEqual(["success", "success"]);
    expect(r.calls).toEqual([
      { skill: "shellRunner", approval: false },
      { skill: "codeRunner", approval: false },
    ]);
  });
});

describe("injection applies the floors", () => {
  const request = { model: "gpt-4.1", messages: [{ role: "user", content: "run a shell script" }] };
  const autoShell = skill({
    name: "autoShell",
    handlerCode: "execute_command",
    policy: "auto",
    mode: "auto",
    tags: ["run"],
  });
  const inject = (policyFloors?: PolicyFloors, include?: string[]) =>
    injectSkills({
      format: "openai-chat",
      request,
      snapshot: snapshot([shell, coder, plain, autoShell]),
      apiKeyId: null,
      include,
      ...(policyFloors ? { policyFloors } : {}),
    }).injected.map((i) => i.name);

  it("never offers a skill whose handler's floor is manual, even when included by name", () => {
    const names = inject(undefined, ["shellRunner", "autoShell@1.0.0"]);
    expect(names).toContain("codeRunner");
    expect(names).toContain("plainEcho");
    expect(names).not.toContain("shellRunner");
    expect(names).not.toContain("autoShell");
  });

  it("offers them when the operator lifted the floors", () => {
    const names = inject(NO_POLICY_FLOORS);
    expect(names).toEqual(expect.arrayContaining(["shellRunner", "autoShell"]));
  });
});
