// In-process timing of the write path (no HTTP socket, no wrk): N patient
// PATCHes and N location creates through app.handle on one org, sequentially.
// `bun bench/profile/write-path.ts [N]`; add `--cpu-prof` to bun for a profile.
const timing = process.env.SQL_TIMING ? await import("./sql-timing") : null;
const { startTestApp } = await import("@tests/helpers");
// SQL_TIMING also times each write transaction as a whole (BEGIN IMMEDIATE to COMMIT)
const writeTime = { us: 0 };
if (timing) {
  const { LocalSqlDatabase } = await import("@/platform/db/database");
  const original = LocalSqlDatabase.prototype.write;
  LocalSqlDatabase.prototype.write = function (this: any, ...args: any[]) {
    const t0 = performance.now();
    try {
      return (original as any).apply(this, args);
    } finally {
      writeTime.us += (performance.now() - t0) * 1000;
    }
  } as any;
}

const N = Number(process.argv[2] ?? 2000);
const t = await startTestApp();
const token = await t.adminToken();
const org = await t.createOrg(token);
const P = `/api/v1/${org.id}`;
const ids: string[] = [];
for (let i = 0; i < N; i++) {
  const r = await t.request("POST", `${P}/patients`, { token, body: { first_name: `First${i}`, last_name: `Last${i}`, date_of_birth: "1980-01-01" } });
  if (r.status !== 201) throw new Error(`create ${r.status} ${r.text}`);
  ids.push(r.body.id);
}
timing?.sqlTimes.clear();
writeTime.us = 0;
(globalThis as any).__workUs = 0;
const yieldNow = () => new Promise((r) => setImmediate(r));
async function timed(label: string, fn: (i: number) => Promise<void>) {
  await yieldNow();
  const start = performance.now();
  for (let i = 0; i < N; i++) {
    await fn(i);
    if (i % 100 === 0) await yieldNow();
  }
  const us = ((performance.now() - start) * 1000) / N;
  console.log(`${label}: ${us.toFixed(0)} µs a request`);
  if (timing) console.log(`write transactions (org + control): ${(writeTime.us / N).toFixed(0)} µs a request`);
  writeTime.us = 0;
  if (timing) console.log(`  of which the work inside: ${(((globalThis as any).__workUs ?? 0) / N).toFixed(0)} µs`);
  (globalThis as any).__workUs = 0;
  timing?.report(N);
}
for (let round = 1; round <= Number(process.env.ROUNDS ?? 2); round++) {
  await timed(`patient PATCH (preferred name, email), round ${round}`, async (i) => {
    const r = await t.request("PATCH", `${P}/patients/${ids[i]}`, {
      token,
      body:
        process.env.PATCH === "salutation"
          ? { base_version: round, salutation: `S${round}.${i}` }
          : { base_version: round, preferred_name: `Bench ${i}`, email: `bench.${round}.${i}@example.net` },
    });
    if (r.status !== 200) throw new Error(`patch ${r.status} ${r.text}`);
  });
  if (process.env.ONLY === "patch") continue;
  await timed(`location create, round ${round}`, async (i) => {
    const r = await t.request("POST", `${P}/locations`, { token, body: { name: `Loc ${round}-${i}`, timezone: "America/Chicago" } });
    if (r.status !== 201) throw new Error(`loc ${r.status} ${r.text}`);
  });
}
if (process.env.KEEP_DB) {
  // a copy of the org's database for experiments on SQLite alone
  const { Database } = await import("bun:sqlite");
  const { Glob } = await import("bun");
  for (const file of new Glob(`**/${org.id}.db`).scanSync({ cwd: t.dir, absolute: true })) new Database(file).exec(`VACUUM INTO '${process.env.KEEP_DB}'`);
}
await t.close();
export {};
