CREATE TABLE `payment_plans` (
	`id` text PRIMARY KEY NOT NULL,
	`guarantor_id` text NOT NULL,
	`patient_id` text NOT NULL,
	`principal_cents` integer NOT NULL,
	`down_payment_cents` integer DEFAULT 0 NOT NULL,
	`apr_bps` integer DEFAULT 0 NOT NULL,
	`frequency` text NOT NULL,
	`installment_amount_cents` integer NOT NULL,
	`installment_count` integer NOT NULL,
	`start_date` text NOT NULL,
	`note` text,
	`status` text NOT NULL,
	`closed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`guarantor_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payment_plans_guarantor_idx` ON `payment_plans` (`guarantor_id`);--> statement-breakpoint
CREATE INDEX `payment_plans_status_idx` ON `payment_plans` (`status`);--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`payment_type_id` text NOT NULL,
	`payment_date` text NOT NULL,
	`check_number` text,
	`note` text,
	`location_id` text,
	`status` text NOT NULL,
	`refunded_cents` integer DEFAULT 0 NOT NULL,
	`voided_at` text,
	`void_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payments_date_idx` ON `payments` (`payment_date`,`id`);--> statement-breakpoint
CREATE INDEX `payments_patient_idx` ON `payments` (`patient_id`,`payment_date`);--> statement-breakpoint
CREATE TABLE `statement_batches` (
	`id` text PRIMARY KEY NOT NULL,
	`min_balance_cents` integer DEFAULT 0 NOT NULL,
	`billing_type_ids` text,
	`skip_if_sent_within_days` integer NOT NULL,
	`mode` text NOT NULL,
	`status` text NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	`done` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `statements` (
	`id` text PRIMARY KEY NOT NULL,
	`guarantor_id` text NOT NULL,
	`date_from` text NOT NULL,
	`date_to` text NOT NULL,
	`mode` text NOT NULL,
	`note` text,
	`status` text NOT NULL,
	`batch_id` text,
	`document_id` text,
	`amount_due_cents` integer,
	`due_date` text,
	`sent_at` text,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`guarantor_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`batch_id`) REFERENCES `statement_batches`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `statements_guarantor_idx` ON `statements` (`guarantor_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `statements_batch_idx` ON `statements` (`batch_id`) WHERE batch_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE `fee_schedules` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`schedule_type` text NOT NULL,
	`is_hidden` integer DEFAULT false NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`copy_status` text,
	`copy_total` integer,
	`copy_done` integer,
	`copy_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fee_schedules_name_uq` ON `fee_schedules` (`name`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `fee_schedules_default_uq` ON `fee_schedules` (`is_default`) WHERE is_default = 1 AND deleted_at IS NULL;--> statement-breakpoint
CREATE TABLE `fees` (
	`id` text PRIMARY KEY NOT NULL,
	`fee_schedule_id` text NOT NULL,
	`procedure_code_id` text NOT NULL,
	`location_id` text,
	`amount_cents` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`fee_schedule_id`) REFERENCES `fee_schedules`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`procedure_code_id`) REFERENCES `procedure_codes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fees_schedule_code_uq` ON `fees` (`fee_schedule_id`,`procedure_code_id`) WHERE deleted_at IS NULL AND location_id IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `fees_schedule_code_location_uq` ON `fees` (`fee_schedule_id`,`procedure_code_id`,`location_id`) WHERE deleted_at IS NULL AND location_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `fees_code_idx` ON `fees` (`procedure_code_id`);--> statement-breakpoint
ALTER TABLE `charted_procedures` ADD `fee_schedule_id` text;--> statement-breakpoint
ALTER TABLE `insurance_plans` ADD `fee_schedule_id` text;--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `source` text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `payer` text DEFAULT 'patient' NOT NULL;--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `provider_id` text;--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `location_id` text;--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `procedure_id` text;--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `payment_id` text;--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `adjustment_type_id` text;--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `payment_plan_id` text;--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `claim_id` text;--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `reverses_id` text;--> statement-breakpoint
CREATE INDEX `ledger_entries_date_idx` ON `ledger_entries` (`entry_date`,`provider_id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_procedure_idx` ON `ledger_entries` (`procedure_id`) WHERE procedure_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `ledger_entries_payment_idx` ON `ledger_entries` (`payment_id`) WHERE payment_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_entries_procedure_charge_uq` ON `ledger_entries` (`procedure_id`) WHERE source = 'procedure' AND entry_type = 'charge';--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_entries_plan_installment_uq` ON `ledger_entries` (`payment_plan_id`,`entry_date`) WHERE source = 'payment_plan' AND entry_type = 'charge';--> statement-breakpoint
ALTER TABLE `locations` ADD `fee_schedule_id` text;--> statement-breakpoint
ALTER TABLE `providers` ADD `fee_schedule_id` text;