CREATE TABLE `a2a_tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`api_key_id` text,
	`context_id` text NOT NULL,
	`state` text NOT NULL,
	`task` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "a2a_tasks_state_check" CHECK("a2a_tasks"."state" IN ('submitted','working','input-required','auth-required','completed','failed','canceled','rejected','unspecified'))
);
--> statement-breakpoint
CREATE INDEX `a2a_tasks_api_key_updated_idx` ON `a2a_tasks` (`api_key_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `a2a_tasks_api_key_context_idx` ON `a2a_tasks` (`api_key_id`,`context_id`);--> statement-breakpoint
CREATE TABLE `upstream_calls` (
	`id` text PRIMARY KEY NOT NULL,
	`api_key_id` text,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`status` text NOT NULL,
	`error_class` text,
	`latency_ms` integer NOT NULL,
	`task` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "upstream_calls_status_check" CHECK("upstream_calls"."status" IN ('success','error'))
);
--> statement-breakpoint
CREATE INDEX `upstream_calls_api_key_created_idx` ON `upstream_calls` (`api_key_id`,`created_at`);