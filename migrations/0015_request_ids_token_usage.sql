CREATE TABLE `api_key_token_budgets` (
	`api_key_id` text PRIMARY KEY NOT NULL,
	`daily_tokens` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_key_token_usage` (
	`api_key_id` text NOT NULL,
	`day` text NOT NULL,
	`input_tokens` integer DEFAULT 0 NOT NULL,
	`output_tokens` integer DEFAULT 0 NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`rounds` integer DEFAULT 0 NOT NULL,
	`owned_calls` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`api_key_id`, `day`)
);
--> statement-breakpoint
ALTER TABLE `skill_executions` ADD `request_id` text;