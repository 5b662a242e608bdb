import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, waitFor, type TestApp } from "@tests/helpers";
import { openEventStream } from "@tests/support/sse";

// Many event streams at once, over real HTTP (issue 19, item 4, at CI scale):
// 100 streams across 5 orgs while each org takes 20 writes. Every stream gets
// exactly its org's events, each once, in order, and no other org's. How fast
// they arrive is measured by the benchmark (row s1), not here.

const ORGS = 5;
const STREAMS_PER_ORG = 20;
const WRITES_PER_ORG = 20;

let t: TestApp;
let server: ReturnType<typeof Bun.serve>;
let base = "";
let token = "";
const orgIds: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  server = Bun.serve({ port: 0, fetch: (r) => t.handle(r), idleTimeout: 60 });
  base = `http://127.0.0.1:${server.port}`;
  token = await t.adminToken();
  for (let i = 0; i < ORGS; i++) orgIds.push((await t.createOrg()).id);
});
afterAll(async () => {
  server.stop(true);
  await t.close();
});

describe("event streams at scale", () => {
  test(`${ORGS * STREAMS_PER_ORG} streams over ${ORGS} orgs: every stream gets its org's ${WRITES_PER_ORG} events once, in order, and nothing else`, async () => {
    const streams = await Promise.all(orgIds.flatMap((orgId) => Array.from({ length: STREAMS_PER_ORG }, () => openEventStream(base, orgId, token))));
    const created = new Map<string, string[]>(orgIds.map((id) => [id, []]));
    // the orgs write at the same time, each its writes one after another (so their order is known)
    await Promise.all(
      orgIds.map(async (orgId) => {
        for (let i = 0; i < WRITES_PER_ORG; i++) {
          const r = await fetch(`${base}/api/v1/${orgId}/locations`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ name: `Scale ${i}`, timezone: "UTC" }),
          });
          expect(r.status).toBe(201);
          created.get(orgId)!.push(((await r.json()) as { id: string }).id);
        }
      }),
    );
    await waitFor(() => streams.every((s) => s.events.length >= WRITES_PER_ORG), {
      timeoutMs: 10_000,
      intervalMs: 20,
      what: () => `every stream to hold ${WRITES_PER_ORG} events (fewest: ${Math.min(...streams.map((s) => s.events.length))})`,
    });
    await Bun.sleep(100); // anything extra (a duplicate, another org's event) would arrive by now
    const wrong = streams.flatMap((s) => {
      const got = s.events.map((e) => `${e.org_id} ${e.type} ${e.resource_id}`);
      const want = created.get(s.orgId)!.map((id) => `${s.orgId} location.created ${id}`);
      return JSON.stringify(got) === JSON.stringify(want) ? [] : [{ org: s.orgId, got: got.slice(0, 5), count: got.length }];
    });
    expect(wrong).toEqual([]);
    // each event carries one id, seen by all of its org's streams
    for (const orgId of orgIds) {
      const ids = new Set(streams.filter((s) => s.orgId === orgId).flatMap((s) => s.events.map((e) => e.id)));
      expect(ids.size).toBe(WRITES_PER_ORG);
    }
    await Promise.all(streams.map((s) => s.close()));
  }, 60_000);
});
