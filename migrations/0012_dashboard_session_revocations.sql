CREATE TABLE `dashboard_session_revocations` (
	`session_id` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
