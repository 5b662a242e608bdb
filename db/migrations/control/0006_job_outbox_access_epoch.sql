CREATE TABLE `access_epoch` (
	`id` integer PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `job_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text,
	`name` text NOT NULL,
	`payload` text NOT NULL,
	`actor` text,
	`request_id` text,
	`singleton_key` text,
	`start_after_seconds` integer,
	`created_at` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text
);
--> statement-breakpoint
CREATE INDEX `job_outbox_created_idx` ON `job_outbox` (`created_at`);--> statement-breakpoint
INSERT INTO `access_epoch` (`id`, `version`) VALUES (1, 1);
