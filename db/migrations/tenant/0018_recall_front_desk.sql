CREATE TABLE `unscheduled_treatment_totals` (
	`patient_id` text PRIMARY KEY NOT NULL,
	`total_cents` integer NOT NULL,
	`procedure_count` integer NOT NULL,
	`oldest_planned` text NOT NULL,
	`location_id` text,
	`callable` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `unscheduled_treatment_totals_amount_idx` ON `unscheduled_treatment_totals` (`callable`,"total_cents" DESC,`patient_id`);--> statement-breakpoint
CREATE INDEX `unscheduled_treatment_totals_oldest_idx` ON `unscheduled_treatment_totals` (`callable`,`oldest_planned`,`patient_id`);--> statement-breakpoint
CREATE TABLE `patient_recalls` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`recall_type_id` text NOT NULL,
	`interval_override` text,
	`date_due_override` text,
	`note` text DEFAULT '' NOT NULL,
	`is_disabled` integer DEFAULT false NOT NULL,
	`disable_until_date` text,
	`disable_until_balance_cents` integer,
	`recall_status_id` text,
	`date_previous` text,
	`date_due` text,
	`date_scheduled` text,
	`scheduled_appointment_id` text,
	`status` text DEFAULT 'due' NOT NULL,
	`computed_at` text,
	`patient_active` integer DEFAULT true NOT NULL,
	`patient_location_id` text,
	`patient_primary_provider_id` text,
	`patient_secondary_provider_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`recall_type_id`) REFERENCES `recall_types`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`recall_status_id`) REFERENCES `definitions`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`scheduled_appointment_id`) REFERENCES `appointments`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `patient_recalls_patient_type_live_idx` ON `patient_recalls` (`patient_id`,`recall_type_id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `patient_recalls_due_idx` ON `patient_recalls` (`date_due`,`patient_active`,`status`,`recall_type_id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `patient_recalls_type_due_idx` ON `patient_recalls` (`recall_type_id`,`date_due`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE TABLE `recall_types` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`interval_months` integer DEFAULT 0 NOT NULL,
	`interval_weeks` integer DEFAULT 0 NOT NULL,
	`interval_days` integer DEFAULT 0 NOT NULL,
	`trigger_procedure_code_ids` text NOT NULL,
	`default_appointment_type_id` text,
	`time_pattern` text,
	`is_perio` integer DEFAULT false NOT NULL,
	`seed_key` text,
	`archived_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`default_appointment_type_id`) REFERENCES `appointment_types`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `recall_types_name_idx` ON `recall_types` (`name`);--> statement-breakpoint
CREATE TABLE `schedule_template_applications` (
	`id` text PRIMARY KEY NOT NULL,
	`template_id` text NOT NULL,
	`template_version` integer NOT NULL,
	`date_from` text NOT NULL,
	`date_to` text NOT NULL,
	`replace_existing` integer DEFAULT false NOT NULL,
	`include_override_days` integer DEFAULT false NOT NULL,
	`status` text NOT NULL,
	`days_total` integer NOT NULL,
	`days_done` integer DEFAULT 0 NOT NULL,
	`schedules_written` integer DEFAULT 0 NOT NULL,
	`blockouts_written` integer DEFAULT 0 NOT NULL,
	`days_skipped` text NOT NULL,
	`error` text,
	`completed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`template_id`) REFERENCES `schedule_templates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `schedule_template_applications_template_idx` ON `schedule_template_applications` (`template_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `schedule_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`blocks` text NOT NULL,
	`archived_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `schedule_templates_name_idx` ON `schedule_templates` (`name`);--> statement-breakpoint
ALTER TABLE `appointments` ADD `flow_status_id` text;--> statement-breakpoint
ALTER TABLE `appointments` ADD `flow_status_set_at` text;--> statement-breakpoint
ALTER TABLE `blockouts` ADD `template_application_id` text;--> statement-breakpoint
ALTER TABLE `provider_schedules` ADD `template_application_id` text;--> statement-breakpoint
CREATE INDEX `charted_procedures_planned_idx` ON `charted_procedures` (`status`,`patient_id`,`appointment_id`,`provider_id`,`fee_override_cents`,`office_fee_cents`,`date_treatment_planned`,`date_service`) WHERE deleted_at IS NULL;--> statement-breakpoint
-- unscheduled_treatment_totals (db/tenant/charted-procedures.ts): each patient's planned work on no live
-- appointment, summed, for the unscheduled-treatment list; the triggers below keep it in the writing transaction
INSERT INTO unscheduled_treatment_totals (patient_id, total_cents, procedure_count, oldest_planned, location_id, callable)
SELECT p.id, sum(coalesce(cp.fee_override_cents, cp.office_fee_cents)), count(*), min(coalesce(cp.date_treatment_planned, cp.date_service)), p.location_id, (p.deleted_at IS NULL AND p.status NOT IN ('deceased', 'archived'))
FROM charted_procedures cp JOIN patients p ON p.id = cp.patient_id
WHERE cp.deleted_at IS NULL AND cp.status IN ('treatment_planned', 'scheduled')
	AND (cp.appointment_id IS NULL OR NOT EXISTS (SELECT 1 FROM appointments a WHERE a.id = cp.appointment_id AND a.deleted_at IS NULL AND a.status NOT IN ('cancelled', 'broken')))
GROUP BY p.id;
--> statement-breakpoint
CREATE TRIGGER `unscheduled_treatment_totals_procedure_ai` AFTER INSERT ON `charted_procedures` BEGIN
	DELETE FROM unscheduled_treatment_totals WHERE patient_id = NEW.patient_id;
	INSERT INTO unscheduled_treatment_totals (patient_id, total_cents, procedure_count, oldest_planned, location_id, callable)
	SELECT p.id, sum(coalesce(cp.fee_override_cents, cp.office_fee_cents)), count(*), min(coalesce(cp.date_treatment_planned, cp.date_service)), p.location_id, (p.deleted_at IS NULL AND p.status NOT IN ('deceased', 'archived'))
	FROM charted_procedures cp JOIN patients p ON p.id = cp.patient_id
	WHERE cp.patient_id = NEW.patient_id AND cp.deleted_at IS NULL AND cp.status IN ('treatment_planned', 'scheduled')
		AND (cp.appointment_id IS NULL OR NOT EXISTS (SELECT 1 FROM appointments a WHERE a.id = cp.appointment_id AND a.deleted_at IS NULL AND a.status NOT IN ('cancelled', 'broken')))
	GROUP BY p.id;
END;
--> statement-breakpoint
CREATE TRIGGER `unscheduled_treatment_totals_procedure_au` AFTER UPDATE OF status, deleted_at, appointment_id, fee_override_cents, office_fee_cents, date_treatment_planned, date_service ON `charted_procedures` BEGIN
	DELETE FROM unscheduled_treatment_totals WHERE patient_id = NEW.patient_id;
	INSERT INTO unscheduled_treatment_totals (patient_id, total_cents, procedure_count, oldest_planned, location_id, callable)
	SELECT p.id, sum(coalesce(cp.fee_override_cents, cp.office_fee_cents)), count(*), min(coalesce(cp.date_treatment_planned, cp.date_service)), p.location_id, (p.deleted_at IS NULL AND p.status NOT IN ('deceased', 'archived'))
	FROM charted_procedures cp JOIN patients p ON p.id = cp.patient_id
	WHERE cp.patient_id = NEW.patient_id AND cp.deleted_at IS NULL AND cp.status IN ('treatment_planned', 'scheduled')
		AND (cp.appointment_id IS NULL OR NOT EXISTS (SELECT 1 FROM appointments a WHERE a.id = cp.appointment_id AND a.deleted_at IS NULL AND a.status NOT IN ('cancelled', 'broken')))
	GROUP BY p.id;
END;
--> statement-breakpoint
CREATE TRIGGER `unscheduled_treatment_totals_procedure_ad` AFTER DELETE ON `charted_procedures` BEGIN
	DELETE FROM unscheduled_treatment_totals WHERE patient_id = OLD.patient_id;
	INSERT INTO unscheduled_treatment_totals (patient_id, total_cents, procedure_count, oldest_planned, location_id, callable)
	SELECT p.id, sum(coalesce(cp.fee_override_cents, cp.office_fee_cents)), count(*), min(coalesce(cp.date_treatment_planned, cp.date_service)), p.location_id, (p.deleted_at IS NULL AND p.status NOT IN ('deceased', 'archived'))
	FROM charted_procedures cp JOIN patients p ON p.id = cp.patient_id
	WHERE cp.patient_id = OLD.patient_id AND cp.deleted_at IS NULL AND cp.status IN ('treatment_planned', 'scheduled')
		AND (cp.appointment_id IS NULL OR NOT EXISTS (SELECT 1 FROM appointments a WHERE a.id = cp.appointment_id AND a.deleted_at IS NULL AND a.status NOT IN ('cancelled', 'broken')))
	GROUP BY p.id;
END;
--> statement-breakpoint
-- a cancelled, broken or archived appointment frees what it held (and a restored one holds it again)
CREATE TRIGGER `unscheduled_treatment_totals_appointment_au` AFTER UPDATE OF status, deleted_at ON `appointments`
WHEN EXISTS (SELECT 1 FROM charted_procedures WHERE appointment_id = NEW.id) BEGIN
	DELETE FROM unscheduled_treatment_totals WHERE patient_id = NEW.patient_id;
	INSERT INTO unscheduled_treatment_totals (patient_id, total_cents, procedure_count, oldest_planned, location_id, callable)
	SELECT p.id, sum(coalesce(cp.fee_override_cents, cp.office_fee_cents)), count(*), min(coalesce(cp.date_treatment_planned, cp.date_service)), p.location_id, (p.deleted_at IS NULL AND p.status NOT IN ('deceased', 'archived'))
	FROM charted_procedures cp JOIN patients p ON p.id = cp.patient_id
	WHERE cp.patient_id = NEW.patient_id AND cp.deleted_at IS NULL AND cp.status IN ('treatment_planned', 'scheduled')
		AND (cp.appointment_id IS NULL OR NOT EXISTS (SELECT 1 FROM appointments a WHERE a.id = cp.appointment_id AND a.deleted_at IS NULL AND a.status NOT IN ('cancelled', 'broken')))
	GROUP BY p.id;
END;
--> statement-breakpoint
CREATE TRIGGER `unscheduled_treatment_totals_patient_au` AFTER UPDATE OF status, deleted_at, location_id ON `patients` BEGIN
	UPDATE unscheduled_treatment_totals SET location_id = NEW.location_id, callable = (NEW.deleted_at IS NULL AND NEW.status NOT IN ('deceased', 'archived')) WHERE patient_id = NEW.id;
END;
--> statement-breakpoint
-- patient_recalls' copies of the patient's facts the recall list filters on (db/tenant/recall.ts)
CREATE TRIGGER `patient_recalls_patient_facts_ai` AFTER INSERT ON `patient_recalls` BEGIN
	UPDATE patient_recalls SET
		patient_active = coalesce((SELECT p.deleted_at IS NULL AND p.status = 'active' FROM patients p WHERE p.id = NEW.patient_id), 0),
		patient_location_id = (SELECT p.location_id FROM patients p WHERE p.id = NEW.patient_id),
		patient_primary_provider_id = (SELECT p.primary_provider_id FROM patients p WHERE p.id = NEW.patient_id),
		patient_secondary_provider_id = (SELECT p.secondary_provider_id FROM patients p WHERE p.id = NEW.patient_id)
	WHERE id = NEW.id;
END;
--> statement-breakpoint
CREATE TRIGGER `patient_recalls_patient_facts_au` AFTER UPDATE OF status, deleted_at, location_id, primary_provider_id, secondary_provider_id ON `patients` BEGIN
	UPDATE patient_recalls SET
		patient_active = (NEW.deleted_at IS NULL AND NEW.status = 'active'),
		patient_location_id = NEW.location_id,
		patient_primary_provider_id = NEW.primary_provider_id,
		patient_secondary_provider_id = NEW.secondary_provider_id
	WHERE patient_id = NEW.id AND deleted_at IS NULL;
END;
