ALTER TABLE `skill_executions` ADD `input_truncated` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `skill_executions` ADD `output_truncated` integer DEFAULT false NOT NULL;