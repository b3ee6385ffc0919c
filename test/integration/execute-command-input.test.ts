/**
 * `execute_command`'s bounds are checked before anything is written: too many arguments or an
 * overlong command answer 400 `invalid_skill_input` naming the field, and no execution row exists
 * (docs/sandbox.md). The handler is a recording stand-in under the real name, so the test sees
 * whether a call got that far.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_COMMAND_ARGS } from "../../workers/src/skills/builtins/sandbox.js";
import { startTestApp, type TestApp } from "../support/app.js";

let t: TestApp;
let reached = 0;
beforeAll(async () => {
  t = await startTestApp();
  t.services.executor.registerHandler("execute_command", async () => {
    reached++;
    return { exitCode: 0 };
  });
});
afterAll(() => t.close());

const rows = async (apiKeyId: string) =>
  (await t.api.get(`/api/skills/executions?apiKeyId=${apiKeyId}`)).body.data as unknown[];

describe("execute_command input bounds", () => {
  it(`${MAX_COMMAND_ARGS + 1} arguments answer 400 before any row is written`, async () => {
    const key = await t.api.createKey(`args-${Math.random().toString(36).slice(2)}`);
    const before = reached;
    const res = await t.api.as(key.key).post("/api/skills/executions", {
      skillName: "execute_command",
      input: { command: "echo", args: Array.from({ length: MAX_COMMAND_ARGS + 1 }, (_, i) => i) },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_skill_input");
    expect(JSON.stringify(res.body.error.details)).toContain("args");
    expect(reached).toBe(before);
    expect(await rows(key.id)).toEqual([]);
  });

  it("a command over 4096 characters answers 400, nothing written", async () => {
    const key = await t.api.createKey(`cmd-${Math.random().toString(36).slice(2)}`);
    const res = await t.api.as(key.key).post("/api/skills/executions", {
      skillName: "execute_command",
      input: { command: "x".repeat(4097) },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_skill_input");
    expect(await rows(key.id)).toEqual([]);
  });

  it(`exactly ${MAX_COMMAND_ARGS} arguments are accepted and run`, async () => {
    const key = await t.api.createKey(`ok-${Math.random().toString(36).slice(2)}`);
    const before = reached;
    const res = await t.api.as(key.key).post("/api/skills/executions", {
      skillName: "execute_command",
      input: { command: "echo", args: Array.from({ length: MAX_COMMAND_ARGS }, () => "a") },
    });
    expect(res.status).toBe(200);
    expect(res.body.execution.status).toBe("success");
    expect(reached).toBe(before + 1);
  });
});
