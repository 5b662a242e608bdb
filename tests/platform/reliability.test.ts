import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count } from "drizzle-orm";
import { loadConfig } from "@/config";
import { buildApp } from "@/app";
import { jobOutbox as controlOutbox } from "@db/control/schema";
import { jobOutbox } from "@db/tenant/job-outbox";
import { closeRuntime, createRuntime } from "@/platform/bootstrap/create-runtime";
import { systemActor } from "@/platform/auth/actor";
import { all, get } from "@/platform/db/work";
import { queueJob } from "@/platform/queue/enqueue";
import { withTransaction } from "@/platform/records/transaction";
import type { JobEnvelope, JobQueue } from "@/platform/queue/types";
import type { Runtime } from "@/platform/runtime";
import { startWorkers } from "@/platform/queue/workers";
import { healthProbe } from "@workers/jobs/health-probe";
import { JOBS } from "@workers/registry";
import { REACTIONS } from "@/reactions";
import { createMember, startTestApp, waitFor, type TestApp } from "@tests/helpers";
import { postForm } from "@tests/support/documents/upload";
import { cardFrontJpeg } from "@tests/support/documents/fixtures";
import { startS3rver } from "@tests/support/s3rver";

// What a committed write answers and what becomes of its effects when a shared
// service is away (docs/platform/reliability.md), in process: the queue refusing
// or hanging (its send replaced), the bus refusing (its publish replaced), and
// two runtimes on one data directory with separate buses (the bus between
// instances down). tests/platform/faults.test.ts does the same with real
// Redis and PostgreSQL processes killed under load.

type Sent = { name: string; envelope: JobEnvelope<unknown>; id?: string };

/** Make the runtime's queue refuse (or hang) until `restore()`; what it took is in `sent`. */
function breakQueue(queue: JobQueue, how: "refuse" | "hang") {
  const real = queue.send.bind(queue);
  const sent: Sent[] = [];
  let broken = true;
  queue.send = async (name, envelope, options) => {
    if (broken) {
      if (how === "hang") await new Promise(() => {});
      throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
    }
    const id = await real(name, envelope, options);
    if (id) sent.push({ name, envelope: envelope as JobEnvelope<unknown>, id });
    return id;
  };
  return {
    sent,
    restore: () => {
      broken = false;
    },
    unpatch: () => {
      queue.send = real;
    },
  };
}

describe("the queue away: the write answers, its jobs wait in the outbox and go out once", () => {
  let t: TestApp;
  let token: string;
  let orgId: string;

  // an app with its queue (PGlite and every job type's queue) takes seconds on a busy machine
  beforeAll(async () => {
    t = await startTestApp({}, { withQueue: true });
    token = await t.adminToken();
    orgId = (await t.createOrg(token)).id;
  }, 30_000);
  afterAll(() => t?.close());

  const outboxRows = async () => {
    const ctx = (await t.rt.orgs.openOrgForJob(orgId, { actor: systemActor("test"), requestId: null }))!;
    return ctx.db.read((db) => all<{ id: string; name: string }>(db.select({ id: jobOutbox.id, name: jobOutbox.name }).from(jobOutbox)));
  };

  test("an upload while the queue refuses: 201 at once, the scan job recorded, health counts it; handed over once when the queue is back", async () => {
    const queue = breakQueue(t.rt.queue!, "refuse");
    try {
      const started = performance.now();
      const r = await postForm(t, token, `/api/v1/${orgId}/documents`, { bytes: await cardFrontJpeg(), name: "card.jpg" });
      const ms = performance.now() - started;
      expect(r.status).toBe(201);
      expect(r.body.status).toBe("processing");
      expect(ms).toBeLessThan(2_000);
      expect((await outboxRows()).map((row) => row.name)).toEqual(["documents.scan"]);
      const health = (await t.request("GET", "/api/health")).body;
      expect(health.effects.jobs_pending).toBeGreaterThanOrEqual(1);
      expect(health.effects.orgs_with_pending_jobs).toBe(1);

      queue.restore();
      await waitFor(async () => (await outboxRows()).length === 0, { timeoutMs: 5_000 });
      expect(queue.sent.map((s) => [s.name, (s.envelope.payload as { document_id: string }).document_id])).toEqual([["documents.scan", r.body.id]]);
      // handed over under the outbox row's id, with the uploader and the request
      expect(queue.sent[0]!.envelope.org_id).toBe(orgId);
      expect(queue.sent[0]!.envelope.actor.type).toBe("user");
      expect((await t.request("GET", "/api/health")).body.effects).toMatchObject({ jobs_pending: 0, orgs_with_pending_jobs: 0 });
    } finally {
      queue.unpatch();
    }
  });

  test("a row handed over twice is one job: the queue ignores an id it has", async () => {
    const ctx = (await t.rt.orgs.openOrgForJob(orgId, { actor: systemActor("test"), requestId: null }))!;
    const id = Bun.randomUUIDv7();
    const envelope = { payload: { note: "twice" }, actor: systemActor("x"), request_id: null, org_id: orgId };
    expect(await t.rt.queue!.send(healthProbe.id, envelope, { id })).toBe(id);
    expect(await t.rt.queue!.send(healthProbe.id, envelope, { id })).toBeNull();
    expect((await t.rt.queue!.getJob(healthProbe.id, id))?.id).toBe(id);
    expect(ctx.org.id).toBe(orgId);
  });
});

describe("jobs left by a process that stopped before handing them over", () => {
  test("the next process hands over the control outbox at start, and an org's when it opens the org", async () => {
    const t = await startTestApp({}, { withQueue: true });
    const token = await t.adminToken();
    const orgId = (await t.createOrg(token)).id;
    const queue = breakQueue(t.rt.queue!, "refuse");
    const ctx = (await t.rt.orgs.openOrgForJob(orgId, { actor: systemActor("test"), requestId: null }))!;
    await withTransaction(ctx, function* (s) {
      queueJob(s, healthProbe, { note: "left behind" });
    });
    // a control-database write's job (an org move's is one): recorded in the control outbox
    await t.rt.orgs.writeControl(function* (_tx, _audit, _now, queueControl) {
      queueControl({ orgId, caller: { actor: systemActor("test"), requestId: null, ip: null } }, healthProbe, { note: "control" });
    });
    queue.unpatch();
    const dir = t.dir;
    // the process stops with both still recorded
    await t.rt.orgs.jobRelay.stop();
    await closeRuntime(t.rt);

    const rt: Runtime = await createRuntime(loadConfig({ DATA_DIR: dir, LOG_LEVEL: "silent" }), { reactions: REACTIONS });
    try {
      const controlLeft = () => rt.control.read((db) => get<{ n: number }>(db.select({ n: count() }).from(controlOutbox)));
      await waitFor(async () => (await controlLeft())!.n === 0, { timeoutMs: 5_000 });
      // opening the org (a request, a job) finds its outbox
      const org = (await rt.orgs.openOrgForJob(orgId, { actor: systemActor("test"), requestId: null }))!;
      await waitFor(async () => (await org.db.read((db) => all(db.select().from(jobOutbox)))).length === 0, { timeoutMs: 5_000 });
      const stop = await startWorkers(rt, JOBS);
      await stop();
    } finally {
      await closeRuntime(rt);
    }
    // two processes' worth of start-up (each with its queue), on a machine that may be busy
  }, 30_000);
});

describe("the bus away", () => {
  test("a write answers at once; its events are kept and published, in order, when the bus is back", async () => {
    const t = await startTestApp();
    try {
      const token = await t.adminToken();
      const orgId = (await t.createOrg(token)).id;
      const got: string[] = [];
      t.rt.events.subscribe(orgId, (e) => got.push(`${e.type}:${e.resource_id}`));
      const bus = t.rt.bus;
      const publish = bus.publish.bind(bus);
      bus.publish = () => Promise.reject(new Error("redis is not answering"));
      const ids: string[] = [];
      for (const name of ["North", "South"]) {
        const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name, timezone: "UTC" } });
        expect(r.status).toBe(201);
        ids.push(r.body.id);
      }
      expect(got).toEqual([]);
      expect((await t.request("GET", "/api/health")).body.effects.events_pending).toBe(2);
      bus.publish = publish;
      await waitFor(() => got.length === 2, { timeoutMs: 5_000 });
      expect(got).toEqual(ids.map((id) => `location.created:${id}`));
      expect((await t.request("GET", "/api/health")).body.effects.events_pending).toBe(0);
    } finally {
      await t.close();
    }
  });

  test("an IAM write whose invalidation the bus refuses still answers its own status", async () => {
    const t = await startTestApp();
    try {
      const token = await t.adminToken();
      const orgId = (await t.createOrg(token)).id;
      const member = await createMember(t, orgId, ["locations.read"]);
      const bus = t.rt.bus;
      const publish = bus.publish.bind(bus);
      bus.publish = () => Promise.reject(new Error("redis is not answering"));
      try {
        const r = await t.request("POST", `/api/v1/${orgId}/iam/users/${member.userId}/remove`, { token });
        expect(r.status).toBe(200);
        expect(r.body.membership_status).toBe("removed");
      } finally {
        bus.publish = publish;
      }
      expect((await t.request("GET", `/api/v1/${orgId}/locations`, { token: member.token })).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  test("a member removed through one instance is refused by another within a second, with no bus between them", async () => {
    const a = await startTestApp();
    const rtB = await createRuntime(loadConfig({ DATA_DIR: a.dir, LOG_LEVEL: "silent", RESPONSE_SCHEMAS: "strict", RATE_LIMITS: "off" }), {
      withQueue: false,
      reactions: REACTIONS,
    });
    try {
      const appB = buildApp(rtB);
      const token = await a.adminToken();
      const orgId = (await a.createOrg(token)).id;
      const member = await createMember(a, orgId, ["locations.read"]);
      const readOnB = async () =>
        (await appB.handle(new Request(`http://localhost/api/v1/${orgId}/locations`, { headers: { authorization: `Bearer ${member.token}` } }))).status;
      // B has the member's access cached
      expect(await readOnB()).toBe(200);
      expect(await readOnB()).toBe(200);
      const removed = await a.request("POST", `/api/v1/${orgId}/iam/users/${member.userId}/remove`, { token });
      expect(removed.status).toBe(200);
      const answeredAt = performance.now();
      // the two runtimes' in-process buses do not reach each other: only the access epoch can tell B
      await waitFor(async () => (await readOnB()) === 404, { timeoutMs: 2_000, intervalMs: 20 });
      expect(performance.now() - answeredAt).toBeLessThan(1_000);
    } finally {
      await closeRuntime(rtB);
      await a.close();
    }
  });
});

describe("S3 away", () => {
  test("an upload while S3 does not answer is 503 and stores nothing; uploads work again once it is back", async () => {
    const s3 = await startS3rver();
    const t = await startTestApp(s3.env);
    try {
      const token = await t.adminToken();
      const P = `/api/v1/${(await t.createOrg(token)).id}/documents`;
      const upload = (name: string) => cardFrontJpeg().then((bytes) => postForm(t, token, P, { bytes, name }));
      expect((await upload("before.jpg")).status).toBe(201);
      await s3.stop();
      const refused = await upload("during.jpg");
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ code: "service_unavailable", detail: "A service this request needs cannot be reached; try again shortly" });
      const titles = async () =>
        ((await t.request("GET", `${P}?include_org_scoped=true`, { token })).body.items as { title: string }[]).map((d) => d.title).sort();
      expect(await titles()).toEqual(["before.jpg"]);
      await s3.start();
      expect((await upload("after.jpg")).status).toBe(201);
      expect(await titles()).toEqual(["after.jpg", "before.jpg"]);
    } finally {
      await t.close();
      await s3.close();
    }
  }, 60_000);
});
