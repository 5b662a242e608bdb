CREATE TABLE `document_categories` (
	`id` text PRIMARY KEY NOT NULL,
	`scope` text NOT NULL,
	`parent_id` text,
	`name` text NOT NULL,
	`path` text NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL,
	`description` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `document_categories_scope_idx` ON `document_categories` (`scope`,`path`,`sort_order`);--> statement-breakpoint
CREATE INDEX `document_categories_parent_idx` ON `document_categories` (`parent_id`);--> statement-breakpoint
CREATE TABLE `document_links` (
	`id` text PRIMARY KEY NOT NULL,
	`document_id` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`note` text,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `document_links_live_idx` ON `document_links` (`document_id`,`target_type`,`target_id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `document_links_target_idx` ON `document_links` (`target_type`,`target_id`);--> statement-breakpoint
CREATE TABLE `document_signatures` (
	`id` text PRIMARY KEY NOT NULL,
	`document_id` text NOT NULL,
	`signer_name` text NOT NULL,
	`signer_email` text,
	`signer_role` text NOT NULL,
	`signer_patient_id` text,
	`signer_user_id` text,
	`signing_order` integer NOT NULL,
	`status` text NOT NULL,
	`signature_type` text,
	`signature_text` text,
	`signature_image` text,
	`signed_at` text,
	`signed_version_number` integer,
	`signed_sha256` text,
	`decline_reason` text,
	`requested_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `document_signatures_document_idx` ON `document_signatures` (`document_id`,`signing_order`);--> statement-breakpoint
CREATE TABLE `document_steps` (
	`document_id` text NOT NULL,
	`version_number` integer NOT NULL,
	`step` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`started_at` text,
	`finished_at` text,
	`message` text,
	`result` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`document_id`, `version_number`, `step`)
);
--> statement-breakpoint
CREATE TABLE `document_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`document_id` text NOT NULL,
	`version_number` integer NOT NULL,
	`file_name` text NOT NULL,
	`file_size` integer NOT NULL,
	`mime_type` text NOT NULL,
	`sha256` text NOT NULL,
	`storage_key` text NOT NULL,
	`thumbnail_key` text,
	`status` text NOT NULL,
	`scan_signature` text,
	`scan_engine` text,
	`page_count` integer,
	`uploaded_by` text,
	`request_id` text,
	`comment` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `document_versions_number_idx` ON `document_versions` (`document_id`,`version_number`);--> statement-breakpoint
CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`file_name` text NOT NULL,
	`file_size` integer NOT NULL,
	`mime_type` text NOT NULL,
	`document_type` text NOT NULL,
	`category_id` text,
	`description` text,
	`document_date` text,
	`expiration_date` text,
	`ai_classification` text,
	`ai_confidence` real,
	`has_thumbnail` integer DEFAULT false NOT NULL,
	`is_locked` integer DEFAULT false NOT NULL,
	`is_org_scoped` integer DEFAULT false NOT NULL,
	`is_signed` integer DEFAULT false NOT NULL,
	`is_starred` integer DEFAULT false NOT NULL,
	`legal_hold` integer DEFAULT false NOT NULL,
	`owner_type` text,
	`owner_id` text,
	`page_count` integer,
	`status` text NOT NULL,
	`ocr_status` text DEFAULT 'pending' NOT NULL,
	`ocr_text` text,
	`tags` text DEFAULT '[]' NOT NULL,
	`uploaded_by` text,
	`current_version` integer DEFAULT 1 NOT NULL,
	`confirmed_version` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `documents_owner_idx` ON `documents` (`owner_type`,`owner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `documents_type_idx` ON `documents` (`document_type`);--> statement-breakpoint
CREATE INDEX `documents_category_idx` ON `documents` (`category_id`);--> statement-breakpoint
CREATE INDEX `documents_status_idx` ON `documents` (`status`);--> statement-breakpoint
CREATE INDEX `documents_created_idx` ON `documents` (`created_at`);--> statement-breakpoint
-- Document search (GET {P}/documents?search=): word-prefix search of the title
-- and the OCR text, an FTS5 index over `documents` as external content, kept in
-- sync by the triggers below (see 0002 for the same pattern over patients).
CREATE VIRTUAL TABLE `documents_fts` USING fts5(title, ocr_text, content='documents', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2', prefix='2 3');
--> statement-breakpoint
CREATE TRIGGER `documents_fts_ai` AFTER INSERT ON `documents` BEGIN
  INSERT INTO documents_fts(rowid, title, ocr_text) VALUES (new.rowid, new.title, new.ocr_text);
END;
--> statement-breakpoint
CREATE TRIGGER `documents_fts_ad` AFTER DELETE ON `documents` BEGIN
  INSERT INTO documents_fts(documents_fts, rowid, title, ocr_text) VALUES ('delete', old.rowid, old.title, old.ocr_text);
END;
--> statement-breakpoint
CREATE TRIGGER `documents_fts_au` AFTER UPDATE OF title, ocr_text ON `documents` BEGIN
  INSERT INTO documents_fts(documents_fts, rowid, title, ocr_text) VALUES ('delete', old.rowid, old.title, old.ocr_text);
  INSERT INTO documents_fts(rowid, title, ocr_text) VALUES (new.rowid, new.title, new.ocr_text);
END;
