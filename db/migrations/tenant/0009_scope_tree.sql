CREATE TABLE `scope_tree_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `scope_tree_state` (`id`, `version`) VALUES (1, 1);
--> statement-breakpoint
CREATE TRIGGER `scope_tree_locations_ai` AFTER INSERT ON `locations` BEGIN
	UPDATE `scope_tree_state` SET `version` = `version` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `scope_tree_locations_au` AFTER UPDATE OF `name`, `deleted_at` ON `locations`
WHEN OLD.`name` IS NOT NEW.`name` OR OLD.`deleted_at` IS NOT NEW.`deleted_at` BEGIN
	UPDATE `scope_tree_state` SET `version` = `version` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `scope_tree_locations_ad` AFTER DELETE ON `locations` BEGIN
	UPDATE `scope_tree_state` SET `version` = `version` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `scope_tree_providers_ai` AFTER INSERT ON `providers` BEGIN
	UPDATE `scope_tree_state` SET `version` = `version` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `scope_tree_providers_au` AFTER UPDATE OF `first_name`, `last_name`, `abbreviation`, `status`, `deleted_at` ON `providers`
WHEN OLD.`first_name` IS NOT NEW.`first_name` OR OLD.`last_name` IS NOT NEW.`last_name` OR OLD.`abbreviation` IS NOT NEW.`abbreviation`
	OR OLD.`status` IS NOT NEW.`status` OR OLD.`deleted_at` IS NOT NEW.`deleted_at` BEGIN
	UPDATE `scope_tree_state` SET `version` = `version` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `scope_tree_providers_ad` AFTER DELETE ON `providers` BEGIN
	UPDATE `scope_tree_state` SET `version` = `version` + 1 WHERE `id` = 1;
END;
