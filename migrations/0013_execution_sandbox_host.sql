ALTER TABLE `skill_executions` ADD `sandbox_host` text;--> statement-breakpoint
ALTER TABLE `skill_executions` ADD `sandbox_queue_ms` integer;--> statement-breakpoint
ALTER TABLE `skill_executions` ADD `sandbox_program_ms` integer;