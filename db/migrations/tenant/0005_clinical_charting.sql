CREATE TABLE `charted_procedures` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`procedure_code_id` text NOT NULL,
	`procedure_code` text NOT NULL,
	`treatment_area` text NOT NULL,
	`tooth_number` text,
	`surfaces` text,
	`quadrant` text,
	`arch` text,
	`sextant` integer,
	`tooth_range` text,
	`status` text NOT NULL,
	`date_service` text NOT NULL,
	`date_treatment_planned` text,
	`date_completed` text,
	`date_original_prosthetic` text,
	`provider_id` text,
	`location_id` text,
	`appointment_id` text,
	`office_fee_cents` integer NOT NULL,
	`fee_override_cents` integer,
	`billing_order_code` text NOT NULL,
	`do_not_bill_insurance` integer DEFAULT false NOT NULL,
	`is_prosthetic` integer DEFAULT false NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`clinical_note` text,
	`billing_note` text,
	`material_type_code` text,
	`priority_id` text,
	`prognosis_id` text,
	`diagnostic_code_id` text,
	`diagnosis_code_1` text,
	`diagnosis_code_2` text,
	`diagnosis_code_3` text,
	`diagnosis_code_4` text,
	`explosion_code_id` text,
	`bundle_group_id` integer,
	`code_sent` text,
	`item_order` integer,
	`visit_phase_hint` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`procedure_code_id`) REFERENCES `procedure_codes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`appointment_id`) REFERENCES `appointments`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `charted_procedures_patient_date_idx` ON `charted_procedures` (`patient_id`,`date_service`);--> statement-breakpoint
CREATE INDEX `charted_procedures_patient_tooth_idx` ON `charted_procedures` (`patient_id`,`tooth_number`);--> statement-breakpoint
CREATE INDEX `charted_procedures_appointment_idx` ON `charted_procedures` (`appointment_id`);--> statement-breakpoint
CREATE TABLE `procedure_span_members` (
	`id` text PRIMARY KEY NOT NULL,
	`span_id` text NOT NULL,
	`charted_procedure_id` text NOT NULL,
	`role` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`span_id`) REFERENCES `procedure_spans`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`charted_procedure_id`) REFERENCES `charted_procedures`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `procedure_span_members_pair_idx` ON `procedure_span_members` (`span_id`,`charted_procedure_id`);--> statement-breakpoint
CREATE INDEX `procedure_span_members_procedure_idx` ON `procedure_span_members` (`charted_procedure_id`);--> statement-breakpoint
CREATE TABLE `procedure_spans` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`span_definition_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `procedure_spans_patient_idx` ON `procedure_spans` (`patient_id`,`status`);--> statement-breakpoint
CREATE TABLE `treatment_plan_procedures` (
	`id` text PRIMARY KEY NOT NULL,
	`treatment_plan_id` text NOT NULL,
	`charted_procedure_id` text NOT NULL,
	`phase` integer DEFAULT 1 NOT NULL,
	`item_order` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`treatment_plan_id`) REFERENCES `treatment_plans`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`charted_procedure_id`) REFERENCES `charted_procedures`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `treatment_plan_procedures_pair_idx` ON `treatment_plan_procedures` (`treatment_plan_id`,`charted_procedure_id`);--> statement-breakpoint
CREATE INDEX `treatment_plan_procedures_procedure_idx` ON `treatment_plan_procedures` (`charted_procedure_id`);--> statement-breakpoint
CREATE TABLE `treatment_plans` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`name` text NOT NULL,
	`note` text,
	`status` text DEFAULT 'draft' NOT NULL,
	`phases` text NOT NULL,
	`status_changed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `treatment_plans_patient_idx` ON `treatment_plans` (`patient_id`,`status`);--> statement-breakpoint
CREATE TABLE `auto_note_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`is_active` integer DEFAULT true NOT NULL,
	`priority` integer DEFAULT 0 NOT NULL,
	`trigger_event` text NOT NULL,
	`merge_strategy` text NOT NULL,
	`procedure_category` text,
	`procedure_code_pattern` text,
	`location_id` text,
	`provider_id` text,
	`template_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`template_id`) REFERENCES `clinical_note_templates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `auto_note_rules_trigger_idx` ON `auto_note_rules` (`trigger_event`,`is_active`,`priority`);--> statement-breakpoint
CREATE TABLE `clinical_note_addendums` (
	`id` text PRIMARY KEY NOT NULL,
	`note_id` text NOT NULL,
	`content` text NOT NULL,
	`author_id` text NOT NULL,
	`author_name` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`note_id`) REFERENCES `clinical_notes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `clinical_note_addendums_note_idx` ON `clinical_note_addendums` (`note_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `clinical_note_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`body` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `clinical_note_templates_name_idx` ON `clinical_note_templates` (`name`);--> statement-breakpoint
CREATE TABLE `clinical_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`provider_id` text,
	`appointment_id` text,
	`procedure_ids` text NOT NULL,
	`note_type` text NOT NULL,
	`content` text NOT NULL,
	`content_edited` integer DEFAULT false NOT NULL,
	`visit_date` text NOT NULL,
	`case_id` text,
	`status` text DEFAULT 'draft' NOT NULL,
	`signed_at` text,
	`signed_by_id` text,
	`signed_by_name` text,
	`author_id` text,
	`author_name` text,
	`auto_rule_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`auto_rule_id`) REFERENCES `auto_note_rules`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `clinical_notes_patient_date_idx` ON `clinical_notes` (`patient_id`,`visit_date`);--> statement-breakpoint
CREATE INDEX `clinical_notes_provider_date_idx` ON `clinical_notes` (`provider_id`,`visit_date`);--> statement-breakpoint
CREATE INDEX `clinical_notes_appointment_idx` ON `clinical_notes` (`appointment_id`);--> statement-breakpoint
CREATE TABLE `patient_conditions` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`condition_type` text NOT NULL,
	`tooth_number` text,
	`surface` text,
	`severity` text,
	`status` text DEFAULT 'active' NOT NULL,
	`date_identified` text NOT NULL,
	`date_resolved` text,
	`provider_id` text,
	`diagnostic_code_id` text,
	`note` text DEFAULT '' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`diagnostic_code_id`) REFERENCES `definitions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `patient_conditions_patient_date_idx` ON `patient_conditions` (`patient_id`,`date_identified`);--> statement-breakpoint
CREATE INDEX `patient_conditions_patient_tooth_idx` ON `patient_conditions` (`patient_id`,`tooth_number`);--> statement-breakpoint
CREATE TABLE `perio_exams` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`exam_date` text NOT NULL,
	`provider_id` text,
	`note` text DEFAULT '' NOT NULL,
	`teeth` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `perio_exams_patient_date_idx` ON `perio_exams` (`patient_id`,`exam_date`);--> statement-breakpoint
CREATE TABLE `tooth_statuses` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`tooth_number` text NOT NULL,
	`status` text NOT NULL,
	`effective_date` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`source` text NOT NULL,
	`charted_procedure_id` text,
	`ectopic_slot_index` integer,
	`eruption_pct` integer,
	`eruption_stage` text,
	`impaction_angle` text,
	`impaction_depth` text,
	`root_completion` integer,
	`scale_factor` real DEFAULT 1 NOT NULL,
	`transposition_with` text,
	`rotate` real DEFAULT 0 NOT NULL,
	`shift_b` real DEFAULT 0 NOT NULL,
	`shift_m` real DEFAULT 0 NOT NULL,
	`shift_o` real DEFAULT 0 NOT NULL,
	`tip_b` real DEFAULT 0 NOT NULL,
	`tip_m` real DEFAULT 0 NOT NULL,
	`superseded_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tooth_statuses_patient_tooth_idx` ON `tooth_statuses` (`patient_id`,`tooth_number`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `tooth_statuses_current_uq` ON `tooth_statuses` (`patient_id`,`tooth_number`) WHERE superseded_at IS NULL AND deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `tooth_statuses_charted_procedure_idx` ON `tooth_statuses` (`charted_procedure_id`);