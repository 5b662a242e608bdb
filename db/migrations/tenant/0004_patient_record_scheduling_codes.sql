CREATE TABLE `auto_code_families` (
	`id` text PRIMARY KEY NOT NULL,
	`family_name` text NOT NULL,
	`display_name` text NOT NULL,
	`description` text,
	`base_procedure_code` text,
	`is_active` integer DEFAULT true NOT NULL,
	`selection_type` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `auto_code_families_name_uq` ON `auto_code_families` (lower("family_name")) WHERE "auto_code_families"."deleted_at" IS NULL;--> statement-breakpoint
CREATE TABLE `auto_code_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`family_id` text NOT NULL,
	`conditions` text NOT NULL,
	`priority` integer DEFAULT 0 NOT NULL,
	`procedure_code` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`family_id`) REFERENCES `auto_code_families`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `auto_code_rules_family_idx` ON `auto_code_rules` (`family_id`,`priority`);--> statement-breakpoint
CREATE TABLE `explosion_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`conditions` text NOT NULL,
	`entries` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `explosion_codes_name_idx` ON `explosion_codes` (`name`);--> statement-breakpoint
CREATE TABLE `icd_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`description` text NOT NULL,
	`category` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `icd_codes_code_idx` ON `icd_codes` (`code`);--> statement-breakpoint
CREATE INDEX `icd_codes_category_idx` ON `icd_codes` (`category`,`code`);--> statement-breakpoint
CREATE TABLE `procedure_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`short_name` text NOT NULL,
	`description` text NOT NULL,
	`category` text NOT NULL,
	`code_type` text NOT NULL,
	`code_in_claims` text,
	`default_billing_order` text NOT NULL,
	`default_fee_cents` integer DEFAULT 0 NOT NULL,
	`service_type` text NOT NULL,
	`treatment_area` text NOT NULL,
	`apply_sales_tax` integer DEFAULT false NOT NULL,
	`icd_code_mandatory` integer DEFAULT false NOT NULL,
	`is_ortho` integer DEFAULT false NOT NULL,
	`provider_mandatory` integer DEFAULT false NOT NULL,
	`smart_code_logic` integer DEFAULT false NOT NULL,
	`under_eighteen_only` integer DEFAULT false NOT NULL,
	`effective_date` text,
	`termination_date` text,
	`label` text,
	`provider_type` text,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `procedure_codes_code_live_idx` ON `procedure_codes` (`code`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `procedure_codes_category_idx` ON `procedure_codes` (`category`,`code`);--> statement-breakpoint
CREATE TABLE `communication_logs` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`communicated_at` text NOT NULL,
	`mode` text NOT NULL,
	`direction` text NOT NULL,
	`communication_source` text DEFAULT 'user' NOT NULL,
	`subject` text,
	`note` text NOT NULL,
	`user_id` text,
	`user_name` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `communication_logs_patient_time_idx` ON `communication_logs` (`patient_id`,`communicated_at`);--> statement-breakpoint
CREATE TABLE `patient_field_definitions` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`field_type` text NOT NULL,
	`pick_list_options` text,
	`is_required` integer DEFAULT false NOT NULL,
	`item_order` integer DEFAULT 0 NOT NULL,
	`description` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `patient_field_definitions_order_idx` ON `patient_field_definitions` (`item_order`,`name`);--> statement-breakpoint
CREATE TABLE `patient_field_values` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`field_definition_id` text NOT NULL,
	`value` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`field_definition_id`) REFERENCES `patient_field_definitions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `patient_field_values_patient_def_idx` ON `patient_field_values` (`patient_id`,`field_definition_id`);--> statement-breakpoint
CREATE TABLE `patient_duplicates` (
	`patient_id` text NOT NULL,
	`duplicate_id` text NOT NULL,
	`reasons` text NOT NULL,
	`score` integer NOT NULL,
	PRIMARY KEY(`patient_id`, `duplicate_id`),
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`duplicate_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `patient_duplicates_duplicate_idx` ON `patient_duplicates` (`duplicate_id`);--> statement-breakpoint
CREATE TABLE `ledger_aging` (
	`patient_id` text PRIMARY KEY NOT NULL,
	`next_change_on` text NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ledger_aging_next_idx` ON `ledger_aging` (`next_change_on`);--> statement-breakpoint
CREATE TABLE `ledger_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`entry_type` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`entry_date` text NOT NULL,
	`description` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ledger_entries_patient_date_idx` ON `ledger_entries` (`patient_id`,`entry_date`,`id`);--> statement-breakpoint
CREATE TABLE `patient_alerts` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`category` text DEFAULT 'medical' NOT NULL,
	`severity` text DEFAULT 'medium' NOT NULL,
	`scope` text DEFAULT 'patient' NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `patient_alerts_patient_idx` ON `patient_alerts` (`patient_id`,`status`);--> statement-breakpoint
CREATE TABLE `patient_allergies` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`allergen` text NOT NULL,
	`allergen_category` text DEFAULT 'other' NOT NULL,
	`reaction` text,
	`severity` text,
	`is_active` integer DEFAULT true NOT NULL,
	`onset_date` text,
	`note` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `patient_allergies_patient_idx` ON `patient_allergies` (`patient_id`,`is_active`);--> statement-breakpoint
CREATE TABLE `patient_diseases` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`disease_name` text NOT NULL,
	`icd_code` text,
	`snomed_code` text,
	`problem_status` text DEFAULT 'active' NOT NULL,
	`date_start` text,
	`date_stop` text,
	`note` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `patient_diseases_patient_idx` ON `patient_diseases` (`patient_id`,`problem_status`);--> statement-breakpoint
CREATE TABLE `patient_medications` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`medication_definition_id` text,
	`med_descript` text,
	`provider_id` text,
	`dosage` text,
	`frequency` text,
	`route` text,
	`rx_cui` text,
	`date_start` text,
	`date_stop` text,
	`discontinuation_reason` text,
	`patient_note` text,
	`is_cpoe` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `patient_medications_patient_idx` ON `patient_medications` (`patient_id`,`status`);--> statement-breakpoint
CREATE TABLE `interaction_modes` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`cursor_icon` text,
	`default_tool` text NOT NULL,
	`selection_type` text NOT NULL,
	`allowed_scopes` text NOT NULL,
	`display_order` integer DEFAULT 0 NOT NULL,
	`is_system` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `interaction_modes_code_live_idx` ON `interaction_modes` (`code`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `interaction_modes_order_idx` ON `interaction_modes` (`display_order`);--> statement-breakpoint
CREATE TABLE `odontogram_hotkeys` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_type` text NOT NULL,
	`owner_user_id` text,
	`chart_profile_id` text,
	`owner_key` text NOT NULL,
	`key_combo` text NOT NULL,
	`action` text NOT NULL,
	`action_context` text NOT NULL,
	`display_order` integer DEFAULT 0 NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `odontogram_hotkeys_owner_combo_live_idx` ON `odontogram_hotkeys` (`owner_key`,`key_combo`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `odontogram_hotkeys_order_idx` ON `odontogram_hotkeys` (`display_order`);--> statement-breakpoint
CREATE TABLE `odontogram_macros` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`owner_type` text NOT NULL,
	`owner_user_id` text,
	`chart_profile_id` text,
	`owner_key` text NOT NULL,
	`actions` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `odontogram_macros_owner_name_live_idx` ON `odontogram_macros` (`owner_key`,lower(name)) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE TABLE `provider_identities` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`id_number` text NOT NULL,
	`payor_id` text NOT NULL,
	`supplemental_id_type` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `provider_identities_provider_idx` ON `provider_identities` (`provider_id`);--> statement-breakpoint
CREATE TABLE `provider_location_overrides` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`location_id` text NOT NULL,
	`dea_number` text,
	`state_license` text,
	`state_rx_id` text,
	`state_where_licensed` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `provider_location_overrides_provider_idx` ON `provider_location_overrides` (`provider_id`,`location_id`);--> statement-breakpoint
CREATE TABLE `provider_prescription_access` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`national_provider_id` text NOT NULL,
	`erx_status` text,
	`erx_type` text,
	`is_epcs` integer DEFAULT false NOT NULL,
	`is_identity_proofed` integer DEFAULT false NOT NULL,
	`user_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `provider_prescription_access_provider_idx` ON `provider_prescription_access` (`provider_id`);--> statement-breakpoint
CREATE TABLE `referral_attributions` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`attribution_role` text DEFAULT 'primary' NOT NULL,
	`provider_id` text,
	`referral_partner_id` text,
	`referral_source_id` text,
	`referring_patient_id` text,
	`source_note` text,
	`attributed_at` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`referral_partner_id`) REFERENCES `referral_partners`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`referral_source_id`) REFERENCES `referral_sources`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`referring_patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `referral_attributions_patient_idx` ON `referral_attributions` (`patient_id`,`attributed_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `referral_attributions_one_primary_uq` ON `referral_attributions` (`patient_id`) WHERE attribution_role = 'primary' AND deleted_at IS NULL;--> statement-breakpoint
CREATE TABLE `referral_partners` (
	`id` text PRIMARY KEY NOT NULL,
	`contact_type` text DEFAULT 'other' NOT NULL,
	`first_name` text,
	`last_name` text,
	`practice_name` text,
	`specialty` text,
	`npi` text,
	`email` text,
	`phone` text,
	`fax` text,
	`address_line1` text,
	`address_line2` text,
	`city` text,
	`state` text,
	`postal_code` text,
	`country` text DEFAULT 'US' NOT NULL,
	`accepts_ereferral` integer DEFAULT false NOT NULL,
	`ereferral_endpoint` text,
	`preferred_contact_method` text,
	`is_active` integer DEFAULT true NOT NULL,
	`notes` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `referral_partners_npi_idx` ON `referral_partners` (`npi`);--> statement-breakpoint
CREATE TABLE `referral_sources` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`source_type` text DEFAULT 'other' NOT NULL,
	`description` text,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE TABLE `patient_relationships` (
	`id` text PRIMARY KEY NOT NULL,
	`from_patient_id` text NOT NULL,
	`to_patient_id` text NOT NULL,
	`relationship_type` text NOT NULL,
	`is_guardian` integer DEFAULT false NOT NULL,
	`note` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`from_patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`to_patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `patient_relationships_from_idx` ON `patient_relationships` (`from_patient_id`);--> statement-breakpoint
CREATE INDEX `patient_relationships_to_idx` ON `patient_relationships` (`to_patient_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `patient_relationships_active_uq` ON `patient_relationships` (`from_patient_id`,`to_patient_id`,`relationship_type`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE TABLE `flow_statuses` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`color` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`item_order` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `flow_statuses_slug_live_idx` ON `flow_statuses` (`slug`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `flow_statuses_order_idx` ON `flow_statuses` (`item_order`);--> statement-breakpoint
CREATE TABLE `patient_scheduling_preferences` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`preferred_provider_id` text,
	`preferred_operatory_id` text,
	`preferred_days` text NOT NULL,
	`preferred_time_start` text,
	`preferred_time_end` text,
	`preferred_contact_method` text,
	`notes` text DEFAULT '' NOT NULL,
	`learned_from_history` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`preferred_provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`preferred_operatory_id`) REFERENCES `operatories`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `patient_scheduling_preferences_patient_idx` ON `patient_scheduling_preferences` (`patient_id`);--> statement-breakpoint
CREATE TABLE `schedule_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`location_id` text NOT NULL,
	`note_date` text NOT NULL,
	`note` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `schedule_notes_location_date_idx` ON `schedule_notes` (`location_id`,`note_date`);--> statement-breakpoint
CREATE INDEX `schedule_notes_date_idx` ON `schedule_notes` (`note_date`);--> statement-breakpoint
CREATE TABLE `schedule_view_defaults` (
	`user_id` text NOT NULL,
	`location_id` text NOT NULL,
	`view_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `location_id`),
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`view_id`) REFERENCES `schedule_views`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `schedule_view_defaults_view_idx` ON `schedule_view_defaults` (`view_id`);--> statement-breakpoint
CREATE TABLE `schedule_view_shortcuts` (
	`user_id` text NOT NULL,
	`keyboard_shortcut` integer NOT NULL,
	`view_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `keyboard_shortcut`),
	FOREIGN KEY (`view_id`) REFERENCES `schedule_views`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `schedule_view_shortcuts_user_view_idx` ON `schedule_view_shortcuts` (`user_id`,`view_id`);--> statement-breakpoint
CREATE INDEX `schedule_view_shortcuts_view_idx` ON `schedule_view_shortcuts` (`view_id`);--> statement-breakpoint
CREATE TABLE `schedule_views` (
	`id` text PRIMARY KEY NOT NULL,
	`location_id` text NOT NULL,
	`owner_user_id` text NOT NULL,
	`name` text NOT NULL,
	`view_type` text NOT NULL,
	`visibility` text NOT NULL,
	`min_operatory_width_px` integer DEFAULT 0 NOT NULL,
	`operatory_ids` text NOT NULL,
	`provider_ids` text NOT NULL,
	`privacy_mode` integer DEFAULT false NOT NULL,
	`show_business_days_only` integer DEFAULT false NOT NULL,
	`show_missed_appointments` integer DEFAULT false NOT NULL,
	`show_production` integer DEFAULT false NOT NULL,
	`show_provider_bars` integer DEFAULT true NOT NULL,
	`start_time` text NOT NULL,
	`time_increment` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `schedule_views_location_idx` ON `schedule_views` (`location_id`);--> statement-breakpoint
CREATE INDEX `schedule_views_owner_idx` ON `schedule_views` (`owner_user_id`);--> statement-breakpoint
CREATE TABLE `blockouts` (
	`id` text PRIMARY KEY NOT NULL,
	`location_id` text NOT NULL,
	`operatory_id` text,
	`provider_id` text,
	`blockout_type_id` text NOT NULL,
	`start` text NOT NULL,
	`end` text NOT NULL,
	`start_utc` text NOT NULL,
	`end_utc` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`operatory_id`) REFERENCES `operatories`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`blockout_type_id`) REFERENCES `definitions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `blockouts_location_time_idx` ON `blockouts` (`location_id`,`start_utc`);--> statement-breakpoint
CREATE INDEX `blockouts_provider_time_idx` ON `blockouts` (`provider_id`,`start_utc`);--> statement-breakpoint
CREATE TABLE `production_goals` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`location_id` text NOT NULL,
	`goal_date` text NOT NULL,
	`goal_cents` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `production_goals_day_idx` ON `production_goals` (`provider_id`,`location_id`,`goal_date`);--> statement-breakpoint
CREATE INDEX `production_goals_location_date_idx` ON `production_goals` (`location_id`,`goal_date`);--> statement-breakpoint
CREATE TABLE `provider_schedules` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`location_id` text NOT NULL,
	`operatory_id` text,
	`weekday` integer NOT NULL,
	`start_time` text NOT NULL,
	`end_time` text NOT NULL,
	`effective_from` text,
	`effective_to` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`operatory_id`) REFERENCES `operatories`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `provider_schedules_location_idx` ON `provider_schedules` (`location_id`,`weekday`);--> statement-breakpoint
CREATE INDEX `provider_schedules_provider_idx` ON `provider_schedules` (`provider_id`,`weekday`);--> statement-breakpoint
CREATE TABLE `schedule_overrides` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`location_id` text NOT NULL,
	`operatory_id` text,
	`override_date` text NOT NULL,
	`start_time` text,
	`end_time` text,
	`is_unavailable` integer DEFAULT false NOT NULL,
	`override_reason` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`location_id`) REFERENCES `locations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`operatory_id`) REFERENCES `operatories`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `schedule_overrides_day_live_idx` ON `schedule_overrides` (`provider_id`,`location_id`,`override_date`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `schedule_overrides_location_date_idx` ON `schedule_overrides` (`location_id`,`override_date`);--> statement-breakpoint
CREATE TABLE `applied_seeds` (
	`name` text PRIMARY KEY NOT NULL,
	`applied_at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `appointment_types` ADD `default_fee_cents` integer;--> statement-breakpoint
ALTER TABLE `appointments` ADD `broken_at` text;--> statement-breakpoint
ALTER TABLE `appointments` ADD `is_asap` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `appointments` ADD `confirmation_status` text DEFAULT 'unconfirmed' NOT NULL;--> statement-breakpoint
ALTER TABLE `appointments` ADD `confirmation_method` text;--> statement-breakpoint
ALTER TABLE `appointments` ADD `confirmation_recorded_at` text;--> statement-breakpoint
ALTER TABLE `appointments` ADD `seated_at` text;--> statement-breakpoint
ALTER TABLE `appointments` ADD `dismissed_at` text;--> statement-breakpoint
ALTER TABLE `appointments` ADD `fee_cents` integer;--> statement-breakpoint
CREATE INDEX `appointments_status_time_idx` ON `appointments` (`status`,`start_utc`);--> statement-breakpoint
CREATE INDEX `appointments_asap_idx` ON `appointments` (`is_asap`,`start_utc`);