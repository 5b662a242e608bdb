// In-process timing of a patient GET (the (b) row's request) through app.handle:
// N patients created, then each read R times in turn. `bun bench/profile/read-path.ts [N] [R]`;
// add `--cpu-prof` to bun for a profile.
import { startTestApp } from "@tests/helpers";
import { orgWithPatients } from "./patients-org";

const N = Number(process.argv[2] ?? 1000);
const R = Number(process.argv[3] ?? 5);
const t = await startTestApp({ RESPONSE_SCHEMAS: process.env.RESPONSE_SCHEMAS ?? "trust" });
const token = await t.adminToken();
const { P, ids } = await orgWithPatients(t, token, N);
const headers = { authorization: `Bearer ${token}` };
for (let round = 1; round <= R; round++) {
  const start = performance.now();
  for (let i = 0; i < N; i++) {
    const res = await t.handle(new Request(`http://localhost${P}/patients/${ids[i]}`, { headers }));
    if (res.status !== 200) throw new Error(`${res.status}`);
    await res.arrayBuffer();
    if (i % 100 === 0) await new Promise((r) => setImmediate(r));
  }
  console.log(`patient GET, round ${round}: ${(((performance.now() - start) * 1000) / N).toFixed(0)} µs a request`);
}
await t.close();
export {};
