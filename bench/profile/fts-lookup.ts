// The name search's FTS5 lookup alone, in a bare bun:sqlite loop, on a copy of
// an org database with the bench's patients: what SQLite itself needs for the
// (c) row's terms. Make the copy with
//   KEEP_DB=/tmp/s100k.db ROUNDS=1 bun bench/profile/search-path.ts 100
// then `bun bench/profile/fts-lookup.ts /tmp/s100k.db`. PRAGMAS="PRAGMA mmap_size=268435456;..." to try settings.
import { Database } from "bun:sqlite";
import { searchTerms, type LoadedPatient } from "@bench/patients";

const db = new Database(process.argv[2] ?? "/tmp/s100k.db");
for (const p of (process.env.PRAGMAS ?? "").split(";").filter(Boolean)) db.exec(p);
const patients = db.query("SELECT id, first_name, last_name FROM patients").all() as LoadedPatient[];
const terms = searchTerms(patients, 2_000);
const prefixes = (t: string) => t.split(" ").map((w) => `"${w}"*`);

function time(label: string, sqlText: string, args: (term: string) => string[]) {
  const q = db.query(sqlText);
  for (const t of terms.slice(0, 200)) q.all(...args(t));
  const t0 = performance.now();
  let rows = 0;
  for (const t of terms) rows += q.all(...args(t)).length;
  console.log(`${label}: ${(((performance.now() - t0) * 1000) / terms.length).toFixed(1)} µs, ${(rows / terms.length).toFixed(1)} rows`);
}
const fts = "SELECT rowid FROM patients_fts WHERE patients_fts MATCH ?";
time("both prefixes (the search)", fts, (t) => [prefixes(t).join(" AND ")]);
time("first-name prefix alone (3 letters)", fts, (t) => [prefixes(t)[0]!]);
time("last-name prefix alone (4 letters)", fts, (t) => [prefixes(t)[1]!]);
time("chart number lookup", "SELECT rowid FROM patients WHERE chart_number IN (?, ?, ?)", (t) => [t, t.toUpperCase(), t.toLowerCase()]);
