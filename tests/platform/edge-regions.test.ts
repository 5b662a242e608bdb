import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REDIS_URL, redisUnavailable } from "@tests/support/redis";
import { startServer, type ServerProcess } from "@tests/support/server-process";
import { openEventStream } from "@tests/support/sse";
import { waitFor } from "@tests/support/wait";
import { SyncRouter } from "@scripts/services/tursodb";

// Edge regions against real tursodb sync servers (docs/operations/deploy.md, "Edge
// regions"): a primary instance (region iad) and two edge instances (ord,
// forwarding writes itself; fra, answering them with fly-replay) are real
// `bun run src/server.ts` processes sharing the control database and Redis;
// their orgs live on a turso-sync shard served by scripts/services/tursodb.ts
// (one sync server per org database). Each instance keeps its own replicas.

const why = "the edge-region tests";
const down = await redisUnavailable("edge-regions.test", why);
const it = test.skipIf(!!down);

const dir = mkdtempSync(join(tmpdir(), "cusp-edge-"));
let router: SyncRouter;
let primary: ServerProcess;
let edge: ServerProcess;
let replayEdge: ServerProcess;
let admin = "";
let org = "";
let P = "";
const fx = { location: "", provider: "", operatory: "", type: "" };

/** One instance's environment: the shared control database, shard, secrets and Redis; its own region (the primary's is iad). */
function edgeEnv(region: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    CONTROL_DATABASE_URL: `file:${join(dir, "control.db")}`,
    DEFAULT_SHARD_DSN: `turso-sync:${router.template}`,
    DPMS_JWT_SECRET: "edge-test-secret-edge-test-secret-0123456789",
    STORAGE_URL_SECRET: "edge-test-storage-secret",
    REDIS_URL,
    PRIMARY_REGION: "iad",
    REGION: region,
    EDGE_CATCH_UP_MS: "2000",
    LOG_LEVEL: "error",
    ...extra,
  };
}

type Reply = { status: number; body: any; headers: Headers };
/**
 * The last replication position a write answered, sent with every later
 * request as a client keeping read-your-writes does (`fresh: false` leaves it
 * out: a read that accepts the replica as it is).
 */
let lastPosition = 0;
async function call(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; fresh?: boolean } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {
    ...(lastPosition && opts.fresh !== false ? { "cusp-replication-position": String(lastPosition) } : {}),
    ...opts.headers,
  };
  if (opts.token ?? admin) headers.authorization = `Bearer ${opts.token ?? admin}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  const position = Number(res.headers.get("cusp-replication-position") ?? 0);
  if (position > lastPosition) lastPosition = position;
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}
async function ok(p: Promise<Reply>, want = 200): Promise<Reply> {
  const r = await p;
  if (r.status !== want) {
    // the instances log errors only: what they said helps when this fails in CI
    const logs = [primary, edge, replayEdge].map((x) => x?.output().slice(-2000) ?? "").join("\n---\n");
    throw new Error(`expected ${want}, got ${r.status} ${JSON.stringify(r.body)}\n${logs}`);
  }
  return r;
}

beforeAll(async () => {
  if (down) return;
  router = new SyncRouter(join(dir, "sync-shard")).start();
  // the primary first: it migrates the control database and creates the administrator
  primary = await startServer(join(dir, "iad"), { env: edgeEnv("iad") });
  [edge, replayEdge] = await Promise.all([
    startServer(join(dir, "ord"), { env: edgeEnv("ord", { EDGE_WRITES: "forward", PRIMARY_URL: primary.base }) }),
    startServer(join(dir, "fra"), { env: edgeEnv("fra", { EDGE_WRITES: "fly-replay" }) }),
  ]);
  admin = (await ok(call(edge.base, "POST", "/api/v1/auth/login", { token: "", body: { email: "admin@example.com", password: "admin-password" } }))).body
    .access_token;
  org = (await ok(call(edge.base, "POST", "/api/v1/admin/orgs", { body: { name: "Edge Dental", slug: `edge-${Date.now().toString(36)}` } }), 201)).body.id;
  P = `/api/v1/${org}`;
  fx.location = (await ok(call(edge.base, "POST", `${P}/locations`, { body: { name: "Portland", timezone: "America/Los_Angeles" } }), 201)).body.id;
  fx.provider = (await ok(call(edge.base, "POST", `${P}/providers`, { body: { abbreviation: "DRE", first_name: "Edie", last_name: "Edge" } }), 201)).body.id;
  fx.operatory = (await ok(call(edge.base, "POST", `${P}/schedule/operatories`, { body: { location_uuid: fx.location, name: "Chair 1" } }), 201)).body.id;
  fx.type = (
    await ok(call(edge.base, "POST", `${P}/appointment-types`, { body: { code: "EXAM", name: "Exam", duration_minutes: 30, color: "#336699" } }), 201)
  ).body.id;
}, 120_000);

afterAll(async () => {
  await Promise.all([primary, edge, replayEdge].filter(Boolean).map((s) => s.kill("SIGTERM")));
  await router?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const positionOf = (r: Reply) => Number(r.headers.get("cusp-replication-position"));

describe("an edge instance", () => {
  it("answers reads itself and sends writes to the primary, which returns the replication position", async () => {
    const read = await ok(call(edge.base, "GET", `${P}/locations/${fx.location}`));
    expect(read.headers.get("cusp-region")).toBe("ord");
    expect(read.body).toMatchObject({ id: fx.location, name: "Portland" });
    const write = await ok(call(edge.base, "PATCH", `${P}/locations/${fx.location}`, { body: { phone: "503-555-0100", base_version: read.body.version } }));
    // answered by the primary (forwarded by the edge), with its position and the cookie for the org's paths
    expect(write.headers.get("cusp-region")).toBe("iad");
    expect(positionOf(write)).toBeGreaterThan(0);
    expect(write.headers.get("set-cookie")).toContain(`cusp_rp=${positionOf(write)}; Path=${P}; Max-Age=300; HttpOnly; SameSite=Lax`);
    expect(write.body).toMatchObject({ phone: "503-555-0100", version: read.body.version + 1 });
  });

  it("reads its own writes: a read carrying the position waits for the replica, by header or by cookie", async () => {
    for (let i = 0; i < 5; i++) {
      const before = (await ok(call(edge.base, "GET", `${P}/locations/${fx.location}`))).body;
      const name = `Portland ${i}`;
      const write = await ok(call(edge.base, "PATCH", `${P}/locations/${fx.location}`, { body: { name, base_version: before.version } }));
      const position = positionOf(write);
      const headers: Record<string, string> = i % 2 ? { "cusp-replication-position": String(position) } : { cookie: `cusp_rp=${position}` };
      const read = await ok(call(edge.base, "GET", `${P}/locations/${fx.location}`, { headers, fresh: false }));
      expect(read.headers.get("cusp-region")).toBe("ord");
      expect(read.body).toMatchObject({ name, version: before.version + 1 });
    }
  });

  it("a read asking for a position the replica cannot reach in time is answered by the primary", async () => {
    const read = await ok(call(edge.base, "GET", `${P}/locations/${fx.location}`, { headers: { "cusp-replication-position": "999999999" } }));
    expect(read.headers.get("cusp-region")).toBe("iad");
    expect(read.body.id).toBe(fx.location);
  });

  it("runs the booking pipeline: patient search at the edge (its derived search index), types, then the booking through the primary", async () => {
    const created = await ok(
      call(edge.base, "POST", `${P}/patients`, {
        body: { first_name: "Marguerite", last_name: "Okonkwo", date_of_birth: "1984-03-02", location_uuid: fx.location, mobile_phone: "503-555-0142" },
      }),
      201,
    );
    const position = { "cusp-replication-position": String(positionOf(created)) };
    const search = async (term: string) => (await ok(call(edge.base, "GET", `${P}/patients?search=${encodeURIComponent(term)}`, { headers: position }))).body;
    const found = await search("Marg Okon");
    expect(found.items.map((p: { uuid: string }) => p.uuid)).toEqual([created.body.uuid]);
    expect(found.total).toBe(1);
    expect((await search("Okonkwo, M")).items.map((p: { uuid: string }) => p.uuid)).toEqual([created.body.uuid]);
    expect((await search("5550142")).items.map((p: { uuid: string }) => p.uuid)).toEqual([created.body.uuid]);
    expect((await search("Zebedee")).total).toBe(0);
    const types = (await ok(call(edge.base, "GET", `${P}/appointment-types?is_active=true`))).body.items;
    const exam = types.find((t: { code: string }) => t.code === "EXAM");
    const booking = {
      patient_uuid: found.items[0].uuid,
      appointment_type_uuid: exam.uuid,
      location_uuid: fx.location,
      provider_uuid: fx.provider,
      operatory_uuid: fx.operatory,
      scheduled_start: "2027-03-01T17:00:00Z",
      scheduled_end: "2027-03-01T17:30:00Z",
    };
    const booked = await ok(call(edge.base, "POST", `${P}/appointments`, { body: booking }), 201);
    expect(booked.headers.get("cusp-region")).toBe("iad");
    // the same chair and time again: the primary refuses the double booking
    const again = await call(edge.base, "POST", `${P}/appointments`, { body: booking });
    expect(again.status).toBe(409);
    const read = await ok(
      call(edge.base, "GET", `${P}/appointments/${booked.body.uuid}`, { headers: { "cusp-replication-position": String(positionOf(booked)) } }),
    );
    expect(read.headers.get("cusp-region")).toBe("ord");
    // local time at the location (America/Los_Angeles)
    expect(read.body).toMatchObject({
      uuid: booked.body.uuid,
      status: "scheduled",
      scheduled_start: "2027-03-01T09:00:00",
      scheduled_end: "2027-03-01T09:30:00",
    });
  });

  it("delivers the org's events to a stream held at the edge", async () => {
    const stream = await openEventStream(edge.base, org, admin);
    try {
      const before = (await ok(call(edge.base, "GET", `${P}/locations/${fx.location}`))).body;
      await ok(call(edge.base, "PATCH", `${P}/locations/${fx.location}`, { body: { city: "Portland", base_version: before.version } }));
      await stream.until(() => stream.events.some((e) => e.type === "location.updated" && e.resource_id === fx.location), "the primary's event at the edge");
      expect(stream.events.every((e) => e.org_id === org)).toBe(true);
    } finally {
      await stream.close();
    }
  });

  it("reports its replicas' lag in /api/health; the primary reports what it has not pushed", async () => {
    const edgeHealth = (await ok(call(edge.base, "GET", "/api/health", { token: "" }))).body;
    expect(edgeHealth.replication).toMatchObject({ region: "ord", primary_region: "iad", role: "edge", databases: 1, errors: 0, unpushed: 0 });
    expect(edgeHealth.replication.max_lag_ms).toBeGreaterThanOrEqual(0);
    expect(edgeHealth.replication.max_lag_ms).toBeLessThan(60_000);
    const primaryHealth = (await ok(call(primary.base, "GET", "/api/health", { token: "" }))).body;
    expect(primaryHealth.replication).toMatchObject({
      region: "iad",
      primary_region: "iad",
      role: "primary",
      databases: 1,
      max_lag_ms: 0,
      unpushed: 0,
      errors: 0,
    });
  });
});

describe("an org on a local-file shard", () => {
  it("is the primary's alone: an edge sends its reads to the primary too", async () => {
    const shard = await ok(
      call(edge.base, "POST", "/api/v1/admin/shards", { body: { name: "iad-disk", dsn: `file:${join(dir, "iad-disk")}`, region: "iad", max_orgs: 10 } }),
      201,
    );
    // the emptiest shard takes the next org
    const local = (await ok(call(edge.base, "POST", "/api/v1/admin/orgs", { body: { name: "Disk Dental", slug: `disk-${Date.now().toString(36)}` } }), 201))
      .body;
    expect(local.shard.id).toBe(shard.body.id);
    const created = await ok(call(edge.base, "POST", `/api/v1/${local.id}/locations`, { body: { name: "Salem", timezone: "America/Los_Angeles" } }), 201);
    expect(created.headers.get("cusp-replication-position")).toBeNull(); // not replicated: no position
    const read = await ok(call(edge.base, "GET", `/api/v1/${local.id}/locations/${created.body.id}`));
    expect(read.headers.get("cusp-region")).toBe("iad");
    expect(read.body).toMatchObject({ id: created.body.id, name: "Salem" });
  });
});

describe("an edge behind fly's proxy", () => {
  it("answers a write with fly-replay naming the primary region, and writes nothing itself", async () => {
    const before = (await ok(call(replayEdge.base, "GET", `${P}/locations/${fx.location}`))).body;
    const r = await call(replayEdge.base, "PATCH", `${P}/locations/${fx.location}`, { body: { name: "Never", base_version: before.version } });
    expect(r.status).toBe(503);
    expect(r.headers.get("fly-replay")).toBe("region=iad;state=write");
    expect(r.headers.get("retry-after")).toBe("1");
    expect(r.body).toMatchObject({ code: "service_unavailable" });
    const after = await ok(call(primary.base, "GET", `${P}/locations/${fx.location}`));
    expect(after.body).toMatchObject({ name: before.name, version: before.version });
  });

  it("answers reads from its own replica", async () => {
    const read = await ok(call(replayEdge.base, "GET", `${P}/locations/${fx.location}`));
    expect(read.headers.get("cusp-region")).toBe("fra");
    expect(read.body.id).toBe(fx.location);
  });
});

describe("failures", () => {
  it("while the shard's sync servers are unreachable, edge reads go on, writes at the primary are kept and reach the edge once they are back", async () => {
    await ok(call(edge.base, "GET", `${P}/locations/${fx.location}`)); // a fresh pull
    router.down = true;
    let position = 0;
    try {
      // within the staleness bound the replica answers as it is
      const read = await ok(call(edge.base, "GET", `${P}/locations/${fx.location}`));
      expect(read.headers.get("cusp-region")).toBe("ord");
      const write = await ok(call(edge.base, "PATCH", `${P}/locations/${fx.location}`, { body: { name: "Held", base_version: read.body.version } }));
      position = positionOf(write);
      expect((await ok(call(primary.base, "GET", "/api/health", { token: "" }))).body.replication.unpushed).toBeGreaterThan(0);
      // the replica cannot reach the position: the primary answers
      const mine = await ok(call(edge.base, "GET", `${P}/locations/${fx.location}`, { headers: { "cusp-replication-position": String(position) } }));
      expect(mine.headers.get("cusp-region")).toBe("iad");
      expect(mine.body.name).toBe("Held");
    } finally {
      router.down = false;
    }
    await waitFor(
      async () => {
        const r = await call(edge.base, "GET", `${P}/locations/${fx.location}`, { headers: { "cusp-replication-position": String(position) } });
        return r.status === 200 && r.headers.get("cusp-region") === "ord" && r.body.name === "Held";
      },
      { timeoutMs: 20_000, intervalMs: 100, what: () => "the held write to reach the edge's replica" },
    );
    expect((await ok(call(primary.base, "GET", "/api/health", { token: "" }))).body.replication.unpushed).toBe(0);
  }, 40_000);

  it("while the primary is down, edge reads continue and writes answer 503 with Retry-After; nothing written before is lost", async () => {
    const before = (await ok(call(edge.base, "GET", `${P}/locations/${fx.location}`))).body;
    await primary.kill("SIGKILL");
    try {
      const read = await ok(call(edge.base, "GET", `${P}/locations/${fx.location}`));
      expect(read.body).toMatchObject({ id: fx.location, name: before.name, version: before.version });
      const write = await call(edge.base, "PATCH", `${P}/locations/${fx.location}`, { body: { name: "Lost?", base_version: before.version } });
      expect(write.status).toBe(503);
      expect(write.headers.get("retry-after")).toBe("2");
      expect(write.body.code).toBe("service_unavailable");
    } finally {
      // the primary comes back on the same port, with its replicas and the shard
      primary = await startServer(primary.dataDir, { env: edgeEnv("iad"), port: primary.port });
    }
    const after = await ok(call(edge.base, "PATCH", `${P}/locations/${fx.location}`, { body: { name: "Back", base_version: before.version } }));
    expect(after.headers.get("cusp-region")).toBe("iad");
    expect(after.body).toMatchObject({ name: "Back", version: before.version + 1 });
  }, 90_000);

  it("an edge restarted keeps its replicas: never answered from one it cannot bring up to date, and caught up incrementally once it can", async () => {
    await edge.kill("SIGTERM");
    router.down = true;
    try {
      edge = await startServer(edge.dataDir, { env: edgeEnv("ord", { EDGE_WRITES: "forward", PRIMARY_URL: primary.base }) });
      // the replica on disk may be any age: with no pull possible the primary answers
      const read = await ok(call(edge.base, "GET", `${P}/locations/${fx.location}`));
      expect(read.headers.get("cusp-region")).toBe("iad");
      expect(read.body.name).toBe("Back");
    } finally {
      router.down = false;
    }
    const read = await ok(call(edge.base, "GET", `${P}/locations/${fx.location}`));
    expect(read.headers.get("cusp-region")).toBe("ord");
    expect(read.body.name).toBe("Back");
  }, 60_000);
});
