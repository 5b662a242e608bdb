CREATE TABLE `claim_batches` (
	`id` text PRIMARY KEY NOT NULL,
	`control_number` integer NOT NULL,
	`status` text NOT NULL,
	`claim_ids` text NOT NULL,
	`written_claim_ids` text NOT NULL,
	`errors` text NOT NULL,
	`storage_key` text,
	`file_size` integer,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `claim_batches_control_uq` ON `claim_batches` (`control_number`);--> statement-breakpoint
CREATE TABLE `claim_payment_splits` (
	`id` text PRIMARY KEY NOT NULL,
	`claim_payment_id` text NOT NULL,
	`claim_id` text NOT NULL,
	`claim_procedure_id` text NOT NULL,
	`procedure_id` text NOT NULL,
	`patient_id` text NOT NULL,
	`paid_cents` integer NOT NULL,
	`allowed_cents` integer,
	`write_off_cents` integer NOT NULL,
	`deductible_cents` integer NOT NULL,
	`patient_responsibility_cents` integer NOT NULL,
	`remark_codes` text NOT NULL,
	`payment_entry_id` text,
	`write_off_entry_id` text,
	`reverses_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`claim_payment_id`) REFERENCES `claim_payments`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`claim_id`) REFERENCES `claims`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`claim_procedure_id`) REFERENCES `claim_procedures`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `claim_payment_splits_payment_idx` ON `claim_payment_splits` (`claim_payment_id`);--> statement-breakpoint
CREATE INDEX `claim_payment_splits_procedure_idx` ON `claim_payment_splits` (`claim_procedure_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `claim_payment_splits_once_uq` ON `claim_payment_splits` (`claim_payment_id`,`claim_procedure_id`) WHERE reverses_id IS NULL;--> statement-breakpoint
CREATE TABLE `claim_payments` (
	`id` text PRIMARY KEY NOT NULL,
	`carrier_id` text NOT NULL,
	`payment_date` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`check_number` text,
	`payment_type` text NOT NULL,
	`era_id` text,
	`note` text,
	`status` text NOT NULL,
	`voided_at` text,
	`void_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`carrier_id`) REFERENCES `insurance_carriers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `claim_payments_date_idx` ON `claim_payments` (`payment_date`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `claim_payments_era_uq` ON `claim_payments` (`era_id`) WHERE era_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE `claim_procedures` (
	`id` text PRIMARY KEY NOT NULL,
	`claim_id` text NOT NULL,
	`procedure_id` text NOT NULL,
	`patient_plan_id` text NOT NULL,
	`kind` text NOT NULL,
	`live` integer DEFAULT true NOT NULL,
	`item_order` integer NOT NULL,
	`procedure_code` text NOT NULL,
	`procedure_code_id` text NOT NULL,
	`tooth_number` text,
	`surfaces` text,
	`date_service` text NOT NULL,
	`fee_billed_cents` integer NOT NULL,
	`insurance_estimate_cents` integer NOT NULL,
	`deductible_estimate_cents` integer DEFAULT 0 NOT NULL,
	`write_off_estimate_cents` integer DEFAULT 0 NOT NULL,
	`prior_paid_cents` integer DEFAULT 0 NOT NULL,
	`preauth_estimate_cents` integer,
	`status` text NOT NULL,
	`answered` integer DEFAULT false NOT NULL,
	`paid_cents` integer DEFAULT 0 NOT NULL,
	`write_off_cents` integer DEFAULT 0 NOT NULL,
	`deductible_cents` integer DEFAULT 0 NOT NULL,
	`allowed_cents` integer,
	`remark_codes` text DEFAULT '[]' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`claim_id`) REFERENCES `claims`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`procedure_id`) REFERENCES `charted_procedures`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `claim_procedures_claim_idx` ON `claim_procedures` (`claim_id`,`item_order`);--> statement-breakpoint
CREATE UNIQUE INDEX `claim_procedures_live_uq` ON `claim_procedures` (`procedure_id`,`patient_plan_id`,`kind`) WHERE live = 1;--> statement-breakpoint
CREATE INDEX `claim_procedures_procedure_idx` ON `claim_procedures` (`procedure_id`);--> statement-breakpoint
CREATE TABLE `claims` (
	`id` text PRIMARY KEY NOT NULL,
	`claim_seq` integer NOT NULL,
	`claim_number` text NOT NULL,
	`claim_type` text NOT NULL,
	`status` text NOT NULL,
	`patient_id` text NOT NULL,
	`patient_plan_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`plan_id` text NOT NULL,
	`carrier_id` text NOT NULL,
	`ordinal` integer NOT NULL,
	`treating_provider_id` text,
	`billing_provider_id` text,
	`location_id` text,
	`place_of_service` text NOT NULL,
	`prior_authorization_number` text,
	`note` text,
	`attachment_document_ids` text NOT NULL,
	`date_service` text NOT NULL,
	`date_sent` text,
	`date_received` text,
	`primary_claim_id` text,
	`secondary_ready` integer DEFAULT false NOT NULL,
	`batch_id` text,
	`status_note` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`patient_plan_id`) REFERENCES `patient_plans`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`subscription_id`) REFERENCES `insurance_subscriptions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`plan_id`) REFERENCES `insurance_plans`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`carrier_id`) REFERENCES `insurance_carriers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `claims_number_uq` ON `claims` (`claim_number`);--> statement-breakpoint
CREATE UNIQUE INDEX `claims_seq_uq` ON `claims` (`claim_seq`);--> statement-breakpoint
CREATE INDEX `claims_status_idx` ON `claims` (`status`,`date_sent`);--> statement-breakpoint
CREATE INDEX `claims_patient_idx` ON `claims` (`patient_id`,`date_service`);--> statement-breakpoint
CREATE INDEX `claims_service_idx` ON `claims` (`date_service`,`id`);--> statement-breakpoint
CREATE TABLE `era_claims` (
	`id` text PRIMARY KEY NOT NULL,
	`era_id` text NOT NULL,
	`clp_index` integer NOT NULL,
	`claim_number` text NOT NULL,
	`claim_id` text,
	`match_method` text,
	`status` text NOT NULL,
	`status_code` text NOT NULL,
	`billed_cents` integer NOT NULL,
	`paid_cents` integer NOT NULL,
	`patient_responsibility_cents` integer NOT NULL,
	`patient_name` text,
	`date_service` text,
	`problems` text NOT NULL,
	`clp` text NOT NULL,
	`posted_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`era_id`) REFERENCES `eras`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `era_claims_clp_uq` ON `era_claims` (`era_id`,`clp_index`);--> statement-breakpoint
CREATE INDEX `era_claims_claim_idx` ON `era_claims` (`claim_id`);--> statement-breakpoint
CREATE TABLE `eras` (
	`id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`storage_key` text NOT NULL,
	`file_size` integer NOT NULL,
	`file_name` text,
	`trace_number` text,
	`payer_key` text,
	`payer_name` text,
	`carrier_id` text,
	`payment_date` text,
	`payment_type` text,
	`total_paid_cents` integer,
	`provider_adjustments` text,
	`problems` text NOT NULL,
	`claim_payment_id` text,
	`error` text,
	`posted_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `eras_created_idx` ON `eras` (`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `eras_trace_uq` ON `eras` (`payer_key`,`trace_number`) WHERE status <> 'failed' AND trace_number IS NOT NULL;--> statement-breakpoint
ALTER TABLE `charted_procedures` ADD `has_active_claim` integer DEFAULT false NOT NULL;