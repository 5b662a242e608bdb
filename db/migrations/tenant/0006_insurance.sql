CREATE TABLE `estimate_book_adjustment_logs` (
	`id` text PRIMARY KEY NOT NULL,
	`estimate_book_id` text NOT NULL,
	`estimate_book_run_id` text,
	`procedure_code_id` text NOT NULL,
	`change_reason` text NOT NULL,
	`description` text NOT NULL,
	`new_allowed_fee_cents` integer NOT NULL,
	`previous_allowed_fee_cents` integer,
	`delta_allowed_fee_cents` integer,
	`insurance_claim_procedure_identifier` integer,
	`insurance_procedure_estimate_id` integer,
	`created_at` text NOT NULL,
	FOREIGN KEY (`estimate_book_id`) REFERENCES `estimate_books`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`estimate_book_run_id`) REFERENCES `estimate_book_runs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`procedure_code_id`) REFERENCES `procedure_codes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `estimate_book_adjustment_logs_book_idx` ON `estimate_book_adjustment_logs` (`estimate_book_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `estimate_book_allowed_fees` (
	`id` text PRIMARY KEY NOT NULL,
	`estimate_book_id` text NOT NULL,
	`procedure_code_id` text NOT NULL,
	`estimate_book_rule_step_id` text,
	`estimate_book_run_id` text,
	`allowed_fee_cents` integer NOT NULL,
	`computed_at` text NOT NULL,
	`confidence` real,
	`expires_at` text,
	`group_number` text,
	`resolution_scope_type` text NOT NULL,
	`resolution_scope_identifier` integer,
	`sample_count` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`estimate_book_id`) REFERENCES `estimate_books`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`procedure_code_id`) REFERENCES `procedure_codes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`estimate_book_run_id`) REFERENCES `estimate_book_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `estimate_book_allowed_fees_code_idx` ON `estimate_book_allowed_fees` (`estimate_book_id`,`procedure_code_id`,`computed_at`);--> statement-breakpoint
CREATE TABLE `insurance_benefit_adjustments` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_plan_id` text NOT NULL,
	`benefit_year_start` text NOT NULL,
	`deductible_met_cents` integer DEFAULT 0 NOT NULL,
	`annual_max_used_cents` integer DEFAULT 0 NOT NULL,
	`note` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_plan_id`) REFERENCES `patient_plans`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `insurance_benefit_adjustments_plan_idx` ON `insurance_benefit_adjustments` (`patient_plan_id`,`benefit_year_start`);--> statement-breakpoint
CREATE TABLE `estimate_book_evidence` (
	`id` text PRIMARY KEY NOT NULL,
	`estimate_book_id` text NOT NULL,
	`procedure_code_id` text NOT NULL,
	`carrier_id` text,
	`group_number` text,
	`fee_billed_cents` integer NOT NULL,
	`allowed_cents` integer,
	`paid_cents` integer NOT NULL,
	`date_paid` text NOT NULL,
	`source_ref` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`estimate_book_id`) REFERENCES `estimate_books`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`procedure_code_id`) REFERENCES `procedure_codes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`carrier_id`) REFERENCES `insurance_carriers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `estimate_book_evidence_book_idx` ON `estimate_book_evidence` (`estimate_book_id`,`date_paid`);--> statement-breakpoint
CREATE TABLE `coverage_categories` (
	`id` text PRIMARY KEY NOT NULL,
	`category_name` text NOT NULL,
	`description` text,
	`is_hidden` integer DEFAULT false NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`system_key` text,
	`item_order` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `coverage_categories_order_idx` ON `coverage_categories` (`item_order`);--> statement-breakpoint
CREATE TABLE `coverage_spans` (
	`id` text PRIMARY KEY NOT NULL,
	`category_id` text NOT NULL,
	`from_code` text NOT NULL,
	`to_code` text NOT NULL,
	`is_exclusion` integer DEFAULT false NOT NULL,
	`item_order` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`category_id`) REFERENCES `coverage_categories`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `coverage_spans_category_idx` ON `coverage_spans` (`category_id`,`item_order`);--> statement-breakpoint
CREATE TABLE `estimate_book_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`estimate_book_id` text NOT NULL,
	`status` text DEFAULT 'completed' NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`estimate_book_id`) REFERENCES `estimate_books`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `estimate_books` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`rule_type` text NOT NULL,
	`scope_type` text DEFAULT 'tenant' NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`allowed_fee_schedule_id` text,
	`carrier_id` text,
	`insurance_plan_id` text,
	`claim_match_method` text,
	`exclude_over_ucr` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`carrier_id`) REFERENCES `insurance_carriers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`insurance_plan_id`) REFERENCES `insurance_plans`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `estimate_books_scope_idx` ON `estimate_books` (`scope_type`,`status`);--> statement-breakpoint
CREATE TABLE `insurance_carriers` (
	`id` text PRIMARY KEY NOT NULL,
	`carrier_name` text NOT NULL,
	`carrier_group_name` text,
	`address_line1` text,
	`address_line2` text,
	`city` text,
	`state` text,
	`zip_code` text,
	`phone` text,
	`notes` text,
	`electronic_id` text,
	`electronic_filing_type` text DEFAULT 'send_electronically' NOT NULL,
	`era_automation_override` text,
	`cob_insurance_paid_behavior_override` text,
	`trust_level` text DEFAULT 'standard' NOT NULL,
	`is_hidden` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `insurance_carriers_name_idx` ON `insurance_carriers` (`carrier_name`);--> statement-breakpoint
CREATE INDEX `insurance_carriers_electronic_id_idx` ON `insurance_carriers` (`electronic_id`);--> statement-breakpoint
CREATE INDEX `insurance_carriers_group_idx` ON `insurance_carriers` (`carrier_group_name`);--> statement-breakpoint
CREATE TABLE `insurance_drafts` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`subscriber_patient_id` text,
	`matched_carrier_id` text,
	`matched_plan_id` text,
	`converted_subscription_id` text,
	`converted_patient_plan_id` text,
	`raw_data_json` text NOT NULL,
	`review_status` text DEFAULT 'pending' NOT NULL,
	`match_attempted` integer DEFAULT false NOT NULL,
	`candidates` text,
	`conversion_error` text,
	`reject_reason` text,
	`reviewed_at` text,
	`reviewed_by_user_uuid` text,
	`source_ref` text,
	`source_system` text,
	`import_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`subscriber_patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`matched_carrier_id`) REFERENCES `insurance_carriers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`matched_plan_id`) REFERENCES `insurance_plans`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`converted_subscription_id`) REFERENCES `insurance_subscriptions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`converted_patient_plan_id`) REFERENCES `patient_plans`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `insurance_drafts_patient_idx` ON `insurance_drafts` (`patient_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `insurance_drafts_status_idx` ON `insurance_drafts` (`review_status`,`created_at`);--> statement-breakpoint
CREATE INDEX `insurance_drafts_unmatched_idx` ON `insurance_drafts` (`match_attempted`) WHERE match_attempted = 0;--> statement-breakpoint
CREATE TABLE `insurance_plans` (
	`id` text PRIMARY KEY NOT NULL,
	`carrier_id` text NOT NULL,
	`plan_name` text,
	`group_name` text,
	`group_number` text,
	`plan_type` text DEFAULT 'ppo' NOT NULL,
	`estimate_book_id` text,
	`cob_method` text DEFAULT 'standard' NOT NULL,
	`benefit_year_start_month` integer DEFAULT 1 NOT NULL,
	`annual_max_cents` integer,
	`deductible_individual_cents` integer DEFAULT 0 NOT NULL,
	`deductible_family_cents` integer,
	`deductible_category_ids` text NOT NULL,
	`coverage` text NOT NULL,
	`frequency_limits` text NOT NULL,
	`waiting_periods` text NOT NULL,
	`age_limits` text NOT NULL,
	`downgrades` text NOT NULL,
	`copays` text NOT NULL,
	`is_hidden` integer DEFAULT false NOT NULL,
	`notes` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`carrier_id`) REFERENCES `insurance_carriers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `insurance_plans_carrier_idx` ON `insurance_plans` (`carrier_id`);--> statement-breakpoint
CREATE INDEX `insurance_plans_group_number_idx` ON `insurance_plans` (`group_number`);--> statement-breakpoint
CREATE TABLE `insurance_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`plan_id` text NOT NULL,
	`subscriber_patient_id` text NOT NULL,
	`subscriber_id` text,
	`effective_date` text,
	`termination_date` text,
	`notes` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`plan_id`) REFERENCES `insurance_plans`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`subscriber_patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `insurance_subscriptions_subscriber_idx` ON `insurance_subscriptions` (`subscriber_patient_id`);--> statement-breakpoint
CREATE INDEX `insurance_subscriptions_plan_idx` ON `insurance_subscriptions` (`plan_id`);--> statement-breakpoint
CREATE TABLE `patient_plans` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`relationship` text DEFAULT 'self' NOT NULL,
	`ordinal` integer NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`subscription_id`) REFERENCES `insurance_subscriptions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `patient_plans_patient_idx` ON `patient_plans` (`patient_id`,`ordinal`);--> statement-breakpoint
CREATE UNIQUE INDEX `patient_plans_live_ordinal_idx` ON `patient_plans` (`patient_id`,`ordinal`) WHERE deleted_at IS NULL AND is_active = 1;--> statement-breakpoint
CREATE TABLE `procedure_estimates` (
	`id` text PRIMARY KEY NOT NULL,
	`charted_procedure_id` text NOT NULL,
	`treatment_plan_id` text,
	`patient_id` text NOT NULL,
	`patient_plan_id` text NOT NULL,
	`ordinal` integer NOT NULL,
	`estimate_status` text DEFAULT 'estimate' NOT NULL,
	`fee_billed_cents` integer NOT NULL,
	`allowed_fee_cents` integer,
	`ppo_fee_cents` integer,
	`write_off_cents` integer NOT NULL,
	`deductible_applied_cents` integer NOT NULL,
	`coverage_percent` integer NOT NULL,
	`base_estimate_cents` integer NOT NULL,
	`insurance_estimate_cents` integer NOT NULL,
	`paid_other_insurance_cents` integer NOT NULL,
	`patient_estimate_cents` integer NOT NULL,
	`copay_cents` integer NOT NULL,
	`is_excluded` integer DEFAULT false NOT NULL,
	`exclusion_reason` text,
	`substitution_code` text,
	`estimate_note` text DEFAULT '' NOT NULL,
	`code_sent` text,
	`date_estimated` text NOT NULL,
	`calculated_at` text,
	`inputs_hash` text,
	`preauth_amount_cents` integer,
	`preauth_date` text,
	`preauth_number` text,
	`allowed_override_cents` integer,
	`copay_override_cents` integer,
	`deductible_override_cents` integer,
	`insurance_estimate_override_cents` integer,
	`percentage_override` integer,
	`write_off_override_cents` integer,
	`detail` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`charted_procedure_id`) REFERENCES `charted_procedures`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`treatment_plan_id`) REFERENCES `treatment_plans`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`patient_plan_id`) REFERENCES `patient_plans`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `procedure_estimates_live_idx` ON `procedure_estimates` (`charted_procedure_id`,`ordinal`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `procedure_estimates_plan_idx` ON `procedure_estimates` (`treatment_plan_id`);--> statement-breakpoint
CREATE INDEX `procedure_estimates_patient_plan_idx` ON `procedure_estimates` (`patient_plan_id`);