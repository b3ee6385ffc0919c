CREATE INDEX `skill_executions_created_idx` ON `skill_executions` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `skill_executions_status_created_idx` ON `skill_executions` (`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `skill_executions_skill_created_idx` ON `skill_executions` (`skill_name`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `skill_executions_chart_idx` ON `skill_executions` (`created_at`,`status`,`skill_name`,`duration_ms`,`api_key_id`);