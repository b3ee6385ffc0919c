ALTER TABLE `api_keys` ADD `approval_webhook_url` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `approval_webhook_secret` text;--> statement-breakpoint
ALTER TABLE `skill_executions` ADD `attempt_log` text;--> statement-breakpoint
ALTER TABLE `skill_executions` ADD `notification_log` text;--> statement-breakpoint
ALTER TABLE `skills` ADD `auto_upgrade` integer;