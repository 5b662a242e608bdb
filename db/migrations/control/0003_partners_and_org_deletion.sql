CREATE TABLE `partners` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`partner_type` text NOT NULL,
	`status` text NOT NULL,
	`display_name` text,
	`description` text,
	`contact_email` text,
	`contact_name` text,
	`contact_phone` text,
	`extra_data` text NOT NULL,
	`internal_notes` text,
	`logo_url` text,
	`website` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `partners_slug_uq` ON `partners` (`slug`);--> statement-breakpoint
CREATE INDEX `partners_status_idx` ON `partners` (`status`,`name`);--> statement-breakpoint
ALTER TABLE `orgs` ADD `purge_after` text;--> statement-breakpoint
ALTER TABLE `orgs` ADD `purged_at` text;--> statement-breakpoint
CREATE INDEX `orgs_status_purge_idx` ON `orgs` (`status`,`purge_after`);--> statement-breakpoint
ALTER TABLE `users` ADD `external_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `users_external_id_uq` ON `users` (`external_id`);