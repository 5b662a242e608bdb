import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditOf, iamMemberWithLogin, twoOrgApp, unique, waitForEvent, type TestApp } from "@tests/helpers";
import { iamApprovals, memberships, orgs } from "@db/control/schema";
import { get, run } from "@/platform/db/work";
import { systemActor } from "@/platform/auth/actor";
import type { EventEnvelope } from "@/platform/events/envelope";
import expireApprovalsJob from "@/domains/iam/access/approvals-expire.handler";

let t: TestApp;
let admin: string;
let adminId: string;
let orgA: string;
let orgB: string;
let A: string; // {P}/iam of org A
let B: string;
let PA: string;
let adminGroup: string;
let charts: string; // patients.read: reaches protected health information
let plain: string; // iam.users.read: no PHI
let chartsB: string;
const events: EventEnvelope[] = [];
const eventsB: EventEnvelope[] = [];

// Logged-in members (argon2 is slow on purpose: few of them, reused).
let req: { id: string; token: string }; // not an admin: iam.users.read + write, patients.read + write
let reader: { id: string; token: string }; // iam.users.read only
let nobody: { id: string; token: string }; // locations.read only
let reqB: { id: string; token: string }; // org B's requester (also the outsider for org A)

const UNKNOWN = "01890000-0000-7000-8000-000000000000";
const WEEK_MS = 7 * 24 * 3600 * 1000;

async function createGroup(P: string, name: string, keys: string[]) {
  const r = await t.request("POST", `${P}/groups`, { token: admin, body: { name, permission_keys: keys } });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

/** An active member without a password round trip: invited through the API, activated in the control database. */
async function activeMember(P = A, orgId = orgA) {
  const e = `${unique("apr")}@example.com`;
  const r = await t.request("POST", `${P}/users`, { token: admin, body: { email: e, display_name: `Member ${e}` } });
  expect(r.status).toBe(201);
  await t.rt.control.write(function* (tx) {
    yield* run(
      tx
        .update(memberships)
        .set({ status: "active", joined_at: new Date().toISOString() })
        .where(and(eq(memberships.org_id, orgId), eq(memberships.user_id, r.body.id))),
    );
  });
  await t.rt.access.invalidate();
  return { id: r.body.id as string };
}

/** A grant that waits for approval: requested by `token` (not an org admin), answered 202. */
async function requested(body: Record<string, unknown>, token = req.token, P = A) {
  const r = await t.request("POST", `${P}/assignments`, { token, body });
  if (r.status !== 202) throw new Error(`expected 202: ${r.status} ${r.text}`);
  return { assignment: r.body, approvalId: r.body.approval_uuid as string };
}

const approval = async (id: string, P = A) => (await t.request("GET", `${P}/approvals/${id}`, { token: admin })).body;
const assignmentStatus = async (id: string, P = A) => {
  const r = await t.request("GET", `${P}/assignments/${id}`, { token: admin });
  return r.status === 404 ? "gone" : r.body.status;
};
const review = (id: string, decision: "approve" | "reject", token = admin, body?: unknown) =>
  t.request("POST", `${A}/approvals/${id}/${decision}`, { token, body });

async function effective(userId: string) {
  const r = await t.request("GET", `${A}/effective-permissions?user_id=${userId}`, { token: admin });
  expect(r.status).toBe(200);
  return r.body.permissions as string[];
}

async function cacheVersion(orgId = orgA) {
  return (await t.rt.control.read((db) => get<{ v: number }>(db.select({ v: orgs.access_version }).from(orgs).where(eq(orgs.id, orgId)))))!.v;
}

/** Moves an approval's expiry into the past directly in the control database. */
async function overdue(id: string) {
  await t.rt.control.write(function* (tx) {
    yield* run(
      tx
        .update(iamApprovals)
        .set({ expires_at: new Date(Date.now() - 60_000).toISOString() })
        .where(eq(iamApprovals.id, id)),
    );
  });
}

beforeAll(async () => {
  const w = await twoOrgApp();
  ({ t, admin, orgA, orgB, pathA: PA } = w);
  A = `${PA}/iam`;
  B = `${w.pathB}/iam`;
  t.rt.events.subscribe(orgA, (e) => events.push(e));
  t.rt.events.subscribe(orgB, (e) => eventsB.push(e));
  const groups = await t.request("GET", `${A}/groups`, { token: admin });
  adminGroup = groups.body.items.find((g: any) => g.is_org_admin).id;
  adminId = (await t.request("GET", `${A}/assignments`, { token: admin })).body.items[0].user_id;
  charts = await createGroup(A, "Chart readers", ["patients.read"]);
  plain = await createGroup(A, "User readers", ["iam.users.read"]);
  const requesters = await createGroup(A, "Requesters", ["iam.users.read", "iam.users.write", "patients.read", "patients.write"]);
  const locOnly = await createGroup(A, "Location readers", ["locations.read"]);
  chartsB = await createGroup(B, "Chart readers", ["patients.read"]);
  const requestersB = await createGroup(B, "Requesters", ["iam.users.read", "iam.users.write", "patients.read"]);
  [req, reader, nobody, reqB] = await Promise.all([
    iamMemberWithLogin(t, A, [requesters]),
    iamMemberWithLogin(t, A, [plain]),
    iamMemberWithLogin(t, A, [locOnly]),
    iamMemberWithLogin(t, B, [requestersB]),
  ]);
});

afterAll(async () => {
  await t.close();
});

describe("requesting a sensitive grant", () => {
  test("a non-administrator granting a PHI group: 202 pending_activation with a pending approval; audited; grants nothing yet", async () => {
    const m = await activeMember();
    const from = events.length;
    const v0 = await cacheVersion();
    const r = await t.request("POST", `${A}/assignments`, { token: req.token, body: { user_id: m.id, group_uuid: charts } });
    expect(r.status).toBe(202);
    const id: string = r.body.approval_uuid;
    expect(id).toBeString();
    // (no asymmetric matchers in toMatchObject: this Bun writes them into the received object)
    expect(r.body).toMatchObject({
      user_id: m.id,
      group_uuid: charts,
      scope_node_uuid: orgA,
      scope_type: "org",
      context: "all",
      status: "pending_activation",
      created_by: req.id,
      version: 1,
    });
    expect(await cacheVersion()).toBe(v0 + 1);
    const got = await t.request("GET", `${A}/approvals/${id}`, { token: reader.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id,
      org_id: orgA,
      status: "pending",
      operation_type: "assignment.create",
      operation_payload: { assignment_uuid: r.body.id, user_id: m.id, group_uuid: charts, scope_node_uuid: orgA, context: "all" },
      pinned_group_versions: { [charts]: 1 },
      pinned_scope_node_id: orgA,
      pinned_scope_node_path: `org:${orgA}`,
      contains_phi: true,
      requested_by: req.id,
      requested_at: r.body.created_at,
      expires_at: new Date(Date.parse(r.body.created_at) + WEEK_MS).toISOString(),
      reviewed_by: null,
      reviewed_at: null,
      review_note: null,
      version: 1,
    });
    const approvalAudit = await auditOf(t, orgA, id);
    expect(approvalAudit.map((x) => x.action)).toEqual(["approval.requested"]);
    expect(approvalAudit[0]).toMatchObject({ actor_id: req.id, before: null, after: { id, assignment_uuid: r.body.id } });
    const assignmentAudit = await auditOf(t, orgA, r.body.id);
    expect(assignmentAudit.map((x) => x.action)).toEqual(["iam_assignment.created"]);
    expect(assignmentAudit[0].after).toEqual(r.body);
    const ev = await waitForEvent(events, (e) => e.type === "approval.requested" && e.resource_id === id, { from });
    expect(ev).toMatchObject({ resource_type: "approval", data: { id, assignment_uuid: r.body.id } });
    const created = await waitForEvent(events, (e) => e.type === "iam_assignment.created" && e.resource_id === r.body.id, { from });
    expect(created.data.status).toBe("pending_activation");
    // a pending grant grants nothing and is listed as pending_activation
    expect(await effective(m.id)).toEqual([]);
    const pending = await t.request("GET", `${A}/assignments?user_id=${m.id}&status=pending_activation`, { token: admin });
    expect(pending.body).toEqual({ items: [r.body], total: 1 });
    expect((await t.request("GET", `${A}/assignments?user_id=${m.id}&status=active`, { token: admin })).body.total).toBe(0);
  });

  test("at a location the approval pins the node's id and path", async () => {
    const loc = await t.request("POST", `${PA}/locations`, { token: admin, body: { name: "Pinned", timezone: "UTC" } });
    const m = await activeMember();
    const { approvalId, assignment } = await requested({ user_id: m.id, group_uuid: charts, scope_node_uuid: loc.body.id, context: "location" });
    expect(assignment).toMatchObject({ scope_type: "location", context: "location", status: "pending_activation" });
    expect(await approval(approvalId)).toMatchObject({
      pinned_scope_node_id: loc.body.id,
      pinned_scope_node_path: `org:${orgA}/location:${loc.body.id}`,
      operation_payload: { scope_node_uuid: loc.body.id, context: "location" },
    });
  });

  test("no approval for a group without PHI keys, nor for an org administrator granting PHI", async () => {
    const m = await activeMember();
    const total = (await t.request("GET", `${A}/approvals`, { token: admin })).body.total;
    const byReq = await t.request("POST", `${A}/assignments`, { token: req.token, body: { user_id: m.id, group_uuid: plain } });
    expect(byReq.status).toBe(201);
    expect(byReq.body).toMatchObject({ status: "active", approval_uuid: null });
    const byAdmin = await t.request("POST", `${A}/assignments`, { token: admin, body: { user_id: m.id, group_uuid: charts } });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body).toMatchObject({ status: "active", approval_uuid: null });
    expect((await t.request("GET", `${A}/approvals`, { token: admin })).body.total).toBe(total);
    expect(await effective(m.id)).toEqual(["iam.users.read", "patients.read"]);
  });

  test("a pending grant: 409 duplicate when asked again, 422 invalid_transition on suspend or reactivate", async () => {
    const m = await activeMember();
    const { assignment, approvalId } = await requested({ user_id: m.id, group_uuid: charts });
    const dup = await t.request("POST", `${A}/assignments`, { token: req.token, body: { user_id: m.id, group_uuid: charts } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate");
    for (const action of ["suspend", "reactivate"]) {
      const r = await t.request("POST", `${A}/assignments/${assignment.id}/${action}`, { token: admin });
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("invalid_transition");
    }
    expect(await assignmentStatus(assignment.id)).toBe("pending_activation");
    expect((await approval(approvalId)).status).toBe("pending");
  });

  test("anti-escalation comes first: a PHI group with keys the requester lacks is 403 and requests nothing", async () => {
    const m = await activeMember();
    const wide = await createGroup(A, unique("Ledger"), ["patients.read", "billing.ledger.read"]);
    const total = (await t.request("GET", `${A}/approvals`, { token: admin })).body.total;
    const r = await t.request("POST", `${A}/assignments`, { token: req.token, body: { user_id: m.id, group_uuid: wide } });
    expect(r.status).toBe(403);
    expect((await t.request("GET", `${A}/approvals`, { token: admin })).body.total).toBe(total);
    expect((await t.request("GET", `${A}/assignments?user_id=${m.id}`, { token: admin })).body.total).toBe(0);
  });
});

describe("reviewing", () => {
  test("approve: approval approved with the review, grant active, audited, events, cache_version moves; again is 409", async () => {
    const m = await activeMember();
    const { assignment, approvalId } = await requested({ user_id: m.id, group_uuid: charts });
    const before = await approval(approvalId);
    const from = events.length;
    const v0 = await cacheVersion();
    const r = await review(approvalId, "approve", admin, { review_note: "  checked with the dentist  " });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ...before,
      status: "approved",
      reviewed_by: adminId,
      reviewed_at: expect.any(String),
      review_note: "checked with the dentist",
      version: 2,
    });
    expect(await cacheVersion()).toBe(v0 + 1);
    const a = (await t.request("GET", `${A}/assignments/${assignment.id}`, { token: admin })).body;
    expect(a).toMatchObject({ status: "active", approval_uuid: approvalId, version: 2 });
    expect(await effective(m.id)).toEqual(["patients.read"]);
    const approvalAudit = await auditOf(t, orgA, approvalId);
    expect(approvalAudit.map((x) => x.action)).toEqual(["approval.requested", "approval.approved"]);
    expect(approvalAudit[1]).toMatchObject({ actor_id: adminId, before, after: r.body });
    const assignmentAudit = await auditOf(t, orgA, assignment.id);
    expect(assignmentAudit.map((x) => x.action)).toEqual(["iam_assignment.created", "iam_assignment.activated"]);
    expect(assignmentAudit[1].before.status).toBe("pending_activation");
    expect(assignmentAudit[1].after).toEqual(a);
    const ev = await waitForEvent(events, (e) => e.type === "approval.approved" && e.resource_id === approvalId, { from });
    expect(ev.data).toEqual({ id: approvalId, status: "approved" });
    await waitForEvent(events, (e) => e.type === "iam_assignment.activated" && e.resource_id === assignment.id, { from });
    // no second review
    for (const decision of ["approve", "reject"] as const) {
      const again = await review(approvalId, decision);
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ detail: expect.any(String), code: "approval_not_pending" });
    }
    expect(await approval(approvalId)).toEqual(r.body);
    expect(await assignmentStatus(assignment.id)).toBe("active");
  });

  test("reject: approval rejected, the pending grant dropped; the grant may be requested again", async () => {
    const m = await activeMember();
    const { assignment, approvalId } = await requested({ user_id: m.id, group_uuid: charts });
    const from = events.length;
    const r = await review(approvalId, "reject");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "rejected", reviewed_by: adminId, review_note: null, version: 2 });
    expect(r.body.reviewed_at).toBeString();
    expect(await assignmentStatus(assignment.id)).toBe("gone");
    expect(await effective(m.id)).toEqual([]);
    expect((await auditOf(t, orgA, approvalId)).map((x) => x.action)).toEqual(["approval.requested", "approval.rejected"]);
    const assignmentAudit = await auditOf(t, orgA, assignment.id);
    expect(assignmentAudit.map((x) => x.action)).toEqual(["iam_assignment.created", "iam_assignment.revoked"]);
    expect(assignmentAudit[1].after).toBeNull();
    const ev = await waitForEvent(events, (e) => e.type === "approval.rejected" && e.resource_id === approvalId, { from });
    expect(ev.data).toEqual({ id: approvalId, status: "rejected" });
    await waitForEvent(events, (e) => e.type === "iam_assignment.revoked" && e.resource_id === assignment.id, { from });
    expect((await review(approvalId, "approve")).body.code).toBe("approval_not_pending");
    const again = await requested({ user_id: m.id, group_uuid: charts });
    expect(again.approvalId).not.toBe(approvalId);
  });

  test("only an org administrator other than the requester may review (403); the approval stays pending", async () => {
    const m = await activeMember();
    const { assignment, approvalId } = await requested({ user_id: m.id, group_uuid: charts });
    const before = await approval(approvalId);
    // without iam.users.write the route is closed
    expect((await review(approvalId, "approve", reader.token)).status).toBe(403);
    // with it, but not an org administrator
    for (const decision of ["approve", "reject"] as const) {
      const r = await review(approvalId, decision, req.token);
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
    // an org administrator now, but still the requester
    const adminGrant = await t.request("POST", `${A}/assignments`, { token: admin, body: { user_id: req.id, group_uuid: adminGroup } });
    expect(adminGrant.status).toBe(201);
    for (const decision of ["approve", "reject"] as const) {
      const r = await review(approvalId, decision, req.token);
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
    // as an administrator the requester's own PHI grants need no approval
    const direct = await t.request("POST", `${A}/assignments`, { token: req.token, body: { user_id: (await activeMember()).id, group_uuid: charts } });
    expect(direct.status).toBe(201);
    expect(direct.body.status).toBe("active");
    expect((await t.request("DELETE", `${A}/assignments/${adminGrant.body.id}`, { token: admin })).status).toBe(204);
    expect(await approval(approvalId)).toEqual(before);
    expect(await assignmentStatus(assignment.id)).toBe("pending_activation");
    // another administrator may
    expect((await review(approvalId, "approve")).status).toBe(200);
  });

  test("409 approval_stale when the group changed or was archived, or the node is gone; nothing changes; rejecting still works", async () => {
    const m = await activeMember();
    const changed = await createGroup(A, unique("Changing"), ["patients.read"]);
    const archived = await createGroup(A, unique("Archiving"), ["patients.read"]);
    const loc = await t.request("POST", `${PA}/locations`, { token: admin, body: { name: "Closing", timezone: "UTC" } });
    const p1 = await requested({ user_id: m.id, group_uuid: changed });
    const p2 = await requested({ user_id: m.id, group_uuid: archived });
    const p3 = await requested({ user_id: m.id, group_uuid: charts, scope_node_uuid: loc.body.id });
    const patched = await t.request("PATCH", `${A}/groups/${changed}`, { token: admin, body: { base_version: 1, description: "now different" } });
    expect(patched.status).toBe(200);
    expect(patched.body.version).toBe(2);
    expect((await t.request("POST", `${A}/groups/${archived}/archive`, { token: admin })).status).toBe(200);
    expect((await t.request("POST", `${PA}/locations/${loc.body.id}/archive`, { token: admin })).status).toBe(200);
    for (const p of [p1, p2, p3]) {
      const before = await approval(p.approvalId);
      const r = await review(p.approvalId, "approve");
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ detail: expect.any(String), code: "approval_stale" });
      expect(await approval(p.approvalId)).toEqual(before);
      expect(await assignmentStatus(p.assignment.id)).toBe("pending_activation");
      const rejected = await review(p.approvalId, "reject", admin, { review_note: "stale" });
      expect(rejected.status).toBe(200);
      expect(rejected.body).toMatchObject({ status: "rejected", review_note: "stale" });
      expect(await assignmentStatus(p.assignment.id)).toBe("gone");
    }
    expect(await effective(m.id)).toEqual([]);
  });

  test("revoking a pending grant withdraws its approval", async () => {
    const m = await activeMember();
    const { assignment, approvalId } = await requested({ user_id: m.id, group_uuid: charts });
    expect((await t.request("DELETE", `${A}/assignments/${assignment.id}`, { token: admin })).status).toBe(204);
    expect(await approval(approvalId)).toMatchObject({
      status: "rejected",
      reviewed_by: adminId,
      review_note: "Withdrawn: the assignment was revoked",
      version: 2,
    });
    expect((await review(approvalId, "approve")).body.code).toBe("approval_not_pending");
  });

  test("422 for an unknown or too long review field; the approval stays pending", async () => {
    const m = await activeMember();
    const { approvalId } = await requested({ user_id: m.id, group_uuid: charts });
    for (const [body, loc] of [
      [{ note: "x" }, ["body", "note"]],
      [{ review_note: 5 }, ["body", "review_note"]],
      [{ review_note: "x".repeat(2001) }, ["body", "review_note"]],
    ] as const) {
      const r = await review(approvalId, "approve", admin, body);
      expect(r.status).toBe(422);
      expect(r.body.detail.map((d: any) => d.loc)).toContainEqual(loc);
    }
    expect((await approval(approvalId)).status).toBe("pending");
    expect((await review(approvalId, "reject", admin, {})).body.status).toBe("rejected");
  });

  test("404 for unknown, malformed or another org's approvals", async () => {
    const inB = await requested({ user_id: (await activeMember(B, orgB)).id, group_uuid: chartsB }, reqB.token, B);
    for (const id of [UNKNOWN, "nope", inB.approvalId]) {
      expect((await t.request("GET", `${A}/approvals/${id}`, { token: admin })).status).toBe(404);
      for (const decision of ["approve", "reject"] as const) {
        const r = await review(id, decision);
        expect(r.status).toBe(404);
        expect(r.body.code).toBe("not_found");
      }
    }
    expect(await approval(inB.approvalId, B)).toMatchObject({ status: "pending", org_id: orgB });
    expect((await approval(inB.approvalId, B)).version).toBe(1);
  });
});

describe("GET /iam/approvals", () => {
  test("newest first, filtered by status, paged", async () => {
    const all = await t.request("GET", `${A}/approvals?page_size=200`, { token: reader.token });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, page_size: 200 });
    const items = all.body.items;
    expect(all.body.total).toBe(items.length);
    expect(items.length).toBeGreaterThan(5);
    const times = items.map((i: any) => i.requested_at);
    expect(times).toEqual(times.toSorted().toReversed());
    for (const status of ["pending", "approved", "rejected"]) {
      const r = await t.request("GET", `${A}/approvals?status=${status}&page_size=200`, { token: admin });
      expect(r.body.items.length).toBeGreaterThan(0);
      expect(r.body.items.every((i: any) => i.status === status)).toBe(true);
      expect(r.body.total).toBe(items.filter((i: any) => i.status === status).length);
    }
    const page2 = await t.request("GET", `${A}/approvals?page=2&page_size=2`, { token: admin });
    expect(page2.body).toMatchObject({ page: 2, page_size: 2, total: items.length });
    expect(page2.body.items.map((i: any) => i.id)).toEqual(items.slice(2, 4).map((i: any) => i.id));
    expect((await t.request("GET", `${A}/approvals`, { token: admin })).body.page_size).toBe(50);
    // another org's approvals never appear
    expect(items.every((i: any) => i.org_id === orgA)).toBe(true);
  });

  test("a pending approval past its expiry is listed as expired: its grant dropped, audited, event", async () => {
    const m = await activeMember();
    const { assignment, approvalId } = await requested({ user_id: m.id, group_uuid: charts });
    await overdue(approvalId);
    const from = events.length;
    const r = await t.request("GET", `${A}/approvals?status=expired&page_size=200`, { token: admin });
    expect(r.status).toBe(200);
    const item = r.body.items.find((i: any) => i.id === approvalId);
    expect(item).toMatchObject({ status: "expired", reviewed_by: null, reviewed_at: null, review_note: null, version: 2 });
    expect((await t.request("GET", `${A}/approvals?status=pending&page_size=200`, { token: admin })).body.items.map((i: any) => i.id)).not.toContain(
      approvalId,
    );
    expect(await assignmentStatus(assignment.id)).toBe("gone");
    expect((await auditOf(t, orgA, approvalId)).map((x) => x.action)).toEqual(["approval.requested", "approval.expired"]);
    expect((await auditOf(t, orgA, assignment.id)).map((x) => x.action)).toEqual(["iam_assignment.created", "iam_assignment.revoked"]);
    const ev = await waitForEvent(events, (e) => e.type === "approval.expired" && e.resource_id === approvalId, { from });
    expect(ev.data).toEqual({ id: approvalId, status: "expired" });
    expect((await review(approvalId, "approve")).body.code).toBe("approval_not_pending");
  });

  test("reviewing a pending approval past its expiry expires it first: 409 approval_not_pending", async () => {
    const m = await activeMember();
    const { assignment, approvalId } = await requested({ user_id: m.id, group_uuid: charts });
    await overdue(approvalId);
    const r = await review(approvalId, "approve");
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("approval_not_pending");
    expect((await approval(approvalId)).status).toBe("expired");
    expect(await assignmentStatus(assignment.id)).toBe("gone");
    expect(await effective(m.id)).toEqual([]);
  });

  test("422 on an unknown status, bad paging or unknown parameters", async () => {
    for (const [q, field] of [
      ["status=open", "status"],
      ["page=0", "page"],
      ["page_size=201", "page_size"],
      ["colour=red", "colour"],
    ]) {
      const r = await t.request("GET", `${A}/approvals?${q}`, { token: admin });
      expect({ q, status: r.status }).toEqual({ q, status: 422 });
      expect(r.body.detail[0].loc).toEqual(["query", field]);
    }
  });

  test("401 without a token, 403 without the key, 404 for another org's member", async () => {
    const { approvalId } = await requested({ user_id: (await activeMember()).id, group_uuid: charts });
    for (const [method, path] of [
      ["GET", "/approvals"],
      ["GET", `/approvals/${approvalId}`],
      ["POST", `/approvals/${approvalId}/approve`],
      ["POST", `/approvals/${approvalId}/reject`],
    ] as const) {
      const anon = await t.request(method, `${A}${path}`);
      expect(anon.status).toBe(401);
      expect(anon.headers.get("www-authenticate")).toBe("Bearer");
      expect((await t.request(method, `${A}${path}`, { token: nobody.token })).status).toBe(403);
      expect((await t.request(method, `${A}${path}`, { token: reqB.token })).status).toBe(404);
    }
    expect((await t.request("POST", `${A}/approvals/${approvalId}/reject`, { token: reader.token })).status).toBe(403);
    expect(await approval(approvalId)).toMatchObject({ status: "pending", version: 1 });
  });
});

describe("the approvals expiry job", () => {
  const logged: unknown[] = [];
  const jobContext = () => ({
    rt: t.rt,
    payload: {},
    actor: systemActor("iam.approvals.expire"),
    causedBy: systemActor("iam.approvals.expire"),
    orgId: null,
    requestId: null,
    job: { id: "test-job", name: "iam.approvals.expire", retryCount: 0 },
    logger: { info: (o: unknown) => logged.push(o), warn() {}, error() {}, debug() {} } as any,
  });

  test("expires pending approvals past their expiry in every org, drops their grants; a second run finds nothing", async () => {
    // other tests left approvals pending in both orgs: none of them is due
    const notDue = await requested({ user_id: (await activeMember()).id, group_uuid: charts });
    const dueA = await requested({ user_id: (await activeMember()).id, group_uuid: charts });
    const dueB = await requested({ user_id: (await activeMember(B, orgB)).id, group_uuid: chartsB }, reqB.token, B);
    await overdue(dueA.approvalId);
    await overdue(dueB.approvalId);
    const from = events.length;
    const fromB = eventsB.length;
    const result = await expireApprovalsJob(jobContext() as any);
    expect(result).toEqual({ orgs: 2, approvals_expired: 2 });
    expect(logged).toContainEqual({ orgs: 2, approvals_expired: 2 });
    expect(await approval(dueA.approvalId)).toMatchObject({ status: "expired", reviewed_by: null, version: 2 });
    expect(await approval(dueB.approvalId, B)).toMatchObject({ status: "expired", reviewed_by: null, version: 2 });
    expect(await approval(notDue.approvalId)).toMatchObject({ status: "pending", version: 1 });
    expect(await assignmentStatus(dueA.assignment.id)).toBe("gone");
    expect(await assignmentStatus(dueB.assignment.id, B)).toBe("gone");
    expect(await assignmentStatus(notDue.assignment.id)).toBe("pending_activation");
    const auditA = await auditOf(t, orgA, dueA.approvalId);
    expect(auditA.map((x) => x.action)).toEqual(["approval.requested", "approval.expired"]);
    expect(auditA[1]).toMatchObject({ actor_type: "system", actor_id: "system:iam.approvals.expire" });
    expect((await auditOf(t, orgB, dueB.approvalId)).map((x) => x.action)).toEqual(["approval.requested", "approval.expired"]);
    expect((await auditOf(t, orgA, dueA.assignment.id)).map((x) => x.action)).toEqual(["iam_assignment.created", "iam_assignment.revoked"]);
    await waitForEvent(events, (e) => e.type === "approval.expired" && e.resource_id === dueA.approvalId, { from });
    await waitForEvent(eventsB, (e) => e.type === "approval.expired" && e.resource_id === dueB.approvalId, { from: fromB });
    // idempotent
    expect(await expireApprovalsJob(jobContext() as any)).toEqual({ orgs: 0, approvals_expired: 0 });
    expect(await approval(dueA.approvalId)).toMatchObject({ status: "expired", version: 2 });
    // and the list has nothing left to expire
    expect((await t.request("GET", `${A}/approvals?status=expired&page_size=200`, { token: admin })).body.items.map((i: any) => i.id)).toContain(
      dueA.approvalId,
    );
  });
});
