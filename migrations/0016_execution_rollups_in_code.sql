-- The hourly rollups are written by the code that writes skill_executions, in the same
-- transaction (workers/src/db/repositories/execution-rollups.ts), instead of by triggers. The
-- rollups the triggers kept are equal to the rows already, so they stay as they are; the rollup
-- group index stays too (the code reads the least and greatest duration of a rollup through it).
DROP TRIGGER IF EXISTS `skill_executions_rollup_insert`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `skill_executions_rollup_update`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `skill_executions_rollup_delete`;
