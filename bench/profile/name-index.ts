// The in-memory name index (src/domains/patients/record/name-index.ts) over the
// bench's patients: its build time, its memory, and a name lookup against the
// FTS5 lookup it replaces, for the (c) terms and for keystrokes as (c2) types them.
// `bun bench/profile/name-index.ts [patients]` (default 100,000).
import { Database } from "bun:sqlite";
import { Glob } from "bun";
import { NameIndex } from "@/domains/patients/record/name-index";
import { nameMatch } from "@/domains/patients/record/search";
import { sqliteWork } from "@bench/runner/sqlite-work";
import { startTestApp } from "@tests/helpers";
import { keystrokeTerms, loadPatients, searchTerms } from "@bench/patients";

const COUNT = Number(process.argv[2] ?? 100_000);
const t = await startTestApp();
const org = await t.createOrg(await t.adminToken());
const [file] = [...new Glob(`**/${org.id}.db`).scanSync({ cwd: t.dir, absolute: true })];
const { patients } = loadPatients(file!, COUNT);
const raw = new Database(file!);
const work = sqliteWork(raw);
Bun.gc(true);
const heap0 = process.memoryUsage().heapUsed;
const index = new NameIndex();
const t0 = performance.now();
work.run((db) => index.catchUp(db));
const buildMs = performance.now() - t0;
Bun.gc(true);
const heap = process.memoryUsage().heapUsed - heap0;
console.log(
  `${COUNT.toLocaleString("en-US")} patients: built in ${buildMs.toFixed(0)} ms, ${index.postingCount.toLocaleString("en-US")} postings, ` +
    `${(index.bytes / 1e6).toFixed(2)} MB counted (${(((index.bytes / COUNT) * 10_000) / 1e6).toFixed(2)} MB per 10,000 patients), heap +${(heap / 1e6).toFixed(1)} MB`,
);
const fts = raw.query("SELECT rowid FROM patients_fts WHERE patients_fts MATCH ?");
for (const [label, terms] of [
  ["(c) terms", searchTerms(patients, 2_000)],
  ["(c2) keystrokes", keystrokeTerms(patients, 300)],
] as const) {
  const time = (f: (t: string) => unknown) => {
    for (const term of terms) f(term);
    const s = performance.now();
    for (let r = 0; r < 3; r++) for (const term of terms) f(term);
    return ((performance.now() - s) / (3 * terms.length)) * 1000;
  };
  const mem = time((term) => {
    work.run((db) => index.catchUp(db));
    return index.match(term);
  });
  const ftsUs = time((term) => {
    const m = nameMatch(term);
    return m ? fts.values(m) : null;
  });
  const matches = terms.reduce((n, term) => n + (index.match(term)?.length ?? 0), 0) / terms.length;
  console.log(
    `${label}: ${terms.length} terms, ${matches.toFixed(0)} matches a term; in memory ${mem.toFixed(1)} µs a term (with the log check), FTS5 ${ftsUs.toFixed(1)} µs`,
  );
}
await t.close();
