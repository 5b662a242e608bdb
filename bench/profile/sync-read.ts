// In-process timing of the patient GET and search on a replicated (turso-sync)
// shard, at the primary (rows (r1p), (r2p)): `bun bench/profile/sync-read.ts [N] [R]`;
// add `--cpu-prof` to bun for a profile. SQL_TIMING=1 prints time per statement.
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { startTestApp } from "@tests/helpers";
import { orgWithPatients } from "./patients-org";
import { SyncRouter } from "@scripts/services/tursodb";

const N = Number(process.argv[2] ?? 300);
const R = Number(process.argv[3] ?? 3);
const router = new SyncRouter(mkdtempSync(join(tmpdir(), "cusp-sync-profile-"))).start();
const t = await startTestApp({ RESPONSE_SCHEMAS: "trust", DEFAULT_SHARD_DSN: `turso-sync:${router.template}` });
const token = await t.adminToken();
const { P, ids } = await orgWithPatients(t, token, N);
const headers = { authorization: `Bearer ${token}` };
for (const [what, path] of [
  ["patient GET", (i: number) => `${P}/patients/${ids[i]}`],
  ["search", (i: number) => `${P}/patients?search=First${i}%20Last&page_size=10`],
] as const) {
  for (let round = 1; round <= R; round++) {
    const start = performance.now();
    for (let i = 0; i < N; i++) {
      const res = await t.handle(new Request(`http://localhost${path(i)}`, { headers }));
      if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    console.log(`${what}, round ${round}: ${(((performance.now() - start) * 1000) / N).toFixed(0)} µs a request`);
  }
}
await t.close();
await router.stop();
