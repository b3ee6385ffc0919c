CREATE TABLE `skill_learning` (
	`scope` text NOT NULL,
	`skill_id` text NOT NULL,
	`feature` integer NOT NULL,
	`weight` real NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`scope`, `skill_id`, `feature`),
	FOREIGN KEY (`skill_id`) REFERENCES `skills`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `skill_learning_skill_idx` ON `skill_learning` (`skill_id`);--> statement-breakpoint
CREATE INDEX `skill_learning_updated_idx` ON `skill_learning` (`updated_at`);