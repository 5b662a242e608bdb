CREATE TABLE `org_move_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`frozen` integer DEFAULT 0 NOT NULL,
	`moved_to_shard_id` text,
	`updated_at` text
);
--> statement-breakpoint
INSERT INTO `org_move_state` (`id`, `frozen`) VALUES (1, 0);
