CREATE TABLE `replication_position` (
	`id` integer PRIMARY KEY NOT NULL,
	`position` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `replication_position` (`id`, `position`) VALUES (1, 0);
