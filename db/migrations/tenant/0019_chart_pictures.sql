CREATE TABLE `odontogram_settings` (
	`id` text PRIMARY KEY NOT NULL,
	`tooth_numbering` text DEFAULT 'universal' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `treatment_plan_presentations` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`treatment_plan_id` text NOT NULL,
	`document_id` text NOT NULL,
	`signature_id` text NOT NULL,
	`figures` text NOT NULL,
	`sha256` text NOT NULL,
	`page_count` integer NOT NULL,
	`presented_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`treatment_plan_id`) REFERENCES `treatment_plans`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `treatment_plan_presentations_plan_idx` ON `treatment_plan_presentations` (`treatment_plan_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `treatment_plan_presentations_document_idx` ON `treatment_plan_presentations` (`document_id`);