import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { loadConfig } from "@/config";
import { locations } from "@db/tenant/practice";
import { closeRuntime, createRuntime } from "@/platform/bootstrap/create-runtime";
import { systemActor } from "@/platform/auth/actor";
import { get, run } from "@/platform/db/work";
import { Conflict } from "@/platform/errors";
import { newId } from "@/platform/ids";
import { afterCommit, announce, defineMoment, inTransaction, reactionTable } from "@/platform/records/moments";
import { withTransaction } from "@/platform/records/transaction";
import type { OrgContext } from "@/platform/records/context";
import type { Runtime } from "@/platform/runtime";
import type { JobEnvelope } from "@/platform/queue/types";
import { healthProbe } from "@workers/jobs/health-probe";
import { REACTIONS } from "@/reactions";
import { documentSigned } from "@/domains/documents/moments";
import { procedureCompleted, procedureDeleted, procedureFeeChanged } from "@/domains/clinical/charted-procedures/moments";
import { appointmentBooked, appointmentBroken, appointmentCancelled, appointmentCompleted } from "@/domains/scheduling/appointments/moments";
import { startTestApp, type TestApp } from "@tests/helpers";

// The moments mechanism (platform/records/moments.ts): a write announces, the
// runtime's reactions run inside its transaction or queue jobs for after its
// commit. Run on an org of a test app, through a second runtime on the same
// data directory that carries this file's own reactions.

const thingHappened = defineMoment<{ name: string }>("test_thing.happened", "A moment of this test");
const nobodyListens = defineMoment<{ n: number }>("test_thing.unheard", "A moment no reaction lists");

const reactions = reactionTable([
  // what must be atomic with the write: a row, or a refusal that fails the write
  inTransaction(thingHappened, "test.record_it", function* (s, p) {
    if (p.name === "refused") throw new Conflict("Refused by a reaction", "refused_by_reaction");
    yield* run(s.tx.insert(locations).values({ id: newId(), name: `reaction:${p.name}`, timezone: "UTC", created_at: s.now, updated_at: s.now }));
  }),
  // what follows the commit: a job, checked now, sent after commit
  afterCommit(thingHappened, "test.probe", (p, queue) => queue(healthProbe, { note: p.name === "bad payload" ? (42 as never) : p.name })),
  // the same job queued again by another reaction in the same write: sent once
  afterCommit(thingHappened, "test.probe_again", (p, queue) => queue(healthProbe, { note: p.name })),
]);

let t: TestApp;
let rt: Runtime;
let orgId: string;
const sent: { name: string; envelope: JobEnvelope<unknown>; committed: boolean }[] = [];

beforeAll(async () => {
  t = await startTestApp();
  orgId = (await t.createOrg()).id;
  rt = await createRuntime(loadConfig({ DATA_DIR: t.dir, LOG_LEVEL: "silent" }), { reactions });
  // what reaches the queue, and whether the write's rows were committed by then
  const queue = rt.queue!;
  const send = queue.send.bind(queue);
  queue.send = async (name, envelope, options) => {
    const note = (envelope.payload as { note?: string }).note;
    sent.push({
      name,
      envelope: envelope as JobEnvelope<unknown>,
      committed: !!(await storedLocation(`reaction:${note}`)) || !!(await storedLocation(`write:${note}`)),
    });
    return send(name, envelope, options);
  };
});
afterAll(async () => {
  await closeRuntime(rt);
  await t.close();
});

async function context(): Promise<OrgContext> {
  return (await rt.orgs.openOrgForJob(orgId, { actor: systemActor("moments-test"), requestId: "req-moments" }))!;
}

async function storedLocation(name: string) {
  const ctx = (await rt.orgs.openOrgForJob(orgId, { actor: systemActor("moments-test"), requestId: null }))!;
  return (await ctx.db.read((db) => get(db.select({ id: locations.id }).from(locations).where(eq(locations.name, name))))) ?? null;
}

/** A write that stores a row of its own, announces, then may fail. */
async function write(name: string, options: { failAfter?: boolean } = {}) {
  return withTransaction(await context(), function* (s) {
    yield* run(s.tx.insert(locations).values({ id: newId(), name: `write:${name}`, timezone: "UTC", created_at: s.now, updated_at: s.now }));
    yield* announce(s, thingHappened, { name });
    if (options.failAfter) throw new Conflict("The write itself failed after announcing", "failed_after");
    return name;
  });
}

describe("moments", () => {
  test("an in-transaction reaction writes in the announcing write; its after-commit job is sent once, after commit, with the write's origin", async () => {
    expect(await write("committed")).toBe("committed");
    expect(await storedLocation("write:committed")).toBeTruthy();
    expect(await storedLocation("reaction:committed")).toBeTruthy();
    const mine = sent.filter((j) => (j.envelope.payload as { note?: string }).note === "committed");
    expect(mine.length).toBe(1);
    expect(mine[0]!.name).toBe("system.health-probe");
    expect(mine[0]!.committed).toBe(true);
    expect(mine[0]!.envelope.org_id).toBe(orgId);
    expect(mine[0]!.envelope.request_id).toBe("req-moments");
    // a system actor's write leaves the job its own system actor
    expect(mine[0]!.envelope.actor).toEqual(systemActor("system.health-probe"));
  });

  test("a write that fails after announcing keeps nothing: not the reaction's row, not its job", async () => {
    await expect(write("rolled back", { failAfter: true })).rejects.toThrow("The write itself failed after announcing");
    expect(await storedLocation("write:rolled back")).toBeNull();
    expect(await storedLocation("reaction:rolled back")).toBeNull();
    expect(sent.filter((j) => (j.envelope.payload as { note?: string }).note === "rolled back")).toEqual([]);
  });

  test("an in-transaction reaction that refuses fails the whole write", async () => {
    await expect(write("refused")).rejects.toThrow("Refused by a reaction");
    expect(await storedLocation("write:refused")).toBeNull();
    expect(sent.filter((j) => (j.envelope.payload as { note?: string }).note === "refused")).toEqual([]);
  });

  test("a job's payload is checked when it is queued: a bad one fails the write that queues it", async () => {
    const before = sent.length;
    await expect(write("bad payload")).rejects.toThrow();
    expect(await storedLocation("write:bad payload")).toBeNull();
    expect(await storedLocation("reaction:bad payload")).toBeNull();
    expect(sent.length).toBe(before);
  });

  test("a moment nobody listens to changes nothing", async () => {
    const before = sent.length;
    const result = await withTransaction(await context(), function* (s) {
      yield* announce(s, nobodyListens, { n: 1 });
      return s.after.jobs.length;
    });
    expect(result).toBe(0);
    expect(sent.length).toBe(before);
  });

  test("the table of reactions refuses a moment that is not defined and a listener named twice for one moment", () => {
    const ghost = { name: "ghost.moment", description: "never defined" };
    expect(() => reactionTable([afterCommit(ghost, "test.ghost", () => {})])).toThrow('a reaction to moment "ghost.moment", which is not defined');
    const twice = afterCommit(thingHappened, "test.twice", () => {});
    expect(() => reactionTable([twice, twice])).toThrow('"test.twice" reacts to "test_thing.happened" twice');
  });

  test("a moment is defined once, with a <thing>.<what happened> name", () => {
    expect(() => defineMoment("test_thing.happened", "again")).toThrow('moment "test_thing.happened" is defined twice');
    expect(() => defineMoment("Procedure completed", "")).toThrow("must be");
  });

  test("the service's reactions: auto-notes and the account's charge inside the completing write, estimates after it", () => {
    const sides = (name: string) => (REACTIONS.get(name) ?? []).map((r) => `${r.by}:${r.side}`);
    expect(sides(procedureCompleted.name)).toEqual([
      "clinical.auto_note:in_transaction",
      "account.charge:in_transaction",
      "insurance.estimates_recompute:after_commit",
      "recall.recompute:in_transaction",
    ]);
    expect(sides(procedureFeeChanged.name)).toEqual([
      "account.fee_correction:in_transaction",
      "insurance.estimates_recompute:after_commit",
      "insurance.claim_lock:in_transaction",
      "recall.recompute:in_transaction",
    ]);
    expect(sides(procedureDeleted.name)).toEqual(["insurance.claim_lock:in_transaction", "recall.recompute:in_transaction"]);
    // a presented treatment plan's document signed: the plan accepted in the signing write (docs/clinical/chart-pictures.md)
    expect(sides(documentSigned.name)).toEqual(["insurance.presentation_signed:in_transaction"]);
  });

  test("clinical's reactions to appointments: a booking's procedures put on it, completion completes them, breaking or cancelling frees them, all inside the write", () => {
    const mine = (name: string) => (REACTIONS.get(name) ?? []).filter((r) => r.by.startsWith("clinical.")).map((r) => `${r.by}:${r.side}`);
    expect(mine(appointmentBooked.name)).toEqual(["clinical.schedule_procedures:in_transaction"]);
    expect(mine(appointmentCompleted.name)).toEqual(["clinical.complete_procedures:in_transaction"]);
    expect(mine(appointmentBroken.name)).toEqual(["clinical.free_procedures:in_transaction"]);
    expect(mine(appointmentCancelled.name)).toEqual(["clinical.free_procedures:in_transaction"]);
    // clinical runs first: a reaction to the appointment (recall) sees its procedures moved
    expect(REACTIONS.get(appointmentCompleted.name)![0]!.by).toBe("clinical.complete_procedures");
  });
});
