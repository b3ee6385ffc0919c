/**
 * Builders of skills, snapshots and executions for the injection / interception unit tests.
 * Not a test file itself.
 */
import type { SkillSource } from "../../workers/src/skills/skill-lookup.js";
import type { Execution, Skill } from "../../workers/src/skills/types.js";

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
    instructions: null,
    enabled: true,
    mode: "on",
    policy: "auto",
    sourceProvider: "local",
    sourceRef: null,
    tags: [],
    installCount: 0,
    timeoutMs: null,
    apiKeyId: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...partial,
  };
}

/** A snapshot view with a fresh generation. */
export function snapshot(skills: Skill[]): SkillSource {
  return { generation: nextGeneration++, skills };
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
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
    ...fields,
  };
}
