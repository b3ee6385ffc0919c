/**
 * Builders of skills, snapshots and executions for the injection / interception unit tests.
 * Not a test file itself.
 */
import { InjectionIndexCache } from "../../workers/src/skills/injection/index-cache.js";
import type { InterceptionExecutor } from "../../workers/src/skills/interception/interception.js";
import type { SkillSource } from "../../workers/src/skills/registry/tool-resolver.js";
import type { CallerContext, Execution, Skill } from "../../workers/src/skills/types.js";

let nextId = 1;
let nextGeneration = 1_000_000;

/** A registry skill with sensible defaults (mode `on`, policy `auto`, global). */
export function skill(partial: Partial<Skill> & { name: string }): Skill {
  const id = partial.id ?? `sk-${nextId++}`;
  return {
    id,
    version: "1.0.0",
    description: "",
    schema: {
      input: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    },
    handlerCode: "noop",
    handler: null,
    instructions: null,
    enabled: true,
    mode: "on",
    policy: "auto",
    sourceProvider: "local",
    sourceRef: null,
    tags: [],
    installCount: 0,
    timeoutMs: null,
    autoUpgrade: null,
    apiKeyId: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...partial,
  };
}

/** The injection index cache the fixture snapshots share (as one registry's snapshots do). */
export const fixtureIndexCache = new InjectionIndexCache();

/** A snapshot view with a fresh generation. */
export function snapshot(skills: Skill[]): SkillSource {
  return { generation: nextGeneration++, skills, indexCache: fixtureIndexCache };
}

/** A finished execution of `s` with `status` and `output`. */
export function execution(s: Skill, fields: Partial<Execution> = {}): Execution {
  return {
    id: `ex-${nextId++}`,
    skillId: s.id,
    skillName: s.name,
    version: s.version,
    apiKeyId: s.apiKeyId,
    sessionId: null,
    status: "success",
    approval: "none",
    input: {},
    output: null,
    inputTruncated: false,
    outputTruncated: false,
    errorMessage: null,
    errorCode: null,
    durationMs: 1,
    attempts: 1,
    attemptLog: [],
    notifications: [],
    codeSha256: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...fields,
  };
}

/** How the executor double answers a call (default: success with `{ ran, input }`). */
export type Behaviour = (s: Skill, input: unknown, ctx: CallerContext) => Promise<Execution>;

/** Executor double: records calls and the highest number of calls in flight at once. */
export function fakeExecutor(behaviour?: Behaviour) {
  const calls: { skill: string; input: unknown; ctx: CallerContext; approval: boolean }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const run = async (s: Skill, input: unknown, ctx: CallerContext, approval: boolean) => {
    calls.push({ skill: `${s.name}@${s.version}`, input, ctx, approval });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await new Promise((r) => setTimeout(r, 20));
      if (approval) return execution(s, { status: "pending", approval: "required", input });
      return behaviour
        ? await behaviour(s, input, ctx)
        : execution(s, { input, output: { ran: `${s.name}@${s.version}`, input } });
    } finally {
      inFlight--;
    }
  };
  const executor: InterceptionExecutor = {
    execute: (s, input, ctx) => run(s, input, ctx, false),
    requestApproval: (s, input, ctx) => run(s, input, ctx, true),
  };
  return { executor, calls, maxInFlight: () => maxInFlight };
}
