CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`expires_at` integer,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `skill_executions` (
	`id` text PRIMARY KEY NOT NULL,
	`skill_id` text NOT NULL,
	`skill_name` text NOT NULL,
	`version` text NOT NULL,
	`api_key_id` text,
	`session_id` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`approval` text DEFAULT 'none' NOT NULL,
	`input` text NOT NULL,
	`output` text,
	`error_message` text,
	`error_code` text,
	`duration_ms` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	`timeout_ms` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`skill_id`) REFERENCES `skills`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "skill_executions_status_check" CHECK("skill_executions"."status" IN ('pending','running','success','error','timeout')),
	CONSTRAINT "skill_executions_approval_check" CHECK("skill_executions"."approval" IN ('none','required','approved','rejected','expired'))
);
--> statement-breakpoint
CREATE INDEX `skill_executions_api_key_name_idx` ON `skill_executions` (`api_key_id`,`skill_name`);--> statement-breakpoint
CREATE INDEX `skill_executions_skill_status_created_idx` ON `skill_executions` (`skill_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `skill_executions_api_key_created_idx` ON `skill_executions` (`api_key_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `skill_executions_status_approval_idx` ON `skill_executions` (`status`,`approval`);--> statement-breakpoint
CREATE TABLE `skills` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`version` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`schema` text NOT NULL,
	`handler_code` text NOT NULL,
	`instructions` text,
	`enabled` integer DEFAULT true NOT NULL,
	`mode` text DEFAULT 'on' NOT NULL,
	`policy` text DEFAULT 'auto' NOT NULL,
	`source_provider` text DEFAULT 'local' NOT NULL,
	`source_ref` text,
	`tags` text DEFAULT '[]' NOT NULL,
	`install_count` integer DEFAULT 0 NOT NULL,
	`timeout_ms` integer,
	`api_key_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "skills_mode_check" CHECK("skills"."mode" IN ('on','off','auto')),
	CONSTRAINT "skills_policy_check" CHECK("skills"."policy" IN ('auto','manual','hybrid'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `skills_owner_name_version_unique` ON `skills` (coalesce(`api_key_id`, ''),`name`,`version`);--> statement-breakpoint
CREATE INDEX `skills_api_key_name_idx` ON `skills` (`api_key_id`,`name`);--> statement-breakpoint
CREATE TABLE `workspace_files` (
	`workspace` text NOT NULL,
	`path` text NOT NULL,
	`content` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workspace_files_workspace_path_unique` ON `workspace_files` (`workspace`,`path`);