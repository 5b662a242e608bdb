import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { patients } from "@db/tenant/patients";
import { run } from "@/platform/db/work";
import { auditOf, busDrained, expectGuarded, expectValidationCases } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { MISSING, plusMonths, recallWorld, SETUP_TIMEOUT_MS, shift, todayUtc, type RecallWorld } from "./fixtures";

let w: RecallWorld;
beforeAll(async () => {
  w = await recallWorld();
}, SETUP_TIMEOUT_MS);
afterAll(() => w.t.close());

const req = (method: string, path: string, body?: unknown) => w.t.request(method, path, { token: w.token, body });
const R = (patientId: string) => `${w.A}/patients/${patientId}/recalls`;
const T = todayUtc();

describe("POST /patients/{id}/recalls", () => {
  test("201: dates worked out in the same write (never done: due the day it was made); audited and announced", async () => {
    const p = await w.patient();
    const bitewings = await w.typeOf("bitewings");
    const seen = w.events.length;
    const r = await req("POST", R(p.id), { recall_type_uuid: bitewings.id, note: "Prefers mornings" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      patient: { uuid: p.id, name: `Pat ${p.last_name}` },
      recall_type: { uuid: bitewings.id, name: "Bitewings" },
      is_perio: false,
      interval: { months: 12, weeks: 0, days: 0 },
      interval_override: null,
      date_due_override: null,
      note: "Prefers mornings",
      is_disabled: false,
      disable_until_date: null,
      disable_until_balance: null,
      recall_status: null,
      date_previous: null,
      date_due: r.body.created_at.slice(0, 10),
      date_scheduled: null,
      scheduled_appointment: null,
      status: "due",
      computed_at: r.body.created_at,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await req("GET", `${R(p.id)}/${r.body.id}`)).body).toEqual(r.body);
    expect((await auditOf(w.t, w.orgA, r.body.id)).map((a) => a.action)).toEqual(["recall.created"]);
    await busDrained(w.t.rt.bus);
    expect(
      w.events
        .slice(seen)
        .filter((e) => e.resource_id === r.body.id)
        .map((e) => [e.type, e.data]),
    ).toEqual([["recall.created", { id: r.body.id, patient_id: p.id }]]);
  });

  test("overrides: interval_override and date_due_override drive date_due; disable_until_balance is money", async () => {
    const p = await w.patient();
    const done = plusMonths(T, -2);
    await w.complete(p.id, "D0274", done);
    const bitewings = await w.typeOf("bitewings");
    const r = await req("POST", R(p.id), { recall_type_uuid: bitewings.id, interval_override: { months: 1, days: 3 }, disable_until_balance: 250.5 });
    expect(r.body).toMatchObject({
      date_previous: done,
      date_due: shift(plusMonths(done, 1), 3),
      status: "overdue",
      interval: { months: 1, weeks: 0, days: 3 },
      disable_until_balance: "250.50",
    });
    const patched = await req("PATCH", `${R(p.id)}/${r.body.id}`, { base_version: 1, date_due_override: shift(T, 10) });
    expect(patched.body).toMatchObject({ version: 2, date_due: shift(T, 10), status: "due", date_previous: done });
  });

  test("409 duplicate for a second live recall of the type; after a DELETE a new one may be made", async () => {
    const p = await w.patient();
    const pano = await w.typeOf("pano");
    const first = (await req("POST", R(p.id), { recall_type_uuid: pano.id })).body;
    const again = await req("POST", R(p.id), { recall_type_uuid: pano.id });
    expect([again.status, again.body.code]).toEqual([409, "duplicate"]);
    expect((await req("DELETE", `${R(p.id)}/${first.id}?base_version=1`)).status).toBe(204);
    expect((await req("POST", R(p.id), { recall_type_uuid: pano.id })).status).toBe(201);
  });

  test("bad input: 404 unknown or another org's recall type, unknown patient, unknown recall status; 422 zero interval, unknown and read-only fields, archived patient; nothing written", async () => {
    const p = await w.patient();
    const prophy = await w.typeOf("prophy");
    const otherOrgType = await w.typeOf("prophy", w.pathB);
    expect((await req("POST", R(p.id), { recall_type_uuid: otherOrgType.id })).body).toEqual({ detail: "Recall type not found", code: "not_found" });
    expect((await req("POST", R(p.id), { recall_type_uuid: MISSING })).status).toBe(404);
    expect((await req("POST", R(MISSING), { recall_type_uuid: prophy.id })).body.detail).toBe("Patient not found");
    expect((await req("POST", R(p.id), { recall_type_uuid: prophy.id, recall_status_uuid: MISSING })).body).toEqual({
      detail: "Recall status not found",
      code: "not_found",
    });
    const zero = await req("POST", R(p.id), { recall_type_uuid: prophy.id, interval_override: { months: 0 } });
    expect([zero.status, zero.body.code, zero.body.detail[0].loc]).toEqual([422, "invalid_interval", ["body", "interval_override"]]);
    await expectValidationCases(w.t, "POST", R(p.id), w.token, [
      [{}, ["body", "recall_type_uuid"], "missing"],
      [{ recall_type_uuid: "nope" }, ["body", "recall_type_uuid"], "format"],
      [{ recall_type_uuid: prophy.id, date_due: "2030-01-01" }, ["body", "date_due"], "read_only"],
      [{ recall_type_uuid: prophy.id, status: "due" }, ["body", "status"], "read_only"],
      [{ recall_type_uuid: prophy.id, colour: "red" }, ["body", "colour"], "extra_forbidden"],
      [{ recall_type_uuid: prophy.id, disable_until_balance: -1 }, ["body", "disable_until_balance"], "out_of_range"],
      [{ recall_type_uuid: prophy.id, disable_until_date: "2030-02-30" }, ["body", "disable_until_date"], "format"],
      [{ recall_type_uuid: prophy.id, is_disabled: "yes" }, ["body", "is_disabled"], "type_error"],
    ]);
    expect(await w.rows(p.id)).toEqual([]);
    const archived = await w.patient();
    expect((await req("POST", `${w.A}/patients/${archived.id}/archive`)).status).toBe(200);
    const refused = await req("POST", R(archived.id), { recall_type_uuid: prophy.id });
    expect([refused.status, refused.body.code]).toEqual([422, "patient_archived"]);
    expect(await w.rows(archived.id)).toEqual([]);
  });

  test("guarded", async () => {
    const p = await w.patient();
    const prophy = await w.typeOf("prophy");
    await expectGuarded(w.t, w.orgA, w.orgB, "POST", R(p.id), "recall.write", { recall_type_uuid: prophy.id });
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", R(p.id), "recall.read");
  });
});

describe("PATCH and DELETE /patients/{id}/recalls/{recall_id}", () => {
  test("PATCH: the recall status from recall_statuses (404 for another category), disabling, 409 stale, 404 another patient's recall", async () => {
    const p = await w.patient();
    const other = await w.patient();
    const prophy = await w.typeOf("prophy");
    const recall = (await req("POST", R(p.id), { recall_type_uuid: prophy.id })).body;
    const statuses = (await w.get("/definitions?category=recall_statuses")).items;
    const leftMessage = statuses.find((d: any) => d.item_name === "Left message");
    const r = await req("PATCH", `${R(p.id)}/${recall.id}`, { base_version: 1, recall_status_uuid: leftMessage.id, is_disabled: true, note: "Call after 5" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      version: 2,
      recall_status: { uuid: leftMessage.id, name: "Left message" },
      is_disabled: true,
      status: "disabled",
      note: "Call after 5",
    });
    const cash = (await w.get("/definitions?category=payment_types")).items.find((d: any) => d.item_name === "Cash");
    expect((await req("PATCH", `${R(p.id)}/${recall.id}`, { base_version: 2, recall_status_uuid: cash.id })).body).toEqual({
      detail: "Recall status not found",
      code: "not_found",
    });
    const stale = await req("PATCH", `${R(p.id)}/${recall.id}`, { base_version: 1, note: "x" });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect((await req("PATCH", `${R(other.id)}/${recall.id}`, { base_version: 2, note: "x" })).status).toBe(404);
    expect((await req("GET", `${R(other.id)}/${recall.id}`)).status).toBe(404);
    await expectValidationCases(w.t, "PATCH", `${R(p.id)}/${recall.id}`, w.token, [
      [{ note: "x" }, ["body", "base_version"], "missing"],
      [{ base_version: 2, recall_type_uuid: prophy.id }, ["body", "recall_type_uuid"], "read_only"],
      [{ base_version: 2, date_previous: "2020-01-01" }, ["body", "date_previous"], "read_only"],
    ]);
    const after = (await req("GET", `${R(p.id)}/${recall.id}`)).body;
    expect([after.version, after.note]).toEqual([2, "Call after 5"]);
    // enabled again: due (never done: from the day it was made)
    expect((await req("PATCH", `${R(p.id)}/${recall.id}`, { base_version: 2, is_disabled: false })).body).toMatchObject({ status: "due", version: 3 });
    await expectGuarded(w.t, w.orgA, w.orgB, "PATCH", `${R(p.id)}/${recall.id}`, "recall.write", { base_version: 3, note: "g" });
  });

  test("DELETE: 204, soft (gone from GET and the list, row kept), 409 stale, 404 missing; a deleted automatic recall is not started again", async () => {
    const p = await w.patient();
    await w.complete(p.id, "D1110", plusMonths(T, -1));
    await w.recompute([p.id]);
    const [recall] = await w.recallsOf(p.id);
    const stale = await req("DELETE", `${R(p.id)}/${recall.id}?base_version=9`);
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect((await req("DELETE", `${R(p.id)}/${recall.id}`)).status).toBe(422);
    expect((await req("DELETE", `${R(p.id)}/${recall.id}?base_version=1`)).status).toBe(204);
    expect((await req("GET", `${R(p.id)}/${recall.id}`)).status).toBe(404);
    expect((await req("DELETE", `${R(p.id)}/${recall.id}?base_version=1`)).status).toBe(404);
    expect(await w.recallsOf(p.id)).toEqual([]);
    expect((await w.rows(p.id)).map((r) => !!r.deleted_at)).toEqual([true]);
    await w.complete(p.id, "D1110", T);
    expect(await w.recompute([p.id])).toEqual({ patients: 1, created: 0, updated: 0 });
    expect(await w.recallsOf(p.id)).toEqual([]);
    expect((await auditOf(w.t, w.orgA, recall.id)).map((a) => a.action)).toEqual(["recall.created", "recall.deleted"]);
  });
});

describe("the status rules", () => {
  test("a child gets child prophy from D1120, never prophy from the exam D0120; an adult's exam alone starts nothing", async () => {
    const child = await w.patient({ date_of_birth: "2018-03-01" });
    await w.complete(child.id, "D0120", plusMonths(T, -3));
    await w.complete(child.id, "D1120", plusMonths(T, -3));
    const adult = await w.patient();
    await w.complete(adult.id, "D0120", plusMonths(T, -3));
    await w.recompute([child.id, adult.id]);
    expect((await w.recallsOf(child.id)).map((r) => [r.recall_type.name, r.date_previous, r.date_due])).toEqual([
      ["Child prophy", plusMonths(T, -3), plusMonths(T, 3)],
    ]);
    expect(await w.recallsOf(adult.id)).toEqual([]);
  });

  test("disabled until a date, and while the balance is above the amount (the nightly recompute lifts it)", async () => {
    const p = await w.patient();
    await w.complete(p.id, "D1110", plusMonths(T, -1)); // 105.00 charged
    await w.recompute([p.id]);
    const [recall] = await w.recallsOf(p.id);
    const until = await req("PATCH", `${R(p.id)}/${recall.id}`, { base_version: recall.version, disable_until_date: shift(T, 1) });
    expect(until.body.status).toBe("disabled");
    const past = await req("PATCH", `${R(p.id)}/${recall.id}`, { base_version: until.body.version, disable_until_date: T });
    expect(past.body.status).toBe("due");
    const balance = await req("PATCH", `${R(p.id)}/${recall.id}`, { base_version: past.body.version, disable_until_balance: 100 });
    expect(balance.body.status).toBe("disabled");
    const db = await orgDb(w.t, w.orgA);
    await db.write((tx) =>
      run(
        tx
          .update(patients)
          .set({ balance_0_30_cents: 10_000, balance_31_60_cents: 0, balance_61_90_cents: 0, balance_over_90_cents: 0 })
          .where(eq(patients.id, p.id)),
      ),
    );
    expect(await w.recompute([p.id])).toEqual({ patients: 1, created: 0, updated: 1 });
    expect((await w.recallsOf(p.id))[0].status).toBe("due");
  });

  test("an enabled perio recall disables prophy; disabling or deleting it enables prophy again in the same write", async () => {
    const p = await w.patient();
    await w.complete(p.id, "D1110", plusMonths(T, -1));
    await w.recompute([p.id]);
    const perio = await w.typeOf("perio");
    const created = (await req("POST", R(p.id), { recall_type_uuid: perio.id })).body;
    expect((await w.byType(p.id)).Prophy.status).toBe("disabled");
    const off = await req("PATCH", `${R(p.id)}/${created.id}`, { base_version: 1, is_disabled: true });
    expect(off.body.status).toBe("disabled");
    expect((await w.byType(p.id)).Prophy.status).toBe("due");
    await req("PATCH", `${R(p.id)}/${created.id}`, { base_version: 2, is_disabled: false });
    expect((await w.byType(p.id)).Prophy.status).toBe("disabled");
    expect((await req("DELETE", `${R(p.id)}/${created.id}?base_version=3`)).status).toBe(204);
    expect((await w.byType(p.id)).Prophy.status).toBe("due");
  });

  test("GET list: 404 unknown patient; an archived patient's recalls stay readable", async () => {
    expect((await req("GET", R(MISSING))).status).toBe(404);
    const p = await w.patient();
    await req("POST", R(p.id), { recall_type_uuid: (await w.typeOf("pano")).id });
    await req("POST", `${w.A}/patients/${p.id}/archive`);
    expect((await req("GET", R(p.id))).body.total).toBe(1);
  });
});
