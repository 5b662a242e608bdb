import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, busDrained, createMember, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { requirePatient, patientRef } from "@/domains/patients/record/service";
import { orgDb, setBalances } from "./fixtures";
import { withoutIdsAndTimes } from "@tests/support/secrets";

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let P: string;
let locationId: string;
const events: EventEnvelope[] = [];

beforeAll(async () => {
  ({ t, admin: token, orgA: orgId, orgB: otherOrg } = await twoOrgApp());
  P = `/api/v1/${orgId}/patients`;
  locationId = (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "North", timezone: "UTC" } })).body.id;
  t.rt.events.subscribe(orgId, (e) => events.push(e));
});
afterAll(() => t.close());

const create = async (body: Record<string, unknown> = {}) => {
  const r = await t.request("POST", P, { token, body: { first_name: "Stat", last_name: "Us", ...body } });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.body;
};
const read = async (id: string) => (await t.request("GET", `${P}/${id}`, { token })).body;
const transition = (id: string, body: Record<string, unknown>, tok = token) => t.request("POST", `${P}/${id}/transition-status`, { token: tok, body });
/** The resource's events so far: after the bus fence, every event of each finished write is in. */
const eventsOf = async (id: string) => {
  await busDrained(t.rt.bus);
  return events.filter((e) => e.resource_id === id);
};
const listIds = async (query = "") => (await t.request("GET", `${P}?page_size=200${query}`, { token })).body.items.map((p: { id: string }) => p.id);

describe("archive", () => {
  test("sets deleted_at and status archived; stays readable by id; listed only with status=archived", async () => {
    const p = await create({ location_uuid: locationId });
    const r = await t.request("POST", `${P}/${p.id}/archive`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: p.id, status: "archived", version: 2 });
    expect(r.body.deleted_at).toMatch(/Z$/);
    expect(await read(p.id)).toMatchObject({ status: "archived", version: 2 });
    expect(await listIds()).not.toContain(p.id);
    expect(await listIds("&status=active")).not.toContain(p.id);
    expect(await listIds("&status=archived")).toContain(p.id);
    const ev = await eventsOf(p.id);
    expect(ev.map((e) => e.type)).toEqual(["patient.created", "patient.archived"]);
    expect(ev.every((e) => e.practice_id === locationId)).toBe(true);
    expect(ev[1]!.data).toEqual({ id: p.id, changed_fields: expect.arrayContaining(["status", "deleted_at"]) });
    expect((await auditOf(t, orgId, p.id)).map((a) => a.action).sort()).toEqual(["patient.archived", "patient.created"]);
  });

  test("archived patients are read-only and cannot be archived again (422); nothing changes", async () => {
    const p = await create();
    await t.request("POST", `${P}/${p.id}/archive`, { token });
    const again = await t.request("POST", `${P}/${p.id}/archive`, { token });
    expect(again.status).toBe(422);
    expect(again.body.code).toBe("invalid_transition");
    const patch = await t.request("PATCH", `${P}/${p.id}`, { token, body: { base_version: 2, city: "Nope" } });
    expect(patch.status).toBe(422);
    expect(patch.body.code).toBe("patient_archived");
    const move = await transition(p.id, { status: "active", base_version: 2 });
    expect(move.status).toBe(422);
    expect(move.body.code).toBe("invalid_transition");
    expect(await read(p.id)).toMatchObject({ version: 2, status: "archived", city: null });
  });

  test("404 for unknown ids and another org's patient; 401; 403 (unchanged)", async () => {
    const p = await create();
    expect((await t.request("POST", `${P}/01a1fe29-0000-7000-8000-000000000000/archive`, { token })).status).toBe(404);
    expect((await t.request("POST", `/api/v1/${otherOrg}/patients/${p.id}/archive`, { token })).status).toBe(404);
    expect((await t.request("POST", `${P}/${p.id}/archive`)).status).toBe(401);
    const reader = await createMember(t, orgId, ["patients.read"]);
    expect((await t.request("POST", `${P}/${p.id}/archive`, { token: reader.token })).status).toBe(403);
    const outsider = await createMember(t, otherOrg, ["patients.write"]);
    expect((await t.request("POST", `${P}/${p.id}/archive`, { token: outsider.token })).status).toBe(404);
    expect(await read(p.id)).toMatchObject({ version: 1, status: "active", deleted_at: null });
  });
});

describe("restore", () => {
  test("archived -> inactive with deleted_at cleared; back in the default list; event patient.restored", async () => {
    const p = await create();
    await t.request("POST", `${P}/${p.id}/archive`, { token });
    const r = await t.request("POST", `${P}/${p.id}/restore`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "inactive", deleted_at: null, version: 3, scheduling_restricted: true });
    expect(await listIds()).toContain(p.id);
    expect(await listIds("&status=archived")).not.toContain(p.id);
    expect((await eventsOf(p.id)).map((e) => e.type)).toEqual(["patient.created", "patient.archived", "patient.restored"]);
  });

  test("422 invalid_transition when not archived; 404; 401; 403 (unchanged)", async () => {
    const p = await create();
    const r = await t.request("POST", `${P}/${p.id}/restore`, { token });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      detail: [{ loc: ["path", "patient_uuid"], msg: "Only an archived patient can be restored", type: "invalid_transition" }],
      code: "invalid_transition",
    });
    expect((await t.request("POST", `${P}/01a1fe29-0000-7000-8000-000000000000/restore`, { token })).status).toBe(404);
    expect((await t.request("POST", `/api/v1/${otherOrg}/patients/${p.id}/restore`, { token })).status).toBe(404);
    expect((await t.request("POST", `${P}/${p.id}/restore`)).status).toBe(401);
    await t.request("POST", `${P}/${p.id}/archive`, { token });
    const reader = await createMember(t, orgId, ["patients.read"]);
    expect((await t.request("POST", `${P}/${p.id}/restore`, { token: reader.token })).status).toBe(403);
    expect(await read(p.id)).toMatchObject({ version: 2, status: "archived" });
  });
});

describe("transition-status", () => {
  test("active -> inactive -> active; event patient.status_changed with the location as practice", async () => {
    const p = await create({ location_uuid: locationId });
    const r1 = await transition(p.id, { status: "inactive", base_version: 1 });
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ status: "inactive", version: 2, scheduling_restricted: true });
    const r2 = await transition(p.id, { status: "active", base_version: 2 });
    expect(r2.body).toMatchObject({ status: "active", version: 3, scheduling_restricted: false });
    const ev = (await eventsOf(p.id)).filter((e) => e.type === "patient.status_changed");
    expect(ev).toHaveLength(2);
    expect(ev[0]).toMatchObject({ practice_id: locationId, resource_type: "patient", data: { id: p.id, changed_fields: ["status"] } });
    expect((await auditOf(t, orgId, p.id)).filter((a) => a.action === "patient.status_changed")).toHaveLength(2);
  });

  test("prospective -> active and -> inactive", async () => {
    const a = await create({ status: "prospective" });
    expect((await transition(a.id, { status: "active", base_version: 1 })).body.status).toBe("active");
    const b = await create({ status: "prospective" });
    expect((await transition(b.id, { status: "inactive", base_version: 1 })).body.status).toBe("inactive");
  });

  test("-> deceased sets date_time_deceased (now, or the one given); deceased -> inactive clears it", async () => {
    const p = await create();
    const before = Date.now();
    const r = await transition(p.id, { status: "deceased", base_version: 1 });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("deceased");
    expect(Date.parse(r.body.date_time_deceased)).toBeGreaterThanOrEqual(before - 1000);
    const back = await transition(p.id, { status: "inactive", base_version: 2 });
    expect(back.body).toMatchObject({ status: "inactive", date_time_deceased: null });
    const given = await transition(p.id, { status: "deceased", base_version: 3, date_time_deceased: "2025-06-01T08:30:00+02:00" });
    expect(given.body.date_time_deceased).toBe("2025-06-01T06:30:00.000Z");
    // PATCH may correct the date of a deceased patient
    const fix = await t.request("PATCH", `${P}/${p.id}`, { token, body: { base_version: 4, date_time_deceased: "2025-06-02T00:00:00Z" } });
    expect(fix.body.date_time_deceased).toBe("2025-06-02T00:00:00.000Z");
  });

  test.each([
    ["active", "active"],
    ["active", "prospective"],
    ["active", "archived"],
    ["inactive", "prospective"],
    ["prospective", "deceased"],
    ["prospective", "prospective"],
    ["deceased", "active"],
    ["deceased", "prospective"],
  ])("%s -> %s is 422 invalid_transition, unchanged", async (from, to) => {
    const p = await create({ status: from });
    const r = await transition(p.id, { status: to, base_version: 1 });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      detail: [{ loc: ["body", "status"], msg: `Cannot change status from ${from} to ${to}`, type: "invalid_transition" }],
      code: "invalid_transition",
    });
    expect(await read(p.id)).toMatchObject({ status: from, version: 1 });
  });

  test("409 on a stale base_version; 422 on bad bodies; 404; 401; 403 (unchanged)", async () => {
    const p = await create();
    await t.request("PATCH", `${P}/${p.id}`, { token, body: { base_version: 1, city: "Elgin" } });
    const stale = await transition(p.id, { status: "inactive", base_version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    for (const [body, loc, type] of [
      [{ base_version: 2 }, ["body", "status"], "missing"],
      [{ status: "inactive" }, ["body", "base_version"], "missing"],
      [{ status: "sleeping", base_version: 2 }, ["body", "status"], "enum"],
      [{ status: "inactive", base_version: 2, reason: "x" }, ["body", "reason"], "extra_forbidden"],
      [{ status: "inactive", base_version: 2, date_time_deceased: "2025-01-01T00:00:00Z" }, ["body", "date_time_deceased"], "value_error"],
    ] as const) {
      const r = await transition(p.id, body);
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    expect((await transition("01a1fe29-0000-7000-8000-000000000000", { status: "inactive", base_version: 1 })).status).toBe(404);
    expect(
      (await t.request("POST", `/api/v1/${otherOrg}/patients/${p.id}/transition-status`, { token, body: { status: "inactive", base_version: 2 } })).status,
    ).toBe(404);
    expect((await t.request("POST", `${P}/${p.id}/transition-status`, { body: { status: "inactive", base_version: 2 } })).status).toBe(401);
    const reader = await createMember(t, orgId, ["patients.read"]);
    expect((await transition(p.id, { status: "inactive", base_version: 2 }, reader.token)).status).toBe(403);
    expect(await read(p.id)).toMatchObject({ status: "active", version: 2 });
  });
});

describe("events", () => {
  test("created/updated carry ids and changed field names only: no SSN, no free text", async () => {
    const p = await create({ location_uuid: locationId, social_security_number: "222334444", medical_urgent_note: "Anaphylaxis risk" });
    await t.request("PATCH", `${P}/${p.id}`, { token, body: { base_version: 1, social_security_number: "555667777", treatment_notes: "Crown on 14" } });
    const ev = await eventsOf(p.id);
    expect(ev.map((e) => e.type)).toEqual(["patient.created", "patient.updated"]);
    expect(ev[0]).toMatchObject({ org_id: orgId, practice_id: locationId, resource_type: "patient", data: { id: p.id } });
    expect(ev[1]!.data.changed_fields).toEqual(expect.arrayContaining(["social_security_number", "treatment_notes"]));
    const text = withoutIdsAndTimes(JSON.stringify(ev));
    for (const secret of ["222334444", "4444", "555667777", "7777", "Anaphylaxis", "Crown"]) expect(text).not.toContain(secret);
  });

  test("a patient without a location has practice_id null", async () => {
    const p = await create();
    expect((await eventsOf(p.id))[0]!.practice_id).toBeNull();
  });
});

describe("for the appointments domain", () => {
  test("requirePatient: the row with scheduling_restricted; 404 when missing or archived. patientRef: uuid and names", async () => {
    const p = await create({ first_name: "Book", last_name: "Able" });
    const owes = await create({ first_name: "Owes", last_name: "Lots" });
    await setBalances(t, orgId, owes.id, { balance_over_90_cents: 60_000 });
    const gone = await create();
    await t.request("POST", `${P}/${gone.id}/archive`, { token });
    const db = await orgDb(t, orgId);
    const row = await db.read((d) => requirePatient(d, p.id));
    expect(row).toMatchObject({ id: p.id, first_name: "Book", scheduling_restricted: false });
    expect(patientRef(row)).toEqual({ uuid: p.id, first_name: "Book", last_name: "Able" });
    expect((await db.read((d) => requirePatient(d, owes.id))).scheduling_restricted).toBe(true);
    for (const id of [gone.id, "01a1fe29-0000-7000-8000-000000000000"]) {
      let err: unknown;
      try {
        await db.read((d) => requirePatient(d, id));
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ status: 404, message: "Patient not found" });
    }
  });
});
