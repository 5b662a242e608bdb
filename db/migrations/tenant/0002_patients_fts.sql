-- Patient search indexes (issue 3). Two FTS5 tables over `patients` as external
-- content (they store only the index, keyed by the patients rowid), kept in sync
-- by the triggers below:
--   patients_fts          word-prefix search of first, last and preferred name
--   patients_contact_fts  substring (trigram) search of email and phone digits
-- A migration that rebuilds the patients table (drizzle's SQLite "__new_patients"
-- copy) drops these triggers: it must recreate them and run both 'rebuild's.
CREATE VIRTUAL TABLE `patients_fts` USING fts5(first_name, last_name, preferred_name, content='patients', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3');
--> statement-breakpoint
CREATE VIRTUAL TABLE `patients_contact_fts` USING fts5(email, phone_digits, content='patients', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `patients_fts_ai` AFTER INSERT ON `patients` BEGIN
  INSERT INTO patients_fts(rowid, first_name, last_name, preferred_name) VALUES (new.rowid, new.first_name, new.last_name, new.preferred_name);
  INSERT INTO patients_contact_fts(rowid, email, phone_digits) VALUES (new.rowid, new.email, new.phone_digits);
END;
--> statement-breakpoint
CREATE TRIGGER `patients_fts_ad` AFTER DELETE ON `patients` BEGIN
  INSERT INTO patients_fts(patients_fts, rowid, first_name, last_name, preferred_name) VALUES ('delete', old.rowid, old.first_name, old.last_name, old.preferred_name);
  INSERT INTO patients_contact_fts(patients_contact_fts, rowid, email, phone_digits) VALUES ('delete', old.rowid, old.email, old.phone_digits);
END;
--> statement-breakpoint
CREATE TRIGGER `patients_fts_au_names` AFTER UPDATE OF first_name, last_name, preferred_name ON `patients` BEGIN
  INSERT INTO patients_fts(patients_fts, rowid, first_name, last_name, preferred_name) VALUES ('delete', old.rowid, old.first_name, old.last_name, old.preferred_name);
  INSERT INTO patients_fts(rowid, first_name, last_name, preferred_name) VALUES (new.rowid, new.first_name, new.last_name, new.preferred_name);
END;
--> statement-breakpoint
CREATE TRIGGER `patients_fts_au_contact` AFTER UPDATE OF email, phone_digits ON `patients` BEGIN
  INSERT INTO patients_contact_fts(patients_contact_fts, rowid, email, phone_digits) VALUES ('delete', old.rowid, old.email, old.phone_digits);
  INSERT INTO patients_contact_fts(rowid, email, phone_digits) VALUES (new.rowid, new.email, new.phone_digits);
END;
--> statement-breakpoint
INSERT INTO patients_fts(patients_fts) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO patients_contact_fts(patients_contact_fts) VALUES ('rebuild');
