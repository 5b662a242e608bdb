CREATE TABLE `patient_filter_facts` (
	`id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`date_of_birth` text,
	`gender` text,
	`has_email` integer NOT NULL,
	`has_mobile_phone` integer NOT NULL,
	`receives_sms` integer NOT NULL,
	`receives_email` integer NOT NULL,
	`created_on` text NOT NULL,
	`preferred_language` text,
	`balance_0_30_cents` integer NOT NULL,
	`balance_31_60_cents` integer NOT NULL,
	`balance_61_90_cents` integer NOT NULL,
	`balance_over_90_cents` integer NOT NULL,
	`insurance_estimate_cents` integer NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`location_id` text,
	`primary_provider_id` text
) WITHOUT ROWID;
--> statement-breakpoint
-- the live patients' facts (the columns the revenue filter registry reads); triggers keep them in the writing transaction
INSERT INTO patient_filter_facts (id, status, date_of_birth, gender, has_email, has_mobile_phone, receives_sms, receives_email, created_on, preferred_language, balance_0_30_cents, balance_31_60_cents, balance_61_90_cents, balance_over_90_cents, insurance_estimate_cents, first_name, last_name, location_id, primary_provider_id)
SELECT p.id, p.status, p.date_of_birth, p.gender, coalesce(p.email <> '', 0), coalesce(p.mobile_phone <> '', 0), p.receives_sms, p.receives_email, substr(p.created_at, 1, 10), p.preferred_language, p.balance_0_30_cents, p.balance_31_60_cents, p.balance_61_90_cents, p.balance_over_90_cents, p.insurance_estimate_cents, p.first_name, p.last_name, p.location_id, p.primary_provider_id FROM patients p WHERE p.deleted_at IS NULL;
--> statement-breakpoint
CREATE TRIGGER patient_filter_facts_ai AFTER INSERT ON patients WHEN NEW.deleted_at IS NULL BEGIN
	INSERT OR REPLACE INTO patient_filter_facts (id, status, date_of_birth, gender, has_email, has_mobile_phone, receives_sms, receives_email, created_on, preferred_language, balance_0_30_cents, balance_31_60_cents, balance_61_90_cents, balance_over_90_cents, insurance_estimate_cents, first_name, last_name, location_id, primary_provider_id) VALUES (NEW.id, NEW.status, NEW.date_of_birth, NEW.gender, coalesce(NEW.email <> '', 0), coalesce(NEW.mobile_phone <> '', 0), NEW.receives_sms, NEW.receives_email, substr(NEW.created_at, 1, 10), NEW.preferred_language, NEW.balance_0_30_cents, NEW.balance_31_60_cents, NEW.balance_61_90_cents, NEW.balance_over_90_cents, NEW.insurance_estimate_cents, NEW.first_name, NEW.last_name, NEW.location_id, NEW.primary_provider_id);
END;
--> statement-breakpoint
CREATE TRIGGER patient_filter_facts_au AFTER UPDATE OF first_name, last_name, status, gender, date_of_birth, email, mobile_phone, receives_sms, receives_email, created_at, preferred_language, balance_0_30_cents, balance_31_60_cents, balance_61_90_cents, balance_over_90_cents, insurance_estimate_cents, location_id, primary_provider_id, deleted_at ON patients BEGIN
	DELETE FROM patient_filter_facts WHERE id = OLD.id AND NEW.deleted_at IS NOT NULL;
	INSERT OR REPLACE INTO patient_filter_facts (id, status, date_of_birth, gender, has_email, has_mobile_phone, receives_sms, receives_email, created_on, preferred_language, balance_0_30_cents, balance_31_60_cents, balance_61_90_cents, balance_over_90_cents, insurance_estimate_cents, first_name, last_name, location_id, primary_provider_id) SELECT NEW.id, NEW.status, NEW.date_of_birth, NEW.gender, coalesce(NEW.email <> '', 0), coalesce(NEW.mobile_phone <> '', 0), NEW.receives_sms, NEW.receives_email, substr(NEW.created_at, 1, 10), NEW.preferred_language, NEW.balance_0_30_cents, NEW.balance_31_60_cents, NEW.balance_61_90_cents, NEW.balance_over_90_cents, NEW.insurance_estimate_cents, NEW.first_name, NEW.last_name, NEW.location_id, NEW.primary_provider_id WHERE NEW.deleted_at IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER patient_filter_facts_ad AFTER DELETE ON patients BEGIN
	DELETE FROM patient_filter_facts WHERE id = OLD.id;
END;
