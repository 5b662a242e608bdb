import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { smartListMembers } from "@db/tenant/revenue";
import { eq } from "drizzle-orm";
import { all } from "@/platform/db/work";
import { auditOf, expectGuarded, unique, type TestApp } from "@tests/helpers";
import { orgDb, setBalances } from "@tests/domains/patients/record/fixtures";
import { byLastName, createPatient, MISSING, revenueWorld, storedList } from "./fixtures";

let w: Awaited<ReturnType<typeof revenueWorld>>;
let t: TestApp;
let L: string;
let last: string; // the last name of this file's patients
let pA: string;
let pB: string;
let pC: string;

beforeAll(async () => {
  w = await revenueWorld();
  t = w.t;
  L = `${w.A}/lists`;
  last = unique("Zz");
  pA = await createPatient(t, w.admin, w.orgA, "Ann", last);
  pB = await createPatient(t, w.admin, w.orgA, "Bob", last);
  pC = await createPatient(t, w.admin, w.orgA, "Cid", last);
  await setBalances(t, w.orgA, pA, { balance_over_90_cents: 12_500 });
  await setBalances(t, w.orgA, pB, { balance_over_90_cents: 500 });
});
afterAll(() => t.close());

async function make(token: string, body: Record<string, unknown>) {
  const r = await t.request("POST", L, { token, body: { name: unique("List"), scope: "organization", ...body } });
  if (r.status !== 201) throw new Error(`create list: ${r.status} ${r.text}`);
  return r.body;
}
const members = async (listId: string) =>
  (await orgDb(t, w.orgA)).read((d) => all<any>(d.select().from(smartListMembers).where(eq(smartListMembers.list_id, listId))));

describe("POST /lists/{id}/execute and /count", () => {
  test("a dynamic list runs its filter (as POST /execute), records last_executed_at and last_result_count, keeps its version", async () => {
    const l = await make(w.writer.token, {
      list_type: "dynamic",
      filter_definition: {
        groups: [
          {
            conditions: [
              { field: "last_name", operator: "eq", value: last },
              { field: "balance_over_90", operator: "gt", value: 1 },
            ],
          },
        ],
      },
    });
    const r = await t.request("POST", `${L}/${l.id}/execute`, { token: w.reader.token, body: { page_size: 10, sort_by: "balance_over_90", sort_dir: "desc" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ list_uuid: l.id, total_count: 2, page: 1, page_size: 10, source_snapshot_version: 4 });
    expect(r.body.patients.map((p: any) => [p.id, p.values.balance_over_90])).toEqual([
      [pA, "125.00"],
      [pB, "5.00"],
    ]);
    const direct = await t.request("POST", `${w.A}/execute`, {
      token: w.reader.token,
      body: { filter_definition: l.filter_definition, sort_by: "balance_over_90", sort_dir: "desc" },
    });
    expect(direct.body.total_count).toBe(2);
    const after = await t.request("GET", `${L}/${l.id}`, { token: w.reader.token });
    expect(after.body).toMatchObject({ last_result_count: 2, last_executed_at: r.body.last_executed_at, version: 1 });
    const c = await t.request("POST", `${L}/${l.id}/count`, { token: w.reader.token });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ list_uuid: l.id, count: 2, source_snapshot_version: 4, execution_time_ms: expect.any(Number) });
    expect((await storedList(t, w.orgA, l.id)).last_executed_at).toBe(c.body.last_executed_at);
    expect((await auditOf(t, w.orgA, l.id)).map((a) => a.action)).toEqual(["smart_list.created"]);
  });

  test("defaults without a body; 422 for a sort_by that is not sortable (nothing recorded)", async () => {
    const l = await make(w.writer.token, { list_type: "dynamic", filter_definition: byLastName(last) });
    const r = await t.request("POST", `${L}/${l.id}/execute`, { token: w.reader.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total_count: 3 });
    expect(r.body.patients.map((p: any) => p.first_name)).toEqual(["Ann", "Bob", "Cid"]);
    const l2 = await make(w.writer.token, { list_type: "dynamic", filter_definition: byLastName(last) });
    const bad = await t.request("POST", `${L}/${l2.id}/execute`, { token: w.reader.token, body: { sort_by: "has_email" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "sort_by"]);
    const big = await t.request("POST", `${L}/${l2.id}/execute`, { token: w.reader.token, body: { page_size: 201 } });
    expect(big.status).toBe(422);
    expect((await storedList(t, w.orgA, l2.id)).last_executed_at).toBeNull();
  });

  test("a static list runs over its live members", async () => {
    const l = await make(w.writer.token, { list_type: "static" });
    await t.request("POST", `${L}/${l.id}/members`, { token: w.writer.token, body: { patient_uuids: [pC, pA] } });
    const r = await t.request("POST", `${L}/${l.id}/execute`, { token: w.reader.token, body: { sort_by: "first_name", sort_dir: "desc" } });
    expect(r.status).toBe(200);
    expect(r.body.total_count).toBe(2);
    expect(r.body.patients.map((p: any) => [p.id, p.values])).toEqual([
      [pC, { first_name: "Cid" }],
      [pA, { first_name: "Ann" }],
    ]);
    expect((await t.request("POST", `${L}/${l.id}/count`, { token: w.reader.token })).body.count).toBe(2);
    expect((await storedList(t, w.orgA, l.id)).last_result_count).toBe(2);
  });

  test("409 list_needs_review when the saved filter no longer compiles; 401/403/404", async () => {
    const l = await make(w.writer.token, { list_type: "dynamic", filter_definition: byLastName(last) });
    const db = await orgDb(t, w.orgA);
    const { smartLists } = await import("@db/tenant/revenue");
    const { run } = await import("@/platform/db/work");
    await db.write((tx) =>
      run(
        tx
          .update(smartLists)
          .set({ filter_definition: { groups: [{ conditions: [{ field: "retired_field", operator: "eq", value: 1 }] }] } })
          .where(eq(smartLists.id, l.id)),
      ),
    );
    for (const verb of ["execute", "count"]) {
      const r = await t.request("POST", `${L}/${l.id}/${verb}`, { token: w.reader.token, body: {} });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe("list_needs_review");
    }
    expect((await storedList(t, w.orgA, l.id)).last_executed_at).toBeNull();
    const ok = await make(w.writer.token, { list_type: "dynamic", filter_definition: byLastName(last) });
    await expectGuarded(t, w.orgA, w.orgB, "POST", `${L}/${ok.id}/execute`, "revenue.read", {});
    expect((await t.request("POST", `${L}/${MISSING}/execute`, { token: w.reader.token, body: {} })).status).toBe(404);
    expect((await t.request("POST", `${L}/${MISSING}/count`, { token: w.reader.token })).status).toBe(404);
    expect((await t.request("POST", `${L}/${ok.id}/count`, { token: w.outsider.token })).status).toBe(403);
  });
});

describe("static members", () => {
  test("add: counts added and ignored (repeats and existing members), audits; list shows patient refs oldest first", async () => {
    const l = await make(w.writer.token, { list_type: "static" });
    const P = `${L}/${l.id}/members`;
    const r = await t.request("POST", P, { token: w.writer.token, body: { patient_uuids: [pA, pB, pA.toUpperCase()] } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ added: 2, ignored: 1, member_count: 2 });
    const again = await t.request("POST", P, { token: w.writer.token, body: { patient_uuids: [pB, pC] } });
    expect(again.body).toEqual({ added: 1, ignored: 1, member_count: 3 });
    const page = await t.request("GET", `${P}?page_size=2`, { token: w.reader.token });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ page: 1, page_size: 2, total: 3 });
    expect(page.body.items.map((m: any) => m.patient.name).sort()).toEqual([`Ann ${last}`, `Bob ${last}`]);
    expect(page.body.items[0]).toEqual({ patient: { uuid: expect.any(String), name: expect.any(String) }, added_at: expect.stringMatching(/Z$/) });
    expect((await auditOf(t, w.orgA, l.id)).map((a) => a.action)).toEqual(["smart_list.created", "smart_list.members_added", "smart_list.members_added"]);
  });

  test("404 for an unknown patient or another org's patient (nothing added); 422 for a bad body or a list that is not static", async () => {
    const l = await make(w.writer.token, { list_type: "static" });
    const P = `${L}/${l.id}/members`;
    const foreign = await createPatient(t, w.admin, w.orgB, "Far", "Away");
    for (const id of [MISSING, foreign]) {
      const r = await t.request("POST", P, { token: w.writer.token, body: { patient_uuids: [pA, id] } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Patient not found", code: "not_found" });
    }
    expect(await members(l.id)).toEqual([]);
    for (const body of [{}, { patient_uuids: [] }, { patient_uuids: ["nope"] }, { patient_uuids: Array.from({ length: 501 }, () => pA) }]) {
      expect((await t.request("POST", P, { token: w.writer.token, body })).status).toBe(422);
    }
    const d = await make(w.writer.token, { list_type: "dynamic", filter_definition: byLastName(last) });
    const nd = await t.request("POST", `${L}/${d.id}/members`, { token: w.writer.token, body: { patient_uuids: [pA] } });
    expect(nd.status).toBe(422);
    expect(nd.body.code).toBe("not_static_list");
    expect((await t.request("GET", `${L}/${d.id}/members`, { token: w.writer.token })).status).toBe(422);
    expect(await members(d.id)).toEqual([]);
  });

  test("remove: 204, then 404 (not a member); audited", async () => {
    const l = await make(w.writer.token, { list_type: "static" });
    const P = `${L}/${l.id}/members`;
    await t.request("POST", P, { token: w.writer.token, body: { patient_uuids: [pA, pB] } });
    const r = await t.request("DELETE", `${P}/${pA}`, { token: w.writer.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await members(l.id)).map((m) => m.patient_id)).toEqual([pB]);
    const again = await t.request("DELETE", `${P}/${pA}`, { token: w.writer.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: "List member not found", code: "not_found" });
    expect((await t.request("DELETE", `${P}/${MISSING}`, { token: w.writer.token })).status).toBe(404);
    expect((await auditOf(t, w.orgA, l.id)).map((a) => a.action)).toEqual(["smart_list.created", "smart_list.members_added", "smart_list.member_removed"]);
  });

  test("guards: 401, 403 (reader cannot add or remove), 404 other org and another user's personal list; nothing changes", async () => {
    const l = await make(w.writer.token, { list_type: "static" });
    const P = `${L}/${l.id}/members`;
    await t.request("POST", P, { token: w.writer.token, body: { patient_uuids: [pA] } });
    const body = { patient_uuids: [pB] };
    await expectGuarded(t, w.orgA, w.orgB, "POST", P, "revenue.write", body);
    expect((await t.request("POST", P, { token: w.reader.token, body })).status).toBe(403);
    expect((await t.request("DELETE", `${P}/${pA}`, { token: w.reader.token })).status).toBe(403);
    expect((await t.request("GET", P)).status).toBe(401);
    expect((await t.request("GET", P, { token: w.outsider.token })).status).toBe(403);
    const personal = await make(w.writer.token, { list_type: "static", scope: "personal" });
    await t.request("POST", `${L}/${personal.id}/members`, { token: w.writer.token, body: { patient_uuids: [pA] } });
    expect((await t.request("GET", `${L}/${personal.id}/members`, { token: w.writer2.token })).status).toBe(404);
    expect((await t.request("POST", `${L}/${personal.id}/members`, { token: w.writer2.token, body })).status).toBe(404);
    expect((await t.request("DELETE", `${L}/${personal.id}/members/${pA}`, { token: w.writer2.token })).status).toBe(404);
    expect((await members(l.id)).map((m) => m.patient_id)).toEqual([pA]);
    expect((await members(personal.id)).map((m) => m.patient_id)).toEqual([pA]);
  });
});

describe("actions (Phase 2)", () => {
  const cases = [
    [
      "create-tasks",
      { assigned_to_uuid: MISSING, task_template: "Call {patient_name}", priority: "high", due_date: "2030-01-31" },
      { assigned_to_uuid: MISSING },
    ],
    ["export", { columns: ["first_name", "phone"], format: "csv" }, { columns: [], format: "pdf" }],
    ["tag", { action: "add", tag_uuids: [MISSING] }, { action: "add", tag_uuids: Array.from({ length: 21 }, () => MISSING) }],
  ] as const;

  test("404 first (missing list, another user's personal list, another org), then 422 for the body, then 501 not_implemented", async () => {
    const l = await make(w.writer.token, { list_type: "static" });
    const personal = await make(w.writer2.token, { list_type: "static", scope: "personal" });
    for (const [action, good, bad] of cases) {
      for (const target of [MISSING, personal.id]) {
        const r = await t.request("POST", `${L}/${target}/actions/${action}`, { token: w.writer.token, body: bad });
        expect([action, r.status, r.body.code]).toEqual([action, 404, "not_found"]);
      }
      expect((await t.request("POST", `${w.B}/lists/${l.id}/actions/${action}`, { token: w.writerB.token, body: good })).status).toBe(404);
      const invalid = await t.request("POST", `${L}/${l.id}/actions/${action}`, { token: w.writer.token, body: bad });
      expect([action, invalid.status]).toEqual([action, 422]);
      const r = await t.request("POST", `${L}/${l.id}/actions/${action}`, { token: w.writer.token, body: good });
      expect([action, r.status]).toEqual([action, 501]);
      expect(r.body).toEqual({ detail: `The ${action} action of smart lists is not available yet (Phase 2)`, code: "not_implemented" });
    }
    const tooMany = await t.request("POST", `${L}/${l.id}/actions/tag`, { token: w.writer.token, body: cases[2][2] });
    expect(tooMany.body.detail[0]).toMatchObject({ loc: ["body", "tag_uuids"], type: "out_of_range" });
    expect((await storedList(t, w.orgA, l.id)).version).toBe(1);
  });

  test("401 and 403 before anything", async () => {
    const l = await make(w.writer.token, { list_type: "static" });
    expect((await t.request("POST", `${L}/${l.id}/actions/tag`, { body: cases[2][1] })).status).toBe(401);
    expect((await t.request("POST", `${L}/${l.id}/actions/tag`, { token: w.reader.token, body: cases[2][1] })).status).toBe(403);
    expect((await t.request("POST", `${L}/${l.id}/actions/create-tasks`, { token: w.reader.token, body: cases[0][1] })).status).toBe(403);
    expect((await t.request("POST", `${L}/${l.id}/actions/export`, { token: w.outsider.token, body: cases[1][1] })).status).toBe(403);
  });
});
