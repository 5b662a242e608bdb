import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "@tests/helpers";
import { overlapAllowed, requireAppointmentType } from "@/domains/scheduling/appointment-types/service";
import { NotFound } from "@/platform/errors";
import type { OrgDatabase } from "@/platform/db/org-databases";

// The two functions the booking verbs call inside their transaction.

let t: TestApp;
let admin: string;
let orgId: string;
let db: OrgDatabase;
const P = () => `/api/v1/${orgId}`;

let seq = 0;
async function newType() {
  const r = await t.request("POST", `${P()}/appointment-types`, {
    token: admin,
    body: { code: `O${++seq}`, name: `Type ${seq}`, duration_minutes: 15, color: "#ABC" },
  });
  return r.body.id as string;
}
async function newLocation() {
  return (await t.request("POST", `${P()}/locations`, { token: admin, body: { name: `Loc ${++seq}`, timezone: "UTC" } })).body.id as string;
}
async function rule(a: string, b: string, location: string | null, allow: boolean) {
  const r = await t.request("POST", `${P()}/schedule/appointment-rules`, {
    token: admin,
    body: { appointment_type_a_uuid: a, appointment_type_b_uuid: b, location_uuid: location, allow_overlap: allow },
  });
  if (r.status !== 201) throw new Error(r.text);
  return r.body as { id: string; version: number };
}
const allowed = (a: string, b: string, loc: string) => db.read((d) => overlapAllowed(d, a, b, loc)) as boolean;

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.adminToken();
  orgId = (await t.createOrg()).id;
  const org = (await t.rt.access.org(orgId))!;
  db = await t.rt.orgDbs.get(org.id, org.shard);
});
afterAll(() => t.close());

describe("overlapAllowed", () => {
  test("no rule: false", async () => {
    const [a, b, loc] = [await newType(), await newType(), await newLocation()];
    expect(allowed(a, b, loc)).toBe(false);
    expect(allowed(a, a, loc)).toBe(false);
  });

  test("an org-wide rule applies at every location and in either order", async () => {
    const [a, b, l1, l2] = [await newType(), await newType(), await newLocation(), await newLocation()];
    await rule(a, b, null, true);
    expect(allowed(a, b, l1)).toBe(true);
    expect(allowed(b, a, l2)).toBe(true);
    expect(allowed(a, a, l1)).toBe(false);
  });

  test("a location rule overrides the org-wide rule at that location only", async () => {
    const [a, b, l1, l2] = [await newType(), await newType(), await newLocation(), await newLocation()];
    await rule(a, b, null, true);
    await rule(b, a, l1, false);
    expect(allowed(a, b, l1)).toBe(false);
    expect(allowed(b, a, l1)).toBe(false);
    expect(allowed(a, b, l2)).toBe(true);
  });

  test("a location rule allows where the org-wide rule (or none) does not", async () => {
    const [a, b, c, l1, l2] = [await newType(), await newType(), await newType(), await newLocation(), await newLocation()];
    await rule(a, b, null, false);
    await rule(a, b, l1, true);
    await rule(c, c, l2, true);
    expect(allowed(b, a, l1)).toBe(true);
    expect(allowed(a, b, l2)).toBe(false);
    expect(allowed(c, c, l2)).toBe(true);
    expect(allowed(c, c, l1)).toBe(false);
    expect(allowed(a, c, l2)).toBe(false);
  });

  test("follows PATCH and DELETE: a deleted location rule hands the decision back to the org-wide rule", async () => {
    const [a, b, l1] = [await newType(), await newType(), await newLocation()];
    await rule(a, b, null, true);
    const local = await rule(a, b, l1, false);
    expect(allowed(a, b, l1)).toBe(false);
    const patched = await t.request("PATCH", `${P()}/schedule/appointment-rules/${local.id}`, { token: admin, body: { allow_overlap: true, base_version: 1 } });
    expect(patched.status).toBe(200);
    expect(allowed(a, b, l1)).toBe(true);
    await t.request("PATCH", `${P()}/schedule/appointment-rules/${local.id}`, { token: admin, body: { allow_overlap: false, base_version: 2 } });
    expect(allowed(a, b, l1)).toBe(false);
    expect((await t.request("DELETE", `${P()}/schedule/appointment-rules/${local.id}?base_version=3`, { token: admin })).status).toBe(204);
    expect(allowed(a, b, l1)).toBe(true);
  });

  test("works inside a write transaction too (where booking calls it)", async () => {
    const [a, b, l1] = [await newType(), await newType(), await newLocation()];
    await rule(a, b, l1, true);
    expect(await db.write((tx) => overlapAllowed(tx, b, a, l1))).toBe(true);
  });
});

describe("requireAppointmentType", () => {
  test("returns active and inactive types; 404 'Appointment type' for unknown and archived", async () => {
    const active = await newType();
    const row = db.read((d) => requireAppointmentType(d, active.toUpperCase())) as { id: string; duration_minutes: number; is_active: boolean };
    expect(row).toMatchObject({ id: active, duration_minutes: 15, is_active: true });
    const inactive = await newType();
    await t.request("PATCH", `${P()}/appointment-types/${inactive}`, { token: admin, body: { base_version: 1, is_active: false } });
    expect((db.read((d) => requireAppointmentType(d, inactive)) as { is_active: boolean }).is_active).toBe(false);
    const archived = await newType();
    await t.request("POST", `${P()}/appointment-types/${archived}/archive`, { token: admin });
    for (const id of [archived, "01a1fe29-0000-7000-8000-000000000000"]) {
      let caught: unknown;
      try {
        db.read((d) => requireAppointmentType(d, id));
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(NotFound);
      expect((caught as NotFound).message).toBe("Appointment type not found");
    }
  });
});
