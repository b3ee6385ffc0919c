/**
 * A HandlerContext for calling builtin handlers directly in unit tests (the executor builds the
 * real one): caller identity, an abort signal, the skill and a time budget.
 */
import { expect } from "vitest";
import { ExecutionFailure } from "../../../workers/src/errors.js";
import type { HandlerContext, Skill } from "../../../workers/src/skills/types.js";

/** A skill record with defaults; override any field. */
export function fakeSkill(overrides: Partial<Skill> = {}): Skill {
  const now = new Date(0).toISOString();
  return {
    id: "skill-1",
    name: "test-skill",
    version: "1.0.0",
    description: "",
    schema: { input: { type: "object", properties: {} } },
    handlerCode: "test",
    handler: null,
    instructions: null,
    enabled: true,
    mode: "on",
    policy: "auto",
    sourceProvider: "builtin",
    sourceRef: null,
    tags: [],
    installCount: 0,
    timeoutMs: null,
    autoUpgrade: null,
    apiKeyId: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

/** A context for `apiKeyId` with a fresh signal and a 30 s budget. */
export function fakeContext(
  apiKeyId: string | null,
  overrides: Partial<HandlerContext> = {},
): HandlerContext {
  return {
    apiKeyId,
    sessionId: null,
    executionId: "execution-1",
    signal: new AbortController().signal,
    skill: fakeSkill(),
    attempt: 1,
    timeoutMs: 30_000,
    ...overrides,
  };
}

/** Awaits `p`, asserts that it rejected with an {@link ExecutionFailure}, and returns it. */
export async function expectFailure(p: Promise<unknown>): Promise<ExecutionFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExecutionFailure);
  return err as ExecutionFailure;
}
