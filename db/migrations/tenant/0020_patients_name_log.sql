-- Patient search as people type (issue 36): every change to a searched column
-- of `patients` is logged in `search_changes`, as the sync engine's variant of
-- migration 0002 already does on replicated databases (platform/db/search-index.ts),
-- so each instance's in-memory name index (domains/patients/record/name-index.ts)
-- applies what changed since it last looked instead of reading every name again.
-- IF NOT EXISTS: on a replicated database the log and its triggers exist already.
CREATE TABLE IF NOT EXISTS `search_changes` (`seq` integer PRIMARY KEY AUTOINCREMENT, `tbl` text NOT NULL, `rid` integer NOT NULL);
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `patients_search_ai` AFTER INSERT ON `patients` BEGIN INSERT INTO search_changes (tbl, rid) VALUES ('patients', new.rowid); END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `patients_search_au` AFTER UPDATE OF first_name, last_name, preferred_name, email, phone_digits ON `patients` BEGIN INSERT INTO search_changes (tbl, rid) VALUES ('patients', new.rowid); END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `patients_search_ad` AFTER DELETE ON `patients` BEGIN INSERT INTO search_changes (tbl, rid) VALUES ('patients', old.rowid); END;
--> statement-breakpoint
-- the log keeps its last 100,000 entries (pruned once in 1,000): an index further behind reads every name again
CREATE TRIGGER IF NOT EXISTS `search_changes_prune` AFTER INSERT ON `search_changes` WHEN new.seq % 1000 = 0 BEGIN DELETE FROM search_changes WHERE seq <= new.seq - 100000; END;
