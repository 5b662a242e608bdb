// Rows (r1)-(r3) of `bun run bench` (issue 21): an edge region against a
// primary, both real src/server.ts processes on one turso-sync shard whose
// sync servers scripts/services/tursodb.ts runs (one per org database).
// This file builds the org (patients created through the primary's API, so
// every one went through the replication path) and measures the time from a
// write at the primary to its visibility at the edge; rows/edge.ts drives wrk.
import { FIRST_NAMES, LAST_NAMES, rng, type LoadedPatient } from "./patients";

export type EdgeFixture = { org: string; location: string; patients: LoadedPatient[] };

type Api = (base: string, method: string, path: string, body?: unknown, token?: string, headers?: Record<string, string>) => Promise<any>;

/** An org with `count` patients, written through the primary (`concurrency` at a time), then read back at the edge. */
export async function buildEdgeFixture(api: Api, primary: string, edge: string, token: string, count: number, concurrency = 20): Promise<EdgeFixture> {
  const slug = `bench-edge-${Date.now().toString(36)}`;
  const org = (await api(primary, "POST", "/api/v1/admin/orgs", { name: "Bench edge", slug }, token)).id as string;
  const P = `/api/v1/${org}`;
  const location = (await api(primary, "POST", `${P}/locations`, { name: "Portland", timezone: "America/Los_Angeles" }, token)).id as string;
  const random = rng(21);
  const patients: LoadedPatient[] = [];
  let next = 0;
  let position = 0;
  async function worker() {
    while (next < count) {
      next++;
      const first_name = FIRST_NAMES[Math.floor(random() * FIRST_NAMES.length)]!;
      const last_name = LAST_NAMES[Math.floor(random() * LAST_NAMES.length)]!;
      const res = await fetch(`${primary}${P}/patients`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ first_name, last_name, date_of_birth: "1980-01-01", location_uuid: location }),
      });
      if (res.status !== 201) throw new Error(`POST ${P}/patients -> ${res.status}: ${await res.text()}`);
      position = Math.max(position, Number(res.headers.get("cusp-replication-position") ?? 0));
      patients.push({ id: ((await res.json()) as { id: string }).id, first_name, last_name });
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  // the edge holds every patient before anything is measured there
  const seen = await api(edge, "GET", `${P}/patients?page_size=1`, undefined, token, { "cusp-replication-position": String(position) });
  if (seen.total !== count) throw new Error(`the edge sees ${seen.total} of ${count} patients`);
  return { org, location, patients };
}

export type Visibility = { samples: number; p50_ms: number; p99_ms: number; max_ms: number; ryw_p50_ms: number; ryw_p99_ms: number };

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/**
 * (r3): `samples` times, a location rename at the primary, then the edge polled
 * (every 2 ms, without the position: what another client sees) until it
 * answers the new name: ms from the write's answer to that read. Then the same
 * read with the write's position (read-your-writes): ms until it answers.
 */
export async function measureVisibility(primary: string, edge: string, token: string, fx: EdgeFixture, samples: number): Promise<Visibility> {
  const P = `/api/v1/${fx.org}`;
  const path = `${P}/locations/${fx.location}`;
  const auth = { authorization: `Bearer ${token}` };
  const lag: number[] = [];
  const ryw: number[] = [];
  for (let i = 0; i < samples; i++) {
    const current = (await (await fetch(`${primary}${path}`, { headers: auth })).json()) as { version: number };
    const name = `Portland ${i}`;
    const write = await fetch(`${primary}${path}`, {
      method: "PATCH",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name, base_version: current.version }),
    });
    if (!write.ok) throw new Error(`PATCH ${path} -> ${write.status}: ${await write.text()}`);
    await write.arrayBuffer();
    const position = write.headers.get("cusp-replication-position")!;
    const written = performance.now();
    if (i % 2 === 0) {
      for (;;) {
        const r = (await (await fetch(`${edge}${path}`, { headers: auth })).json()) as { name: string };
        if (r.name === name) break;
        if (performance.now() - written > 10_000) throw new Error(`the edge did not see write ${i} within 10 s`);
        await Bun.sleep(2);
      }
      lag.push(performance.now() - written);
    } else {
      const r = await fetch(`${edge}${path}`, { headers: { ...auth, "cusp-replication-position": position } });
      const body = (await r.json()) as { name: string };
      if (body.name !== name) throw new Error(`read-your-writes at the edge answered ${body.name}, not ${name}`);
      ryw.push(performance.now() - written);
    }
  }
  return {
    samples,
    p50_ms: pct(lag, 50),
    p99_ms: pct(lag, 99),
    max_ms: Math.max(...lag),
    ryw_p50_ms: pct(ryw, 50),
    ryw_p99_ms: pct(ryw, 99),
  };
}
