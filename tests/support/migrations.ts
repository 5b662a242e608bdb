import { expect } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A copy of a migrations folder (MIGRATIONS.control or .tenant) under `dir`
 * holding the migrations up to and including `lastTag`: migrate a database
 * with it, put data in, then migrate with the whole folder to test what a
 * later migration does to existing data.
 */
export function migrationsFolderUpTo(folder: string, lastTag: string, dir: string): string {
  const copy = join(dir, `upto-${lastTag}`);
  cpSync(folder, copy, { recursive: true });
  const journalPath = join(copy, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8"));
  const last = journal.entries.findIndex((e: { tag: string }) => e.tag === lastTag);
  expect(last).toBeGreaterThan(-1);
  journal.entries = journal.entries.slice(0, last + 1);
  writeFileSync(journalPath, JSON.stringify(journal));
  return copy;
}
