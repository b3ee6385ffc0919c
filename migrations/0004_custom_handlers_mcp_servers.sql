CREATE TABLE `mcp_servers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`headers` text DEFAULT '{}' NOT NULL,
	`tools` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`refreshed_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mcp_servers_name_unique` ON `mcp_servers` (`name`);--> statement-breakpoint
ALTER TABLE `skill_executions` ADD `code_sha256` text;--> statement-breakpoint
ALTER TABLE `skills` ADD `handler` text;--> statement-breakpoint
ALTER TABLE `skills` ADD `handler_secret` text;