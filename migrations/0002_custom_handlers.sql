ALTER TABLE `skill_executions` ADD `code_sha256` text;--> statement-breakpoint
ALTER TABLE `skills` ADD `handler` text;--> statement-breakpoint
ALTER TABLE `skills` ADD `handler_secret` text;