DROP INDEX `skill_executions_api_key_created_idx`;--> statement-breakpoint
DROP INDEX `skill_executions_skill_created_idx`;--> statement-breakpoint
CREATE INDEX `skill_executions_api_key_created_id_idx` ON `skill_executions` (`api_key_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `skill_executions_api_key_status_created_idx` ON `skill_executions` (`api_key_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `skill_executions_updated_idx` ON `skill_executions` (`updated_at`);--> statement-breakpoint
CREATE INDEX `skill_executions_skill_created_idx` ON `skill_executions` (`skill_name`,`created_at`,`id`,`status`,`duration_ms`,`api_key_id`);