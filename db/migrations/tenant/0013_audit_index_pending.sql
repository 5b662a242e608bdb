ALTER TABLE `audit_entries` ADD `index_pending` integer;--> statement-breakpoint
CREATE INDEX `audit_entries_index_pending_idx` ON `audit_entries` (`created_at`) WHERE index_pending IS NOT NULL;