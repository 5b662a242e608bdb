CREATE TABLE `definitions` (
	`id` text PRIMARY KEY NOT NULL,
	`category` text NOT NULL,
	`item_name` text NOT NULL,
	`item_value` text,
	`item_order` integer DEFAULT 0 NOT NULL,
	`item_color` text,
	`is_hidden` integer DEFAULT false NOT NULL,
	`metadata` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `definitions_category_order_idx` ON `definitions` (`category`,`item_order`);