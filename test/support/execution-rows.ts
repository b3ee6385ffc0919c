/**
 * Inserts `skill_executions` rows through the execution write path (`ExecutionWrites.insert`),
 * which writes the hourly rollup of an ended row in the same transaction, as the server does.
 * Plain `INSERT`s write no rollup (docs/dashboard.md#hourly-rollups).
 */

import type { Db } from "../../workers/src/db/client.js";
import { ExecutionWrites } from "../../workers/src/db/repositories/execution-writes.js";
import type { ExecutionRow } from "../../workers/src/db/schema.js";

/** The columns a test gives; the others get their empty values. */
export type TestExecutionRow = Pick<
  ExecutionRow,
  "id" | "skillId" | "skillName" | "version" | "status" | "createdAt"
> &
  Partial<ExecutionRow>;

/** Inserts `rows` concurrently (they share batches, as concurrent executions do). */
export async function insertExecutionRows(db: Db, rows: TestExecutionRow[]): Promise<void> {
  const writes = new ExecutionWrites(db);
  await Promise.all(
    rows.map((r) =>
      writes.insert({
        apiKeyId: null,
        sessionId: null,
        approval: "none",
        input: "{}",
        output: null,
        inputTruncated: false,
        outputTruncated: false,
        errorMessage: null,
        errorCode: null,
        durationMs: null,
        attempts: 1,
        attemptLog: null,
        notificationLog: null,
        timeoutMs: null,
        codeSha256: null,
        sandboxHost: null,
        sandboxQueueMs: null,
        sandboxProgramMs: null,
        updatedAt: r.createdAt,
        startedAt: null,
        finishedAt: null,
        ...r,
        requestId: r.requestId ?? null,
      }),
    ),
  );
}
