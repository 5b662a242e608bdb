import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import { auditIndex, orgAuditOutbox } from "@db/control/schema";
import { all, run } from "@/platform/db/work";
import { loadConfig } from "@/config";
import { closeRuntime, createRuntime } from "@/platform/bootstrap/create-runtime";
import { OrgAuditOutbox, recordOrgAudit } from "@/platform/audit/org-outbox";
import type { EventEnvelope } from "@/platform/events/envelope";
import { REACTIONS } from "@/reactions";

// IAM, invitation and organization writes change the control database while
// their audit entries belong to the org's own trail (another database): the
// entry is stored in the write's own transaction and delivered after commit.

let t: TestApp;
let orgId: string;
let P: string;
const caller = {
  actor: { type: "user" as const, id: "01a1fe29-0000-7000-8000-00000000c0de", display_name: "Tester" },
  requestId: "req-outbox",
  ip: "127.0.0.1",
};

beforeAll(async () => {
  ({ t, orgA: orgId } = await twoOrgApp());
  P = `/api/v1/${orgId}/iam`;
});
afterAll(() => t.close());

const pending = () => t.rt.control.read((db) => all<{ id: string; org_id: string; claimed_until: string | null }>(db.select().from(orgAuditOutbox)));
const indexed = (id: string) =>
  t.rt.control.read((db) => all<{ id: string; org_name: string | null }>(db.select().from(auditIndex).where(eq(auditIndex.id, id))));

/** An entry committed with its write but never delivered, as when the process dies right after commit. */
async function committedButUndelivered(resourceId: string) {
  await t.rt.control.write((tx) =>
    recordOrgAudit(
      tx,
      orgId,
      caller,
      new Date().toISOString(),
      { action: "membership.updated", resource_type: "membership", resource_id: resourceId, before: { a: 1 }, after: { a: 2 } },
      { type: "membership.updated", resource_type: "membership", resource_id: resourceId, data: { id: resourceId } },
    ),
  );
  const [row] = (await pending()).filter((p) => p.org_id === orgId);
  return row!;
}

function collectEvents(org: string) {
  const seen: EventEnvelope[] = [];
  const stop = t.rt.events.subscribe(org, (e) => seen.push(e));
  return { seen, stop };
}

describe("org-trail audit entries of control-database writes", () => {
  test("an IAM write leaves its entry in the org's trail and the index, publishes its event, and nothing pending", async () => {
    const events = collectEvents(orgId);
    const r = await t.request("POST", `${P}/groups`, { token: await t.adminToken(), body: { name: "Front desk", permission_keys: ["locations.read"] } });
    expect(r.status).toBe(201);
    const [entry] = await auditOf(t, orgId, r.body.id);
    expect(entry).toMatchObject({
      action: "permission_group.created",
      resource_type: "permission_group",
      before: null,
      after: { id: r.body.id, name: "Front desk" },
    });
    expect(await indexed(entry.id)).toEqual([expect.objectContaining({ id: entry.id, org_name: expect.stringMatching(/^Org /) })]);
    expect(events.seen.map((e) => e.type)).toEqual(["permission_group.created"]);
    expect(await pending()).toEqual([]);
    events.stop();
  });

  test("a write that fails after recording its entry leaves neither the change nor the entry", async () => {
    const before = await pending();
    const ctx = (await t.rt.orgs.openOrgForJob(orgId, { actor: caller.actor, requestId: null }))!;
    await expect(
      ctx.control.write(function* (c) {
        yield* c.audit({ action: "permission_group.created", resource_type: "permission_group", resource_id: "never", before: null, after: {} });
        throw new Error("rule refused the write");
      }),
    ).rejects.toThrow("rule refused the write");
    expect(await pending()).toEqual(before);
    expect(await auditOf(t, orgId, "never")).toEqual([]);
  });

  test("an entry committed but not delivered (the process died) reaches the trail once, with its event, on the next delivery", async () => {
    const row = await committedButUndelivered("member-crash-1");
    expect(await auditOf(t, orgId, "member-crash-1")).toEqual([]);
    const events = collectEvents(orgId);
    expect(await t.rt.orgs.outbox.deliverAll()).toBe(1);
    const trail = await auditOf(t, orgId, "member-crash-1");
    expect(trail.map((e) => [e.id, e.action, e.before, e.after, e.request_id, e.actor_display_name])).toEqual([
      [row.id, "membership.updated", { a: 1 }, { a: 2 }, "req-outbox", "Tester"],
    ]);
    expect((await indexed(row.id)).length).toBe(1);
    expect(events.seen.map((e) => [e.type, e.resource_id])).toEqual([["membership.updated", "member-crash-1"]]);
    // again: nothing left, nothing written twice
    expect(await t.rt.orgs.outbox.deliverAll()).toBe(0);
    expect((await auditOf(t, orgId, "member-crash-1")).length).toBe(1);
    expect(events.seen.length).toBe(1);
    events.stop();
  });

  test("a redelivery after the trail was written (died before the index) writes nothing twice", async () => {
    const row = await committedButUndelivered("member-crash-2");
    const org = (await t.rt.access.org(orgId))!;
    const db = await t.rt.orgDbs.get(org.id, org.shard);
    const { auditEntries } = await import("@db/tenant/audit");
    const stored = (
      await t.rt.control.read((d) =>
        all<{ entry: Record<string, unknown> }>(d.select({ entry: orgAuditOutbox.entry }).from(orgAuditOutbox).where(eq(orgAuditOutbox.id, row.id))),
      )
    )[0]!;
    await db.write((tx) => run(tx.insert(auditEntries).values(stored.entry as never)));
    await t.rt.orgs.outbox.deliver(orgId);
    expect((await auditOf(t, orgId, "member-crash-2")).length).toBe(1);
    expect((await indexed(row.id)).length).toBe(1);
    expect((await pending()).filter((p) => p.id === row.id)).toEqual([]);
  });

  test("an entry another process has claimed is left to it; an expired claim is taken over", async () => {
    const row = await committedButUndelivered("member-claimed");
    const later = new Date(Date.now() + 60_000).toISOString();
    await t.rt.control.write((tx) => run(tx.update(orgAuditOutbox).set({ claimed_until: later }).where(eq(orgAuditOutbox.id, row.id))));
    await t.rt.orgs.outbox.deliver(orgId);
    expect(await auditOf(t, orgId, "member-claimed")).toEqual([]);
    const earlier = new Date(Date.now() - 1_000).toISOString();
    await t.rt.control.write((tx) => run(tx.update(orgAuditOutbox).set({ claimed_until: earlier }).where(eq(orgAuditOutbox.id, row.id))));
    await t.rt.orgs.outbox.deliver(orgId);
    expect((await auditOf(t, orgId, "member-claimed")).length).toBe(1);
  });

  test("a failed delivery keeps the entry, unclaimed, for the next try", async () => {
    const row = await committedButUndelivered("member-unreachable");
    let down = true;
    const outbox = new OrgAuditOutbox({
      control: t.rt.control,
      logger: t.rt.logger,
      publish: async () => {},
      openOrg: async (id) => {
        if (down) throw new Error("shard unreachable");
        const org = (await t.rt.access.org(id))!;
        return t.rt.orgDbs.get(org.id, org.shard);
      },
    });
    await expect(outbox.deliver(orgId)).rejects.toThrow("shard unreachable");
    expect((await pending()).filter((p) => p.id === row.id)).toEqual([{ ...row, claimed_until: null }]);
    down = false;
    await outbox.deliver(orgId);
    expect((await auditOf(t, orgId, "member-unreachable")).length).toBe(1);
    expect((await pending()).filter((p) => p.id === row.id)).toEqual([]);
  });

  test("an entry of an org that no longer exists is dropped", async () => {
    const ghost = "01a1fe29-0000-7000-8000-0000000000ff";
    await t.rt.control.write((tx) =>
      recordOrgAudit(tx, ghost, caller, new Date().toISOString(), { action: "x.y", resource_type: "x", resource_id: "ghost", before: null, after: null }),
    );
    await t.rt.orgs.outbox.deliver(ghost);
    expect((await pending()).filter((p) => p.org_id === ghost)).toEqual([]);
  });

  test("start-up delivers what a stopped process left pending", async () => {
    await committedButUndelivered("member-startup");
    const second = await createRuntime(loadConfig({ DATA_DIR: t.dir, LOG_LEVEL: "silent" }), { withQueue: false, reactions: REACTIONS });
    try {
      // the first runtime's connection reads one snapshot per event-loop turn: start a new turn
      await new Promise((resolve) => setImmediate(resolve));
      expect((await auditOf(t, orgId, "member-startup")).length).toBe(1);
      expect((await pending()).filter((p) => p.org_id === orgId)).toEqual([]);
    } finally {
      await closeRuntime(second);
    }
  });
});
