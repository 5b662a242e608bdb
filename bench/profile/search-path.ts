// In-process timing of the (c) row's request, a patient name search over
// 100,000 patients loaded as the bench loads them, through app.handle.
// `bun bench/profile/search-path.ts [N searches]`; SQL_TIMING=1 times every statement; KEYSTROKES=1 searches as (c2) types.
const timing = process.env.SQL_TIMING ? await import("./sql-timing") : null;
const { Glob } = await import("bun");
const { startTestApp } = await import("@tests/helpers");
const { keystrokeTerms, loadPatients, searchTerms } = await import("@bench/patients");

const N = Number(process.argv[2] ?? 2000);
const t = await startTestApp({ RESPONSE_SCHEMAS: process.env.RESPONSE_SCHEMAS ?? "trust" });
const token = await t.adminToken();
const org = await t.createOrg(token);
const P = `/api/v1/${org.id}`;
const [file] = [...new Glob(`**/${org.id}.db`).scanSync({ cwd: t.dir, absolute: true })];
const { patients } = loadPatients(file!, Number(process.env.PATIENTS ?? 100_000));
// KEYSTROKES=1: the (c2) row's terms (names typed from the third letter) instead of (c)'s
const terms = process.env.KEYSTROKES ? keystrokeTerms(patients, Math.ceil(N / 8)).slice(0, N) : searchTerms(patients, N);
const headers = { authorization: `Bearer ${token}` };
const yieldNow = () => new Promise((r) => setImmediate(r));
for (let round = 1; round <= Number(process.env.ROUNDS ?? 3); round++) {
  timing?.sqlTimes.clear();
  let found = 0;
  const start = performance.now();
  for (let i = 0; i < N; i++) {
    const res = await t.handle(new Request(`http://localhost${P}/patients?search=${encodeURIComponent(terms[i]!)}&page_size=10`, { headers }));
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
    found += ((await res.json()) as { total: number }).total;
    if (i % 100 === 0) await yieldNow();
  }
  console.log(
    `patient search, round ${round}: ${(((performance.now() - start) * 1000) / N).toFixed(0)} µs a request, ${(found / N).toFixed(1)} matches a term`,
  );
  timing?.report(N);
}
if (process.env.KEEP_DB) {
  // a copy of the org's database for experiments on SQLite alone
  const { Database } = await import("bun:sqlite");
  new Database(file!).exec(`VACUUM INTO '${process.env.KEEP_DB}'`);
}
await t.close();
export {};
