CREATE TABLE `smart_list_members` (
	`list_id` text NOT NULL,
	`patient_id` text NOT NULL,
	`added_at` text NOT NULL,
	PRIMARY KEY(`list_id`, `patient_id`),
	FOREIGN KEY (`list_id`) REFERENCES `smart_lists`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `smart_list_members_patient_idx` ON `smart_list_members` (`patient_id`);--> statement-breakpoint
CREATE TABLE `smart_lists` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`list_type` text NOT NULL,
	`scope` text NOT NULL,
	`owner_user_id` text NOT NULL,
	`owner_name` text,
	`scope_location_id` text,
	`description` text,
	`filter_definition` text,
	`is_pinned` integer DEFAULT false NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL,
	`tags` text NOT NULL,
	`preset_key` text,
	`last_executed_at` text,
	`last_result_count` integer,
	`source_version` integer,
	`needs_review` integer DEFAULT false NOT NULL,
	`review_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`scope_location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `smart_lists_owner_idx` ON `smart_lists` (`owner_user_id`);--> statement-breakpoint
CREATE INDEX `smart_lists_scope_idx` ON `smart_lists` (`scope`,`scope_location_id`);