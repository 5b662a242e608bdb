// Memory per open org database handle (LocalSqlDatabase), as RSS and JS heap
// over K copies of one org database, each read like a patient GET would.
// `bun bench/profile/handle-memory.ts <org.db> [K]`
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { heapStats } from "bun:jsc";
import { LocalSqlDatabase } from "@/platform/db/database";
import { tenantSchema } from "@db/tenant/drizzle-schema";
import { findPatientRow } from "@/domains/patients/record/rows";
import { moveFence } from "@/platform/db/org-databases";
import { all } from "@/platform/db/work";
import { patients } from "@db/tenant/patients";

const source = process.argv[2]!;
const K = Number(process.argv[3] ?? 200);
const dir = `/tmp/handle-memory-${process.pid}`;
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir);
for (let i = 0; i < K; i++) copyFileSync(source, `${dir}/${i}.db`);
const mb = (n: number) => (n / 1e6).toFixed(1);
Bun.gc(true);
const rss0 = process.memoryUsage().rss;
const heap0 = heapStats().heapSize;
const handles = [];
for (let i = 0; i < K; i++) {
  const db = new LocalSqlDatabase(`${dir}/${i}.db`, tenantSchema, moveFence);
  const ids = db.read((d) => all<{ id: string }>(d.select({ id: patients.id }).from(patients).limit(20)));
  for (const { id } of ids) db.read((d) => findPatientRow(d, id));
  handles.push(db);
}
await new Promise((r) => setImmediate(r));
Bun.gc(true);
const rss = process.memoryUsage().rss - rss0;
const heap = heapStats().heapSize - heap0;
console.log(`${K} handles: RSS +${mb(rss)} MB (${mb(rss / K)} MB each), JS heap +${mb(heap)} MB (${mb(heap / K)} MB each)`);
for (const h of handles) h.close();
rmSync(dir, { recursive: true, force: true });
