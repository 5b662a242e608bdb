CREATE TABLE `iam_approvals` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`status` text NOT NULL,
	`operation_type` text NOT NULL,
	`operation_payload` text NOT NULL,
	`pinned_group_versions` text NOT NULL,
	`pinned_scope_node_id` text,
	`pinned_scope_node_path` text,
	`contains_phi` integer DEFAULT false NOT NULL,
	`assignment_id` text,
	`requested_by` text NOT NULL,
	`requested_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`reviewed_by` text,
	`reviewed_at` text,
	`review_note` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `iam_approvals_org_status_idx` ON `iam_approvals` (`org_id`,`status`,`requested_at`);--> statement-breakpoint
CREATE INDEX `iam_approvals_expiry_idx` ON `iam_approvals` (`status`,`expires_at`);--> statement-breakpoint
CREATE TABLE `iam_assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`membership_id` text NOT NULL,
	`user_id` text NOT NULL,
	`group_id` text NOT NULL,
	`scope_node_id` text NOT NULL,
	`scope_type` text NOT NULL,
	`context` text NOT NULL,
	`status` text NOT NULL,
	`expires_at` text,
	`approval_id` text,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`membership_id`) REFERENCES `memberships`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`group_id`) REFERENCES `permission_groups`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `iam_assignments_grant_uq` ON `iam_assignments` (`membership_id`,`group_id`,`scope_node_id`,`context`);--> statement-breakpoint
CREATE INDEX `iam_assignments_org_user_idx` ON `iam_assignments` (`org_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `iam_assignments_org_group_idx` ON `iam_assignments` (`org_id`,`group_id`);--> statement-breakpoint
CREATE INDEX `iam_assignments_org_node_idx` ON `iam_assignments` (`org_id`,`scope_node_id`);--> statement-breakpoint
ALTER TABLE `orgs` ADD `access_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
-- Every org-wide group of a membership becomes an assignment at the org node
-- (scope_node_id = the org's id) with context "all": the same access as before.
-- Ids are random UUIDs (version 4) made here; the membership's times are kept.
INSERT INTO `iam_assignments` (`id`, `org_id`, `membership_id`, `user_id`, `group_id`, `scope_node_id`, `scope_type`, `context`, `status`, `created_at`, `updated_at`, `version`)
SELECT
	lower(substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(h, 18, 3) || '-' || substr(h, 21, 12)),
	m.`org_id`, m.`id`, m.`user_id`, mg.`group_id`, m.`org_id`, 'org', 'all', 'active', m.`created_at`, m.`updated_at`, 1
FROM (SELECT `membership_id`, `group_id`, hex(randomblob(16)) AS h FROM `membership_groups`) AS mg
JOIN `memberships` AS m ON m.`id` = mg.`membership_id`;
