/**
 * The WHERE clauses of `skill_executions` queries (docs/execution.md#history): the filters of the
 * execution list and count, and of the deletion of finished executions. Both name a key (null =
 * management's own executions) and a skill as `name` or `name@version` the same way.
 */
import { and, eq, gte, inArray, isNull, lt, type SQL } from "drizzle-orm";
import {
  type ExecutionDeleteFilter,
  type ExecutionFilter,
  FINISHED_STATUSES,
} from "../../skills/execution/execution-repository.js";
import { skillExecutions } from "../schema.js";

/** Conditions for a key filter: null = no key, undefined = any key. */
function keyConditions(apiKeyId: string | null | undefined): SQL[] {
  if (apiKeyId === null) return [isNull(skillExecutions.apiKeyId)];
  return apiKeyId === undefined ? [] : [eq(skillExecutions.apiKeyId, apiKeyId)];
}

/** Conditions for a skill filter: `name`, or `name@version` (an exact version). */
function skillConditions(skill: string | undefined): SQL[] {
  if (!skill) return [];
  const at = skill.indexOf("@");
  if (at < 0) return [eq(skillExecutions.skillName, skill)];
  return [
    eq(skillExecutions.skillName, skill.slice(0, at)),
    eq(skillExecutions.version, skill.slice(at + 1)),
  ];
}

/** The WHERE of an execution list or count; undefined when the filter is empty. */
export function executionWhere(filter: ExecutionFilter): SQL | undefined {
  const conds: SQL[] = keyConditions(filter.apiKeyId);
  if (filter.status) conds.push(eq(skillExecutions.status, filter.status));
  if (filter.sessionId) conds.push(eq(skillExecutions.sessionId, filter.sessionId));
  if (filter.approval) conds.push(eq(skillExecutions.approval, filter.approval));
  if (filter.since !== undefined) conds.push(gte(skillExecutions.createdAt, filter.since));
  if (filter.until !== undefined) conds.push(lt(skillExecutions.createdAt, filter.until));
  conds.push(...skillConditions(filter.skill));
  return conds.length ? and(...conds) : undefined;
}

/** Finished statuses only (`success`, `error`, `timeout`): what a deletion may remove. */
export const finishedOnly: SQL = inArray(skillExecutions.status, [...FINISHED_STATUSES]);

/** The WHERE of a deletion of finished executions: finished, and the filter's range, key, skill. */
export function deleteWhere(filter: ExecutionDeleteFilter): SQL {
  const conds: SQL[] = [finishedOnly];
  if (filter.before !== undefined) conds.push(lt(skillExecutions.createdAt, filter.before));
  if (filter.after !== undefined) conds.push(gte(skillExecutions.createdAt, filter.after));
  conds.push(...keyConditions(filter.apiKeyId), ...skillConditions(filter.skill));
  return and(...conds)!;
}
