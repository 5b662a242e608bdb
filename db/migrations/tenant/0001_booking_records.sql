CREATE TABLE `appointment_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`appointment_type_a_id` text NOT NULL,
	`appointment_type_b_id` text NOT NULL,
	`location_id` text,
	`allow_overlap` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`appointment_type_a_id`) REFERENCES `appointment_types`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`appointment_type_b_id`) REFERENCES `appointment_types`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `appointment_rules_pair_idx` ON `appointment_rules` (`appointment_type_a_id`,`appointment_type_b_id`);--> statement-breakpoint
CREATE TABLE `appointment_types` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`duration_minutes` integer NOT NULL,
	`color` text NOT NULL,
	`requires_exam` integer DEFAULT false NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `appointment_types_code_idx` ON `appointment_types` (`code`);--> statement-breakpoint
CREATE TABLE `appointments` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`appointment_type_id` text NOT NULL,
	`location_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`operatory_id` text,
	`status` text DEFAULT 'scheduled' NOT NULL,
	`scheduled_start` text NOT NULL,
	`scheduled_end` text NOT NULL,
	`start_utc` text NOT NULL,
	`end_utc` text NOT NULL,
	`notes` text,
	`status_reason` text,
	`confirmed_at` text,
	`arrived_at` text,
	`completed_at` text,
	`cancelled_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`appointment_type_id`) REFERENCES `appointment_types`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`operatory_id`) REFERENCES `operatories`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `appointments_provider_time_idx` ON `appointments` (`provider_id`,`start_utc`);--> statement-breakpoint
CREATE INDEX `appointments_operatory_time_idx` ON `appointments` (`operatory_id`,`start_utc`);--> statement-breakpoint
CREATE INDEX `appointments_location_time_idx` ON `appointments` (`location_id`,`start_utc`);--> statement-breakpoint
CREATE INDEX `appointments_patient_idx` ON `appointments` (`patient_id`,`start_utc`);--> statement-breakpoint
CREATE TABLE `operatories` (
	`id` text PRIMARY KEY NOT NULL,
	`location_id` text NOT NULL,
	`name` text NOT NULL,
	`abbreviation` text,
	`item_order` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `operatories_location_idx` ON `operatories` (`location_id`);--> statement-breakpoint
CREATE TABLE `patient_tags` (
	`patient_id` text NOT NULL,
	`tag_definition_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`patient_id`, `tag_definition_id`),
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`tag_definition_id`) REFERENCES `tag_definitions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `patient_tags_tag_idx` ON `patient_tags` (`tag_definition_id`);--> statement-breakpoint
CREATE TABLE `patients` (
	`id` text PRIMARY KEY NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`middle_name` text,
	`preferred_name` text,
	`title` text,
	`salutation` text,
	`status` text DEFAULT 'active' NOT NULL,
	`gender` text,
	`marital_status` text,
	`pronoun` text,
	`date_of_birth` text,
	`date_first_visit` text,
	`date_time_deceased` text,
	`chart_number` text,
	`email` text,
	`home_phone` text,
	`mobile_phone` text,
	`work_phone` text,
	`phone_digits` text,
	`address_line1` text,
	`address_line2` text,
	`address_note` text,
	`city` text,
	`state` text,
	`postal_code` text,
	`country` text,
	`preferred_confirmation_method` text,
	`preferred_contact_method` text,
	`preferred_language` text,
	`receives_email` integer DEFAULT false NOT NULL,
	`receives_sms` integer DEFAULT false NOT NULL,
	`ask_to_arrive_early_mins` integer,
	`allergy_review_status` text DEFAULT 'not_reviewed' NOT NULL,
	`appointment_module_note` text,
	`billing_cycle_day` integer,
	`billing_type_id` text,
	`consent_flags` integer DEFAULT 0 NOT NULL,
	`emergency_contact_name` text,
	`emergency_contact_phone` text,
	`employer_id` text,
	`fee_schedule_id` text,
	`location_id` text,
	`primary_provider_id` text,
	`secondary_provider_id` text,
	`responsible_party_id` text,
	`medicaid_id` text,
	`medical_summary` text,
	`medical_urgent_note` text,
	`premedication_required` integer DEFAULT false NOT NULL,
	`smoking_snomed` text,
	`social_security_number` text,
	`treatment_notes` text,
	`latest_vitals_date` text,
	`balance_0_30_cents` integer DEFAULT 0 NOT NULL,
	`balance_31_60_cents` integer DEFAULT 0 NOT NULL,
	`balance_61_90_cents` integer DEFAULT 0 NOT NULL,
	`balance_over_90_cents` integer DEFAULT 0 NOT NULL,
	`estimated_balance_cents` integer DEFAULT 0 NOT NULL,
	`insurance_estimate_cents` integer DEFAULT 0 NOT NULL,
	`payment_plan_due_cents` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `patients_name_idx` ON `patients` (`last_name`,`first_name`);--> statement-breakpoint
CREATE INDEX `patients_first_name_idx` ON `patients` (`first_name`);--> statement-breakpoint
CREATE INDEX `patients_dob_idx` ON `patients` (`date_of_birth`);--> statement-breakpoint
CREATE INDEX `patients_chart_idx` ON `patients` (`chart_number`);--> statement-breakpoint
CREATE INDEX `patients_email_idx` ON `patients` (`email`);--> statement-breakpoint
CREATE INDEX `patients_status_name_idx` ON `patients` (`status`,`last_name`);--> statement-breakpoint
CREATE INDEX `patients_primary_provider_idx` ON `patients` (`primary_provider_id`);--> statement-breakpoint
CREATE INDEX `patients_location_idx` ON `patients` (`location_id`);--> statement-breakpoint
CREATE INDEX `patients_responsible_party_idx` ON `patients` (`responsible_party_id`);--> statement-breakpoint
CREATE INDEX `patients_created_idx` ON `patients` (`created_at`);--> statement-breakpoint
CREATE TABLE `providers` (
	`id` text PRIMARY KEY NOT NULL,
	`abbreviation` text NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`middle_name` text,
	`preferred_name` text,
	`suffix` text,
	`title` text,
	`billing_override_provider_id` text,
	`birthdate` text,
	`custom_id` text,
	`date_term` text,
	`erx_enabled` text,
	`hourly_production_goal_cents` integer,
	`is_hidden` integer DEFAULT false NOT NULL,
	`is_hidden_report` integer DEFAULT false NOT NULL,
	`is_instructor` integer DEFAULT false NOT NULL,
	`is_not_person` integer DEFAULT false NOT NULL,
	`is_secondary` integer DEFAULT false NOT NULL,
	`item_order` integer DEFAULT 0 NOT NULL,
	`medicaid_id` text,
	`national_provider_id` text,
	`outline_color` integer,
	`provider_color` integer,
	`provider_type_id` text,
	`provider_type_name` text,
	`schedule_note` text,
	`sig_on_file` integer DEFAULT false NOT NULL,
	`specialty_id` text,
	`specialty_name` text,
	`ssn_tin` text,
	`status` text DEFAULT 'active' NOT NULL,
	`taxonomy_code_override` text,
	`using_tin` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `providers_name_idx` ON `providers` (`last_name`,`first_name`);--> statement-breakpoint
CREATE INDEX `providers_status_idx` ON `providers` (`status`);--> statement-breakpoint
CREATE TABLE `tag_definitions` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`color` text,
	`description` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
