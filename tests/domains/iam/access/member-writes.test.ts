import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditOf, createPlatformUser, iamMemberWithLogin, startTestApp, unique, type TestApp } from "@tests/helpers";
import { iamApprovals, users } from "@db/control/schema";
import { run } from "@/platform/db/work";

// Member writes that meet scoped access: group_uuids and removal settle the
// approvals waiting on the member's grants; group_uuids re-activates a
// suspended org-wide grant; the last-admin rule counts only active members;
// a global-access platform administrator is an org administrator everywhere.

let t: TestApp;
let admin: string;
let orgId: string;
let A: string;
let charts: string; // patients.read: PHI
let requester: { id: string; token: string }; // not an admin: iam.users.* and patients.read

async function group(name: string, keys: string[]) {
  const r = await t.request("POST", `${A}/groups`, { token: admin, body: { name, permission_keys: keys } });
  expect(r.status).toBe(201);
  return r.body.id as string;
}
async function member(password?: string) {
  const email = `${unique("mw")}@example.com`;
  const r = await t.request("POST", `${A}/users`, { token: admin, body: { email, display_name: `M ${email}`, password: password ?? "long-enough-pw" } });
  expect(r.status).toBe(201);
  return r.body as { id: string; version: number };
}
async function pendingGrant(userId: string) {
  const r = await t.request("POST", `${A}/assignments`, { token: requester.token, body: { user_id: userId, group_uuid: charts } });
  expect(r.status).toBe(202);
  return { assignmentId: r.body.id as string, approvalId: r.body.approval_uuid as string };
}
const approvalOf = async (id: string) => (await t.request("GET", `${A}/approvals/${id}`, { token: admin })).body;
const assignmentStatus = async (id: string) => {
  const r = await t.request("GET", `${A}/assignments/${id}`, { token: admin });
  return r.status === 404 ? "gone" : r.body.status;
};
const memberOf = async (id: string) => (await t.request("GET", `${A}/users/${id}`, { token: admin })).body;

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.adminToken();
  orgId = (await t.createOrg()).id;
  A = `/api/v1/${orgId}/iam`;
  charts = await group("Charts", ["patients.read"]);
  const managers = await group("Managers", ["iam.users.read", "iam.users.write", "patients.read"]);
  requester = await iamMemberWithLogin(t, A, [managers]);
});
afterAll(() => t.close());

describe("group_uuids and removal settle pending approvals", () => {
  test("naming the pending group in group_uuids grants it directly: the approval is approved by the caller, the grant active", async () => {
    const m = await member();
    const { assignmentId, approvalId } = await pendingGrant(m.id);
    const r = await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: m.version, group_uuids: [charts] } });
    expect(r.status).toBe(200);
    expect(r.body.groups).toEqual([{ uuid: charts, name: "Charts" }]);
    expect(await approvalOf(approvalId)).toMatchObject({ status: "approved", review_note: "Granted directly through group_uuids" });
    expect(await assignmentStatus(assignmentId)).toBe("active");
    expect((await auditOf(t, orgId, approvalId)).map((e: { action: string }) => e.action).sort()).toEqual(["approval.approved", "approval.requested"]);
  });

  test("leaving it out withdraws it: rejected, the pending grant gone; approving later is 409", async () => {
    const m = await member();
    const { assignmentId, approvalId } = await pendingGrant(m.id);
    const r = await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: m.version, group_uuids: [] } });
    expect(r.status).toBe(200);
    expect(await approvalOf(approvalId)).toMatchObject({ status: "rejected", review_note: "Withdrawn: left out of group_uuids" });
    expect(await assignmentStatus(assignmentId)).toBe("gone");
    expect((await t.request("POST", `${A}/approvals/${approvalId}/approve`, { token: admin })).status).toBe(409);
  });

  test("removing the member withdraws every pending approval of theirs", async () => {
    const m = await member();
    const { assignmentId, approvalId } = await pendingGrant(m.id);
    expect((await t.request("POST", `${A}/users/${m.id}/remove`, { token: admin })).status).toBe(200);
    expect(await approvalOf(approvalId)).toMatchObject({ status: "rejected", review_note: "Withdrawn: the member was removed" });
    expect(await assignmentStatus(assignmentId)).toBe("gone");
  });

  test("revoking a pending assignment withdraws its approval, with its audit entry", async () => {
    const m = await member();
    const { assignmentId, approvalId } = await pendingGrant(m.id);
    expect((await t.request("DELETE", `${A}/assignments/${assignmentId}`, { token: admin })).status).toBe(204);
    expect(await approvalOf(approvalId)).toMatchObject({ status: "rejected", review_note: "Withdrawn: the assignment was revoked" });
    expect((await auditOf(t, orgId, approvalId)).map((e: { action: string }) => e.action).sort()).toEqual(["approval.rejected", "approval.requested"]);
    expect((await auditOf(t, orgId, assignmentId)).map((e: { action: string }) => e.action).sort()).toEqual([
      "iam_assignment.created",
      "iam_assignment.revoked",
    ]);
  });

  test("an approval past its expiry reads expired by id too", async () => {
    const m = await member();
    const { assignmentId, approvalId } = await pendingGrant(m.id);
    await t.rt.control.write(function* (tx) {
      yield* run(tx.update(iamApprovals).set({ expires_at: "2020-01-01T00:00:00.000Z" }).where(eq(iamApprovals.id, approvalId)));
    });
    expect((await approvalOf(approvalId)).status).toBe("expired");
    expect(await assignmentStatus(assignmentId)).toBe("gone");
  });
});

describe("group_uuids re-activates", () => {
  test("a suspended org-wide grant of a listed group is active again and shown in groups", async () => {
    const plain = await group(unique("Plain"), ["locations.read"]);
    const m = await member();
    const granted = await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: m.version, group_uuids: [plain] } });
    const list = await t.request("GET", `${A}/assignments?user_id=${m.id}`, { token: admin });
    const id = list.body.items[0].id;
    expect((await t.request("POST", `${A}/assignments/${id}/suspend`, { token: admin })).body.status).toBe("suspended");
    expect((await memberOf(m.id)).groups).toEqual([]);
    const again = await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: granted.body.version, group_uuids: [plain] } });
    expect(again.status).toBe(200);
    expect(again.body.groups.map((g: { uuid: string }) => g.uuid)).toEqual([plain]);
    expect((await t.request("GET", `${A}/assignments/${id}`, { token: admin })).body).toMatchObject({ status: "active", version: 3 });
  });
});

describe("last administrator", () => {
  test("a suspended member's admin grant can be suspended and revoked while one active administrator remains", async () => {
    const adminGroup = (await t.request("GET", `${A}/groups`, { token: admin })).body.items.find((g: { is_org_admin: boolean }) => g.is_org_admin).id;
    const m = await member();
    await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: m.version, group_uuids: [adminGroup] } });
    expect((await t.request("POST", `${A}/users/${m.id}/suspend`, { token: admin })).status).toBe(200);
    const grant = (await t.request("GET", `${A}/assignments?user_id=${m.id}`, { token: admin })).body.items[0];
    expect((await t.request("POST", `${A}/assignments/${grant.id}/suspend`, { token: admin })).status).toBe(200);
    expect((await t.request("DELETE", `${A}/assignments/${grant.id}`, { token: admin })).status).toBe(204);
  });
});

describe("effective permissions", () => {
  test("a context the node does not take is 422", async () => {
    const loc = (await t.request("POST", `/api/v1/${orgId}/locations`, { token: admin, body: { name: "Mid", timezone: "America/Chicago" } })).body.id;
    for (const [node, context] of [
      [loc, "org"],
      [loc, "provider"],
      [orgId, "self"],
    ]) {
      const r = await t.request("GET", `${A}/effective-permissions?user_id=${requester.id}&scope_node_uuid=${node}&context=${context}`, { token: admin });
      expect({ context, status: r.status, loc: r.body.detail?.[0]?.loc }).toEqual({ context, status: 422, loc: ["query", "context"] });
    }
  });
});

describe("a global-access platform administrator who is not a member", () => {
  test("is an org administrator: grants a PHI group at once and may review approvals", async () => {
    const platform = await createPlatformUser(t, "Global", ["platform.orgs.list"]);
    await t.rt.control.write(function* (tx) {
      yield* run(tx.update(users).set({ is_global_access: true }).where(eq(users.id, platform.id)));
    });
    await t.rt.access.invalidate();
    const m = await member();
    const direct = await t.request("POST", `${A}/assignments`, { token: platform.token, body: { user_id: m.id, group_uuid: charts } });
    expect({ status: direct.status, state: direct.body.status }).toEqual({ status: 201, state: "active" });
    const other = await member();
    const { approvalId } = await pendingGrant(other.id);
    const approved = await t.request("POST", `${A}/approvals/${approvalId}/approve`, { token: platform.token });
    expect({ status: approved.status, state: approved.body.status, by: approved.body.reviewed_by }).toEqual({
      status: 200,
      state: "approved",
      by: platform.id,
    });
  });
});
