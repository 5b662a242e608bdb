// Memory per open org database handle (LocalSqlDatabase), as RSS and JS heap
// over K copies of one org database, each read like a patient GET would; then
// what closing them gives back, and what reopening one costs (the idle sweep's
// trade: docs/operations/performance.md, "Memory per open org").
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
const settle = async () => {
  await new Promise((r) => setImmediate(r)); // the turn's read transactions end
  Bun.gc(true);
};
/** Opens the i-th copy and reads `reads` patients as GETs would. */
function openAndRead(i: number, reads = 20) {
  const db = new LocalSqlDatabase(`${dir}/${i}.db`, tenantSchema, moveFence);
  const ids = db.read((d) => all<{ id: string }>(d.select({ id: patients.id }).from(patients).limit(reads)));
  for (const { id } of ids) db.read((d) => findPatientRow(d, id));
  return db;
}
// (kept on an object that outlives the awaits: a top-level array used only before them may be collected)
const held: { handles: LocalSqlDatabase<typeof tenantSchema>[] } = { handles: [] };
Bun.gc(true);
const rss0 = process.memoryUsage().rss;
const heap0 = heapStats().heapSize;
for (let i = 0; i < K; i++) held.handles.push(openAndRead(i));
await settle();
const rss = process.memoryUsage().rss - rss0;
const heap = heapStats().heapSize - heap0;
console.log(`${K} handles: RSS +${mb(rss)} MB (${mb(rss / K)} MB each), JS heap +${mb(heap)} MB (${mb(heap / K)} MB each)`);
for (const h of held.handles) h.releaseMemory();
await settle();
console.log(`after releaseMemory() on each: RSS +${mb(process.memoryUsage().rss - rss0)} MB`);
for (const h of held.handles) h.close();
held.handles = [];
await settle();
console.log(`after closing them: RSS +${mb(process.memoryUsage().rss - rss0)} MB`);
const n = Math.min(K, 50);
const t0 = performance.now();
for (let i = 0; i < n; i++) held.handles.push(openAndRead(i, 1));
console.log(`reopening one and reading a patient: ${((performance.now() - t0) / n).toFixed(2)} ms`);
for (const h of held.handles) h.close();
rmSync(dir, { recursive: true, force: true });
