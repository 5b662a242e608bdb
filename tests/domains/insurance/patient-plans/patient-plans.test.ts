import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { patientPlans } from "@db/tenant/insurance";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, type TestApp } from "@tests/helpers";
import { created, createPatient, insertCarrier, MISSING, planWorld, storedRow, storedRows } from "@tests/domains/insurance/plans/fixtures";

let t: TestApp;
let admin: string;
let reader: string;
let outsider: string;
let orgA: string;
let orgB: string;
let events: EventEnvelope[];
let P: (org?: string) => string;
let carrier: { id: string; name: string };
let plan: any;
let location: any;

const pps = (org?: string) => `${P(org)}/patient-plans`;
const pp = (id: string, org?: string) => `${pps(org)}/${id}`;
const patient = (first = "Pat", org = orgA) => createPatient(t, admin, org, first);
/** A subscriber at the location, and their card. */
async function card(first = "Sam", body: Record<string, unknown> = {}) {
  const subscriber = await created(t, admin, `/api/v1/${orgA}/patients`, { first_name: first, last_name: "Subscriber", location_uuid: location.id });
  const subscription = await created(t, admin, `${P()}/subscriptions`, {
    plan_uuid: plan.id,
    subscriber_patient_uuid: subscriber.id,
    subscriber_id: `M-${first}`,
    ...body,
  });
  return { subscriber, subscription };
}
const cover = (patientId: string, subscriptionId: string, body: Record<string, unknown> = {}) =>
  created(t, admin, pps(), { patient_uuid: patientId, subscription_uuid: subscriptionId, ...body });
const count = async () => (await storedRows(t, orgA, patientPlans)).length;
const stored = (id: string) => storedRow(t, orgA, patientPlans, id);

beforeAll(async () => {
  ({ t, admin, reader, outsider, orgA, orgB, events, P } = await planWorld());
  carrier = await insertCarrier(t, orgA, "Guardian");
  plan = await created(t, admin, `${P()}/plans`, { carrier_uuid: carrier.id, plan_name: "Guardian PPO" });
  location = await created(t, admin, `/api/v1/${orgA}/locations`, { name: "Uptown", timezone: "America/New_York" });
});
afterAll(() => t.close());

describe("POST /insurance/patient-plans", () => {
  test("201 for the subscriber (relationship defaults to self, ordinal to 1); refs; audited; created event in the patient's practice; a coverage change", async () => {
    const { subscriber, subscription } = await card("Sam");
    const before = events.length;
    const r = await t.request("POST", pps(), { token: admin, body: { patient_uuid: subscriber.id, subscription_uuid: subscription.id.toUpperCase() } });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      patient: { uuid: subscriber.id, name: "Sam Subscriber" },
      subscription: { uuid: subscription.id, name: "M-Sam" },
      plan: { uuid: plan.id, name: "Guardian PPO" },
      carrier: { uuid: carrier.id, name: "Guardian" },
      subscriber: { uuid: subscriber.id, name: "Sam Subscriber" },
      relationship: "self",
      ordinal: 1,
      is_active: true,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["patient_plan.created"]);
    const mine = events.slice(before);
    expect(mine.map((e) => [e.type, e.resource_id, e.practice_id, e.data])).toEqual([
      [
        "patient_plan.created",
        r.body.id,
        location.id,
        { id: r.body.id, patient_id: subscriber.id, subscription_id: subscription.id, ordinal: 1, relationship: "self", is_active: true },
      ],
      ["insurance.coverage_changed", subscriber.id, null, { patient_ids: [subscriber.id], plan_ids: [] }],
    ]);
    expect(JSON.stringify(mine)).not.toContain("M-Sam");
    expect((await t.request("GET", pp(r.body.id), { token: reader })).body).toEqual(r.body);
  });

  test("a dependant gets the lowest free ordinal; an inactive plan may sit on a held ordinal; ordinals 1-4 all held is 409", async () => {
    const kid = await patient("Kid");
    const cards = await Promise.all(["A1", "A2", "A3", "A4", "A5"].map((n) => card(n)));
    const first = await cover(kid.id, cards[0]!.subscription.id, { relationship: "child" });
    const third = await cover(kid.id, cards[1]!.subscription.id, { relationship: "child", ordinal: 3 });
    const second = await cover(kid.id, cards[2]!.subscription.id, { relationship: "other" });
    expect([first.ordinal, second.ordinal, third.ordinal]).toEqual([1, 2, 3]);
    const idle = await cover(kid.id, cards[3]!.subscription.id, { relationship: "child", ordinal: 1, is_active: false });
    expect([idle.ordinal, idle.is_active]).toEqual([1, false]);
    await cover(kid.id, (await card("A6")).subscription.id, { relationship: "child" }); // takes 4
    const n = await count();
    const full = await t.request("POST", pps(), {
      token: admin,
      body: { patient_uuid: kid.id, subscription_uuid: cards[4]!.subscription.id, relationship: "child" },
    });
    expect([full.status, full.body]).toEqual([409, { detail: "The patient already has active plans at ordinals 1-4", code: "ordinal_taken" }]);
    expect(await count()).toBe(n);
  });

  test("409 ordinal_taken for an active plan at a held ordinal, 409 duplicate for a second plan on the same card; nothing is written", async () => {
    const { subscriber, subscription } = await card("Dup");
    await cover(subscriber.id, subscription.id);
    const other = await card("Other");
    const n = await count();
    const taken = await t.request("POST", pps(), {
      token: admin,
      body: { patient_uuid: subscriber.id, subscription_uuid: other.subscription.id, relationship: "spouse", ordinal: 1 },
    });
    expect([taken.status, taken.body]).toEqual([409, { detail: "The patient already has an active plan at this ordinal", code: "ordinal_taken" }]);
    const dup = await t.request("POST", pps(), { token: admin, body: { patient_uuid: subscriber.id, subscription_uuid: subscription.id, ordinal: 2 } });
    expect([dup.status, dup.body]).toEqual([409, { detail: "The patient already has a plan for this subscription", code: "duplicate" }]);
    expect(await count()).toBe(n);
  });

  test("422 relationship rules, archived patient and bad fields; nothing is written", async () => {
    const { subscriber, subscription } = await card("Rel");
    const spouse = await patient("Spouse");
    const gone = await patient("Gone");
    await t.request("POST", `/api/v1/${orgA}/patients/${gone.id}/archive`, { token: admin });
    const n = await count();
    const body = (extra: Record<string, unknown>) => ({ patient_uuid: spouse.id, subscription_uuid: subscription.id, ...extra });
    const cases: [Record<string, unknown>, unknown[], string, string?][] = [
      [body({}), ["body", "relationship"], "missing"],
      [body({ relationship: "self" }), ["body", "relationship"], "value_error", "relationship_mismatch"],
      [
        { patient_uuid: subscriber.id, subscription_uuid: subscription.id, relationship: "spouse" },
        ["body", "relationship"],
        "value_error",
        "relationship_mismatch",
      ],
      [body({ relationship: "self", patient_uuid: gone.id }), ["body", "patient_uuid"], "value_error", "patient_archived"],
      [body({ relationship: "parent" }), ["body", "relationship"], "enum"],
      [body({ relationship: "spouse", ordinal: 0 }), ["body", "ordinal"], "out_of_range"],
      [body({ relationship: "spouse", ordinal: 5 }), ["body", "ordinal"], "out_of_range"],
      [body({ relationship: "spouse", is_active: "yes" }), ["body", "is_active"], "type_error"],
      [{ subscription_uuid: subscription.id, relationship: "spouse" }, ["body", "patient_uuid"], "missing"],
      [body({ relationship: "spouse", plan: null }), ["body", "plan"], "read_only"],
      [body({ relationship: "spouse", deleted_at: null }), ["body", "deleted_at"], "read_only"],
    ];
    for (const [b, loc, type, code] of cases) {
      const r = await t.request("POST", pps(), { token: admin, body: b });
      expect([JSON.stringify(b), r.status, r.body.detail[0]]).toEqual([JSON.stringify(b), 422, { loc, msg: expect.any(String), type }]);
      if (code) expect(r.body.code).toBe(code);
    }
    expect(await count()).toBe(n);
  });

  test("404 when the patient or the subscription is missing, archived or another org's; 401; 403; 404 for a non-member org; nothing is written", async () => {
    const { subscriber, subscription } = await card("Nf");
    const archived = await card("Ar");
    await t.request("POST", `${P()}/subscriptions/${archived.subscription.id}/archive?base_version=1`, { token: admin });
    const foreignPatient = await patient("F", orgB);
    const n = await count();
    const cases: [Record<string, unknown>, string][] = [
      [{ patient_uuid: MISSING, subscription_uuid: subscription.id, relationship: "child" }, "Patient not found"],
      [{ patient_uuid: foreignPatient.id, subscription_uuid: subscription.id, relationship: "child" }, "Patient not found"],
      [{ patient_uuid: subscriber.id, subscription_uuid: MISSING }, "Subscription not found"],
      [{ patient_uuid: archived.subscriber.id, subscription_uuid: archived.subscription.id }, "Subscription not found"],
    ];
    for (const [b, detail] of cases) {
      const r = await t.request("POST", pps(), { token: admin, body: b });
      expect([JSON.stringify(b), r.status, r.body]).toEqual([JSON.stringify(b), 404, { detail, code: "not_found" }]);
    }
    const body = { patient_uuid: subscriber.id, subscription_uuid: subscription.id };
    expect((await t.request("POST", pps(), { body })).status).toBe(401);
    expect((await t.request("POST", pps(), { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", pps(), { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", pps(orgB), { token: reader, body })).status).toBe(404);
    expect(await count()).toBe(n);
  });
});

describe("GET /insurance/patient-plans", () => {
  test("a patient's plans: active first by ordinal, then inactive; filters subscription_uuid and is_active; archived left out", async () => {
    const kid = await patient("Lister");
    const [c1, c2, c3, c4] = await Promise.all(["L1", "L2", "L3", "L4"].map((n) => card(n)));
    const secondary = await cover(kid.id, c1!.subscription.id, { relationship: "child", ordinal: 2 });
    const idle = await cover(kid.id, c2!.subscription.id, { relationship: "child", ordinal: 1, is_active: false });
    const primary = await cover(kid.id, c3!.subscription.id, { relationship: "child", ordinal: 1 });
    const gone = await cover(kid.id, c4!.subscription.id, { relationship: "child", ordinal: 3 });
    await t.request("POST", `${pp(gone.id)}/archive?base_version=1`, { token: admin });
    const list = async (qs: string) => {
      const r = await t.request("GET", `${pps()}?${qs}`, { token: reader });
      expect(r.status).toBe(200);
      return r.body;
    };
    expect(await list(`patient_uuid=${kid.id}`)).toEqual({ items: [primary, secondary, idle], page: 1, page_size: 50, total: 3 });
    expect((await list(`patient_uuid=${kid.id}&is_active=false`)).items).toEqual([idle]);
    expect((await list(`subscription_uuid=${c1!.subscription.id}`)).items).toEqual([secondary]);
    expect((await list(`patient_uuid=${kid.id}&page=2&page_size=2`)).items).toEqual([idle]);
  });

  test("404 for a missing or another org's patient; 422 on bad parameters; 401; 403; 404 for a non-member org", async () => {
    const foreign = await patient("F", orgB);
    for (const id of [MISSING, foreign.id]) {
      const r = await t.request("GET", `${pps()}?patient_uuid=${id}`, { token: reader });
      expect([r.status, r.body]).toEqual([404, { detail: "Patient not found", code: "not_found" }]);
    }
    for (const qs of ["page=0", "is_active=no", "patient_uuid=abc", "ordinal=1"]) {
      expect([qs, (await t.request("GET", `${pps()}?${qs}`, { token: reader })).status]).toEqual([qs, 422]);
    }
    expect((await t.request("GET", pps())).status).toBe(401);
    expect((await t.request("GET", pps(), { token: outsider })).status).toBe(403);
    expect((await t.request("GET", pps(orgB), { token: reader })).status).toBe(404);
  });
});

describe("GET /insurance/patient-plans/{patient_plan_uuid}", () => {
  test("200 with ETag; 404 missing, archived or another org's; 401; 403", async () => {
    const { subscriber, subscription } = await card("Get");
    const mine = await cover(subscriber.id, subscription.id);
    const r = await t.request("GET", pp(mine.id), { token: reader });
    expect([r.status, r.headers.get("etag"), r.body]).toEqual([200, '"1"', mine]);
    const other = await card("Gone");
    const gone = await cover(other.subscriber.id, other.subscription.id);
    await t.request("POST", `${pp(gone.id)}/archive?base_version=1`, { token: admin });
    for (const id of [MISSING, gone.id]) {
      const m = await t.request("GET", pp(id), { token: reader });
      expect([m.status, m.body]).toEqual([404, { detail: "Patient plan not found", code: "not_found" }]);
    }
    expect((await t.request("GET", pp(mine.id, orgB), { token: admin })).status).toBe(404);
    expect((await t.request("GET", pp(mine.id))).status).toBe(401);
    expect((await t.request("GET", pp(mine.id), { token: outsider })).status).toBe(403);
    expect((await t.request("GET", pp(mine.id, orgB), { token: reader })).status).toBe(404);
  });
});

describe("PATCH /insurance/patient-plans/{patient_plan_uuid}", () => {
  async function twoPlans(name: string) {
    const kid = await patient(name);
    const [c1, c2] = await Promise.all([card(`${name}1`), card(`${name}2`)]);
    const a = await cover(kid.id, c1!.subscription.id, { relationship: "child" });
    const b = await cover(kid.id, c2!.subscription.id, { relationship: "child" });
    return { kid, a, b };
  }

  test("moving the secondary to ordinal 1 swaps it with the primary: both audited once and published as updated; one coverage change", async () => {
    const { kid, a, b } = await twoPlans("Swap");
    expect([a.ordinal, b.ordinal]).toEqual([1, 2]);
    const before = events.length;
    const r = await t.request("PATCH", pp(b.id), { token: admin, body: { base_version: 1, ordinal: 1 } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...b, ordinal: 1, version: 2, updated_at: expect.any(String) });
    const list = (await t.request("GET", `${pps()}?patient_uuid=${kid.id}`, { token: reader })).body.items;
    expect(list.map((x: any) => [x.id, x.ordinal, x.version])).toEqual([
      [b.id, 1, 2],
      [a.id, 2, 2],
    ]);
    const trail = await auditOf(t, orgA, a.id);
    expect(trail.map((e) => [e.action, e.before?.ordinal ?? null, e.after?.ordinal])).toEqual([
      ["patient_plan.created", null, 1],
      ["patient_plan.updated", 1, 2],
    ]);
    expect((await auditOf(t, orgA, b.id)).map((e) => [e.action, e.before?.ordinal ?? null, e.after?.ordinal])).toEqual([
      ["patient_plan.created", null, 2],
      ["patient_plan.updated", 2, 1],
    ]);
    expect(events.slice(before).map((e) => [e.type, e.resource_id, e.data.changed_fields ?? null])).toEqual([
      ["patient_plan.updated", b.id, ["ordinal"]],
      ["patient_plan.updated", a.id, ["ordinal"]],
      ["insurance.coverage_changed", kid.id, null],
    ]);
  });

  test("moving to a free ordinal, deactivating (the other keeps its ordinal), changing the relationship", async () => {
    const { kid, a, b } = await twoPlans("Move");
    const moved = await t.request("PATCH", pp(b.id), { token: admin, body: { base_version: 1, ordinal: 4, relationship: "other" } });
    expect([moved.status, moved.body.ordinal, moved.body.relationship]).toEqual([200, 4, "other"]);
    const off = await t.request("PATCH", pp(a.id), { token: admin, body: { base_version: 1, is_active: false } });
    expect([off.status, off.body.is_active, off.body.ordinal]).toEqual([200, false, 1]);
    // an inactive plan may take a held ordinal only while inactive
    const held = await t.request("PATCH", pp(a.id), { token: admin, body: { base_version: 2, ordinal: 4 } });
    expect([held.status, held.body.ordinal]).toEqual([200, 4]);
    expect((await t.request("GET", `${pps()}?patient_uuid=${kid.id}&is_active=true`, { token: reader })).body.items.map((x: any) => x.id)).toEqual([b.id]);
  });

  test("409 ordinal_taken when activating onto a held ordinal; 409 stale; 422 relationship and read-only fields; 404; nothing changes", async () => {
    const { a, b } = await twoPlans("Refuse");
    await t.request("PATCH", pp(b.id), { token: admin, body: { base_version: 1, is_active: false } });
    const clash = await t.request("PATCH", pp(b.id), { token: admin, body: { base_version: 2, is_active: true, ordinal: 1 } });
    expect([clash.status, clash.body.code]).toEqual([409, "ordinal_taken"]);
    const back = await t.request("PATCH", pp(b.id), { token: admin, body: { base_version: 2, ordinal: 1 } });
    expect([back.status, back.body.ordinal, back.body.is_active]).toEqual([200, 1, false]);
    const reactivate = await t.request("PATCH", pp(b.id), { token: admin, body: { base_version: 3, is_active: true } });
    expect([reactivate.status, reactivate.body.code]).toEqual([409, "ordinal_taken"]);
    const stale = await t.request("PATCH", pp(a.id), { token: admin, body: { base_version: 2, ordinal: 3 } });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const self = await t.request("PATCH", pp(a.id), { token: admin, body: { base_version: 1, relationship: "self" } });
    expect([self.status, self.body.code]).toEqual([422, "relationship_mismatch"]);
    for (const [body, loc, type] of [
      [{ base_version: 1, patient_uuid: MISSING }, ["body", "patient_uuid"], "read_only"],
      [{ base_version: 1, subscription_uuid: MISSING }, ["body", "subscription_uuid"], "read_only"],
      [{ base_version: 1, ordinal: 9 }, ["body", "ordinal"], "out_of_range"],
      [{ ordinal: 2 }, ["body", "base_version"], "missing"],
    ] as const) {
      const r = await t.request("PATCH", pp(a.id), { token: admin, body });
      expect([r.status, r.body.detail[0]]).toEqual([422, { loc, msg: expect.any(String), type }]);
    }
    expect((await t.request("PATCH", pp(MISSING), { token: admin, body: { base_version: 1, ordinal: 2 } })).status).toBe(404);
    expect(await stored(a.id)).toMatchObject({ version: 1, ordinal: 1, relationship: "child", is_active: true });
    expect(await stored(b.id)).toMatchObject({ version: 3, ordinal: 1, is_active: false });
  });

  test("422 patient_archived when the patient is archived; 401; 403 without insurance.write; 404 for a non-member org", async () => {
    const { kid, a } = await twoPlans("Auth");
    const body = { base_version: 1, ordinal: 3 };
    expect((await t.request("PATCH", pp(a.id), { body })).status).toBe(401);
    expect((await t.request("PATCH", pp(a.id), { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", pp(a.id, orgB), { token: reader, body })).status).toBe(404);
    // A's id through B's path (the admin is a member of both)
    expect((await t.request("PATCH", pp(a.id, orgB), { token: admin, body })).status).toBe(404);
    await t.request("POST", `/api/v1/${orgA}/patients/${kid.id}/archive`, { token: admin });
    const r = await t.request("PATCH", pp(a.id), { token: admin, body });
    expect([r.status, r.body.code]).toEqual([422, "patient_archived"]);
    expect((await stored(a.id)).version).toBe(1);
  });
});

describe("POST /insurance/patient-plans/{patient_plan_uuid}/archive", () => {
  test("200 answers the archived plan; the others keep their ordinals; audited; events; a coverage change for everyone on the card", async () => {
    const { subscriber, subscription } = await card("Fam");
    const kid = await patient("Famkid");
    const own = await cover(subscriber.id, subscription.id);
    const child = await cover(kid.id, subscription.id, { relationship: "child" });
    const other = await cover(kid.id, (await card("Fam2")).subscription.id, { relationship: "child" });
    const before = events.length;
    const r = await t.request("POST", `${pp(child.id)}/archive?base_version=1`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...child, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await t.request("GET", pp(other.id), { token: reader })).body.ordinal).toBe(2);
    expect((await auditOf(t, orgA, child.id)).map((a) => a.action)).toEqual(["patient_plan.created", "patient_plan.archived"]);
    const mine = events.slice(before);
    expect(mine.map((e) => e.type)).toEqual(["patient_plan.archived", "insurance.coverage_changed"]);
    expect(mine[1]!.data.patient_ids).toEqual([subscriber.id, kid.id]);
    expect((await t.request("GET", pp(child.id), { token: reader })).status).toBe(404);
    // the slot is free again
    expect((await cover(kid.id, subscription.id, { relationship: "child", ordinal: 1 })).ordinal).toBe(1);
    expect(own.ordinal).toBe(1);
  });

  test("409 stale, 422 without base_version, 404 missing or another org's, 401, 403; nothing changes", async () => {
    const { subscriber, subscription } = await card("Arc");
    const mine = await cover(subscriber.id, subscription.id);
    const stale = await t.request("POST", `${pp(mine.id)}/archive?base_version=2`, { token: admin });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect((await t.request("POST", `${pp(mine.id)}/archive`, { token: admin })).status).toBe(422);
    expect((await t.request("POST", `${pp(MISSING)}/archive?base_version=1`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${pp(mine.id, orgB)}/archive?base_version=1`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${pp(mine.id)}/archive?base_version=1`)).status).toBe(401);
    expect((await t.request("POST", `${pp(mine.id)}/archive?base_version=1`, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${pp(mine.id, orgB)}/archive?base_version=1`, { token: reader })).status).toBe(404);
    expect((await stored(mine.id)).deleted_at).toBeNull();
  });
});
