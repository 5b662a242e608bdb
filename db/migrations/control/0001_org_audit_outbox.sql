CREATE TABLE `org_audit_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`entry` text NOT NULL,
	`event` text,
	`created_at` text NOT NULL,
	`claimed_until` text
);
--> statement-breakpoint
CREATE INDEX `org_audit_outbox_org_idx` ON `org_audit_outbox` (`org_id`,`created_at`);