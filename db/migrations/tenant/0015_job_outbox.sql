CREATE TABLE `job_outbox` (
	`id` text PRIMARY KEY NOT NULL,
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
CREATE INDEX `job_outbox_created_idx` ON `job_outbox` (`created_at`);