CREATE TABLE `api_key_limits` (
	`api_key_id` text PRIMARY KEY NOT NULL,
	`limits` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_key_usage` (
	`api_key_id` text NOT NULL,
	`day` text NOT NULL,
	`executions` integer DEFAULT 0 NOT NULL,
	`sandbox_runs` integer DEFAULT 0 NOT NULL,
	`sandbox_ms` integer DEFAULT 0 NOT NULL,
	`reserved_ms` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`api_key_id`, `day`)
);
