// In-process timing of `GET /api/ping` (the (e0) row's request) through Cusp's
// app.handle, beside the same route on a bare Elysia app: what the plugin chain
// costs a request with no network in the way. `bun bench/profile/ping-path.ts [N]`;
// add `--cpu-prof` to bun for a profile.
import { Elysia } from "elysia";
import { startTestApp } from "@tests/helpers";

const N = Number(process.argv[2] ?? 200_000);
// the bench's limits: far above the load, so the buckets' bookkeeping is in the figure
const t = await startTestApp({
  RESPONSE_SCHEMAS: "trust",
  RATE_LIMITS: "on",
  RATE_LIMIT_READ: "10000000/s,10000000",
  RATE_LIMIT_WRITE: "10000000/s,10000000",
  RATE_LIMIT_AUTH: "10000000/s,10000000",
});
const bare = new Elysia().get("/api/ping", () => ({ status: "ok" as const }));

async function time(label: string, handle: (r: Request) => Response | Promise<Response>) {
  for (let round = 1; round <= 3; round++) {
    const start = performance.now();
    for (let i = 0; i < N; i++) {
      const res = await handle(new Request("http://localhost/api/ping"));
      if (res.status !== 200) throw new Error(`${label}: ${res.status}`);
      await res.arrayBuffer();
    }
    console.log(`${label}, round ${round}: ${(((performance.now() - start) * 1000) / N).toFixed(2)} µs a request`);
  }
}
if (process.env.ONLY !== "cusp") await time("bare Elysia", (r) => bare.handle(r));
if (process.env.ONLY !== "bare") await time("Cusp", (r) => t.handle(r));
await t.close();
