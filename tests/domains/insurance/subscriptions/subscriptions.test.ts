import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { insuranceSubscriptions, patientPlans } from "@db/tenant/insurance";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, type TestApp } from "@tests/helpers";
import {
  coverageChanges,
  created,
  createPatient,
  eventsOf,
  insertCarrier,
  MISSING,
  planWorld,
  storedRow,
  storedRows,
} from "@tests/domains/insurance/plans/fixtures";

let t: TestApp;
let admin: string;
let reader: string;
let outsider: string;
let orgA: string;
let orgB: string;
let events: EventEnvelope[];
let P: (org?: string) => string;
let carrier: { id: string; name: string };
let plan: any; // "Acme PPO"
let otherPlan: any; // group "Globex", no plan name
let location: any;
let holder: any; // the subscriber, at `location`
let foreignPlan: any;

const subs = (org?: string) => `${P(org)}/subscriptions`;
const sub = (id: string, org?: string) => `${subs(org)}/${id}`;
const patient = (first = "Pat", org = orgA) => createPatient(t, admin, org, first);
const subscribe = (body: Record<string, unknown> = {}) => created(t, admin, subs(), { plan_uuid: plan.id, subscriber_patient_uuid: holder.id, ...body });
const count = async () => (await storedRows(t, orgA, insuranceSubscriptions)).length;

beforeAll(async () => {
  ({ t, admin, reader, outsider, orgA, orgB, events, P } = await planWorld());
  carrier = await insertCarrier(t, orgA, "Aetna");
  plan = await created(t, admin, `${P()}/plans`, { carrier_uuid: carrier.id, plan_name: "Acme PPO", group_number: "G-1" });
  otherPlan = await created(t, admin, `${P()}/plans`, { carrier_uuid: carrier.id, group_name: "Globex" });
  foreignPlan = await created(t, admin, `${P(orgB)}/plans`, { carrier_uuid: (await insertCarrier(t, orgB)).id });
  location = await created(t, admin, `/api/v1/${orgA}/locations`, { name: "Downtown", timezone: "America/Chicago" });
  holder = await created(t, admin, `/api/v1/${orgA}/patients`, { first_name: "Hal", last_name: "Holder", location_uuid: location.id });
});
afterAll(() => t.close());

describe("POST /insurance/subscriptions", () => {
  test("201 with refs to plan, carrier and subscriber; audited; created event in the subscriber's practice without the member id; no coverage change", async () => {
    const before = events.length;
    const r = await t.request("POST", subs(), {
      token: admin,
      body: {
        plan_uuid: plan.id,
        subscriber_patient_uuid: holder.id.toUpperCase(),
        subscriber_id: " W123456789 ",
        effective_date: "2025-01-01",
        termination_date: "2025-12-31",
        notes: "Card on file",
      },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      plan: { uuid: plan.id, name: "Acme PPO" },
      carrier: { uuid: carrier.id, name: "Aetna" },
      subscriber: { uuid: holder.id, name: `Hal ${holder.last_name}` },
      subscriber_id: "W123456789",
      effective_date: "2025-01-01",
      termination_date: "2025-12-31",
      notes: "Card on file",
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["insurance_subscription.created"]);
    const mine = events.slice(before);
    expect(mine.map((e) => [e.type, e.practice_id, e.data])).toEqual([
      ["insurance_subscription.created", location.id, { id: r.body.id, plan_id: plan.id, subscriber_patient_id: holder.id }],
    ]);
    expect(JSON.stringify(mine)).not.toContain("W123456789");
    expect((await t.request("GET", sub(r.body.id), { token: reader })).body).toEqual(r.body);
  });

  test("201 with only the plan and subscriber: open-ended dates; a plan without a name is named by its group", async () => {
    const r = await subscribe({ plan_uuid: otherPlan.id });
    expect(r).toMatchObject({ plan: { uuid: otherPlan.id, name: "Globex" }, subscriber_id: null, effective_date: null, termination_date: null, notes: null });
    // a one-day subscription is fine
    expect((await subscribe({ effective_date: "2025-03-01", termination_date: "2025-03-01" })).termination_date).toBe("2025-03-01");
  });

  test("404 when the plan or the subscriber is missing, archived or another org's; nothing is written", async () => {
    const gonePlan = await created(t, admin, `${P()}/plans`, { carrier_uuid: carrier.id });
    await t.request("POST", `${P()}/plans/${gonePlan.id}/archive?base_version=1`, { token: admin });
    const gone = await patient("Gone");
    await t.request("POST", `/api/v1/${orgA}/patients/${gone.id}/archive`, { token: admin });
    const foreign = await patient("Far", orgB);
    const n = await count();
    const cases: [Record<string, unknown>, string][] = [
      [{ plan_uuid: MISSING }, "Insurance plan not found"],
      [{ plan_uuid: gonePlan.id }, "Insurance plan not found"],
      [{ plan_uuid: foreignPlan.id }, "Insurance plan not found"],
      [{ subscriber_patient_uuid: MISSING }, "Subscriber patient not found"],
      [{ subscriber_patient_uuid: gone.id }, "Subscriber patient not found"],
      [{ subscriber_patient_uuid: foreign.id }, "Subscriber patient not found"],
    ];
    for (const [extra, detail] of cases) {
      const r = await t.request("POST", subs(), { token: admin, body: { plan_uuid: plan.id, subscriber_patient_uuid: holder.id, ...extra } });
      expect([JSON.stringify(extra), r.status, r.body]).toEqual([JSON.stringify(extra), 404, { detail, code: "not_found" }]);
    }
    expect(await count()).toBe(n);
  });

  test("422 termination_before_effective, bad dates and fields; nothing is written", async () => {
    const n = await count();
    const ok = { plan_uuid: plan.id, subscriber_patient_uuid: holder.id };
    const order = await t.request("POST", subs(), { token: admin, body: { ...ok, effective_date: "2025-06-01", termination_date: "2025-05-31" } });
    expect(order.status).toBe(422);
    expect(order.body).toEqual({
      code: "termination_before_effective",
      detail: [{ loc: ["body", "termination_date"], msg: "Must not be before effective_date", type: "value_error" }],
    });
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ subscriber_patient_uuid: holder.id }, ["body", "plan_uuid"], "missing"],
      [{ plan_uuid: plan.id }, ["body", "subscriber_patient_uuid"], "missing"],
      [{ ...ok, effective_date: "2025-02-30" }, ["body", "effective_date"], "format"],
      [{ ...ok, termination_date: "12/31/2025" }, ["body", "termination_date"], "format"],
      [{ ...ok, subscriber_id: "  " }, ["body", "subscriber_id"], "out_of_range"],
      [{ ...ok, subscriber_id: "x".repeat(51) }, ["body", "subscriber_id"], "out_of_range"],
      [{ ...ok, plan: { uuid: plan.id } }, ["body", "plan"], "read_only"],
      [{ ...ok, version: 1 }, ["body", "version"], "read_only"],
      [{ ...ok, member_id: "x" }, ["body", "member_id"], "extra_forbidden"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await t.request("POST", subs(), { token: admin, body });
      expect([JSON.stringify(body), r.status, r.body.detail[0]]).toEqual([JSON.stringify(body), 422, { loc, msg: expect.any(String), type }]);
    }
    expect(await count()).toBe(n);
  });

  test("401, 403 without insurance.write, 404 for a non-member org; nothing is written", async () => {
    const n = await count();
    const body = { plan_uuid: plan.id, subscriber_patient_uuid: holder.id };
    expect((await t.request("POST", subs(), { body })).status).toBe(401);
    expect((await t.request("POST", subs(), { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", subs(), { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", subs(orgB), { token: reader, body })).status).toBe(404);
    expect(await count()).toBe(n);
  });
});

describe("GET /insurance/subscriptions", () => {
  test("paged in creation order; filters subscriber_patient_uuid and plan_uuid; archived left out", async () => {
    const spouse = await patient("Sue");
    const a = await subscribe({ subscriber_patient_uuid: spouse.id });
    const b = await subscribe({ subscriber_patient_uuid: spouse.id, plan_uuid: otherPlan.id });
    const c = await subscribe({ subscriber_patient_uuid: spouse.id });
    await t.request("POST", `${sub(c.id)}/archive?base_version=1`, { token: admin });
    const list = async (qs: string) => (await t.request("GET", `${subs()}?${qs}`, { token: reader })).body;
    expect(await list(`subscriber_patient_uuid=${spouse.id}`)).toEqual({ items: [a, b], page: 1, page_size: 50, total: 2 });
    expect((await list(`subscriber_patient_uuid=${spouse.id}&plan_uuid=${otherPlan.id}`)).items).toEqual([b]);
    expect((await list(`subscriber_patient_uuid=${spouse.id}&page=2&page_size=1`)).items).toEqual([b]);
    expect((await list(`plan_uuid=${MISSING}`)).total).toBe(0);
  });

  test("422 on bad parameters; 401; 403 without insurance.read; 404 for a non-member org", async () => {
    for (const qs of ["page=0", "page_size=500", "plan_uuid=1", "subscriber=1"]) {
      const r = await t.request("GET", `${subs()}?${qs}`, { token: reader });
      expect([qs, r.status]).toEqual([qs, 422]);
    }
    expect((await t.request("GET", subs())).status).toBe(401);
    expect((await t.request("GET", subs(), { token: outsider })).status).toBe(403);
    expect((await t.request("GET", subs(orgB), { token: reader })).status).toBe(404);
  });
});

describe("GET /insurance/subscriptions/{subscription_uuid}", () => {
  test("200 with ETag; 404 missing, archived or another org's; 401; 403", async () => {
    const s = await subscribe();
    const r = await t.request("GET", sub(s.id), { token: reader });
    expect([r.status, r.headers.get("etag"), r.body]).toEqual([200, '"1"', s]);
    const gone = await subscribe();
    await t.request("POST", `${sub(gone.id)}/archive?base_version=1`, { token: admin });
    const foreign = await created(t, admin, subs(orgB), { plan_uuid: foreignPlan.id, subscriber_patient_uuid: (await patient("F", orgB)).id });
    for (const id of [MISSING, gone.id, foreign.id]) {
      const m = await t.request("GET", sub(id), { token: reader });
      expect([m.status, m.body]).toEqual([404, { detail: "Subscription not found", code: "not_found" }]);
    }
    expect((await t.request("GET", sub(s.id))).status).toBe(401);
    expect((await t.request("GET", sub(s.id), { token: outsider })).status).toBe(403);
    expect((await t.request("GET", sub(s.id, orgB), { token: reader })).status).toBe(404);
  });
});

describe("PATCH /insurance/subscriptions/{subscription_uuid}", () => {
  test("200: dates, member id and plan change; updated event names API fields; a coverage change for everyone on the card and both plans", async () => {
    const s = await subscribe({ subscriber_id: "A1" });
    const kid = await patient("Kid");
    const self = await created(t, admin, `${P()}/patient-plans`, { patient_uuid: holder.id, subscription_uuid: s.id });
    const child = await created(t, admin, `${P()}/patient-plans`, { patient_uuid: kid.id, subscription_uuid: s.id, relationship: "child" });
    const before = events.length;
    const r = await t.request("PATCH", sub(s.id), {
      token: admin,
      body: { base_version: 1, plan_uuid: otherPlan.id, subscriber_id: "B2", termination_date: "2030-01-31" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...s,
      plan: { uuid: otherPlan.id, name: "Globex" },
      subscriber_id: "B2",
      termination_date: "2030-01-31",
      version: 2,
      updated_at: expect.any(String),
    });
    const updated = eventsOf(events.slice(before), "insurance_subscription.updated");
    expect(updated.map((e) => [e.practice_id, e.data.changed_fields])).toEqual([[location.id, ["plan", "subscriber_id", "termination_date"]]]);
    expect(coverageChanges(events, before).map((e) => e.data)).toEqual([{ patient_ids: [holder.id, kid.id], plan_ids: [plan.id, otherPlan.id] }]);
    // the patient plans now show the new plan
    expect((await t.request("GET", `${P()}/patient-plans/${child.id}`, { token: reader })).body.plan).toEqual({ uuid: otherPlan.id, name: "Globex" });
    expect((await t.request("GET", `${P()}/patient-plans/${self.id}`, { token: reader })).body.subscription).toEqual({ uuid: s.id, name: "B2" });
  });

  test("422 for dates out of order judged with the stored ones, for the subscriber (read-only) and bad fields; 404 plan; 409 stale; nothing changes", async () => {
    const s = await subscribe({ effective_date: "2025-01-01" });
    const order = await t.request("PATCH", sub(s.id), { token: admin, body: { base_version: 1, termination_date: "2024-12-31" } });
    expect([order.status, order.body.code, order.body.detail[0].loc]).toEqual([422, "termination_before_effective", ["body", "termination_date"]]);
    for (const [body, loc, type] of [
      [{ base_version: 1, subscriber_patient_uuid: holder.id }, ["body", "subscriber_patient_uuid"], "read_only"],
      [{ base_version: 1, subscriber: null }, ["body", "subscriber"], "read_only"],
      [{ subscriber_id: "x" }, ["body", "base_version"], "missing"],
      [{ base_version: 1, effective_date: "yesterday" }, ["body", "effective_date"], "format"],
    ] as const) {
      const r = await t.request("PATCH", sub(s.id), { token: admin, body });
      expect([r.status, r.body.detail[0]]).toEqual([422, { loc, msg: expect.any(String), type }]);
    }
    const gonePlan = await t.request("PATCH", sub(s.id), { token: admin, body: { base_version: 1, plan_uuid: foreignPlan.id } });
    expect([gonePlan.status, gonePlan.body.detail]).toEqual([404, "Insurance plan not found"]);
    const stale = await t.request("PATCH", sub(s.id), { token: admin, body: { base_version: 2, subscriber_id: "x" } });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect(await storedRow(t, orgA, insuranceSubscriptions, s.id)).toMatchObject({ version: 1, plan_id: plan.id, termination_date: null, subscriber_id: null });
  });

  test("404 missing or another org's; 401; 403 without insurance.write; 404 for a non-member org", async () => {
    const s = await subscribe();
    const body = { base_version: 1, subscriber_id: "Z" };
    expect((await t.request("PATCH", sub(MISSING), { token: admin, body })).status).toBe(404);
    const foreign = await created(t, admin, subs(orgB), { plan_uuid: foreignPlan.id, subscriber_patient_uuid: (await patient("F", orgB)).id });
    expect((await t.request("PATCH", sub(foreign.id), { token: admin, body })).status).toBe(404);
    expect((await t.request("PATCH", sub(s.id), { body })).status).toBe(401);
    expect((await t.request("PATCH", sub(s.id), { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", sub(s.id, orgB), { token: reader, body })).status).toBe(404);
    expect((await storedRow(t, orgA, insuranceSubscriptions, s.id)).version).toBe(1);
  });
});

describe("POST /insurance/subscriptions/{subscription_uuid}/archive", () => {
  test("200: the card's patient plans (active or not) are archived with it, each with its event; a coverage change for them; then 404", async () => {
    const s = await subscribe();
    const kid = await patient("Kid");
    const self = await created(t, admin, `${P()}/patient-plans`, { patient_uuid: holder.id, subscription_uuid: s.id, ordinal: 3 });
    const child = await created(t, admin, `${P()}/patient-plans`, { patient_uuid: kid.id, subscription_uuid: s.id, relationship: "child", is_active: false });
    const before = events.length;
    const r = await t.request("POST", `${sub(s.id)}/archive?base_version=1`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...s, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    const mine = events.slice(before);
    expect(mine.map((e) => [e.type, e.resource_id, e.data.patient_id ?? null])).toEqual([
      ["patient_plan.archived", self.id, holder.id],
      ["patient_plan.archived", child.id, kid.id],
      ["insurance_subscription.archived", s.id, null],
      ["insurance.coverage_changed", holder.id, null],
    ]);
    expect(mine[3]!.data).toEqual({ patient_ids: [holder.id, kid.id], plan_ids: [plan.id] });
    for (const id of [self.id, child.id]) {
      expect((await storedRow(t, orgA, patientPlans, id)).deleted_at).toBe(r.body.deleted_at);
      expect((await auditOf(t, orgA, id)).map((a) => a.action)).toEqual(["patient_plan.created", "patient_plan.archived"]);
    }
    expect((await auditOf(t, orgA, s.id)).map((a) => a.action)).toEqual(["insurance_subscription.created", "insurance_subscription.archived"]);
    expect((await t.request("GET", sub(s.id), { token: reader })).status).toBe(404);
    expect((await t.request("POST", `${sub(s.id)}/archive?base_version=2`, { token: admin })).status).toBe(404);
  });

  test("409 stale, 422 without base_version, 404 missing, 401, 403; nothing changes", async () => {
    const s = await subscribe();
    const pp = await created(t, admin, `${P()}/patient-plans`, { patient_uuid: holder.id, subscription_uuid: s.id, is_active: false });
    const stale = await t.request("POST", `${sub(s.id)}/archive?base_version=3`, { token: admin });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect((await t.request("POST", `${sub(s.id)}/archive`, { token: admin })).status).toBe(422);
    expect((await t.request("POST", `${sub(MISSING)}/archive?base_version=1`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${sub(s.id)}/archive?base_version=1`)).status).toBe(401);
    expect((await t.request("POST", `${sub(s.id)}/archive?base_version=1`, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${sub(s.id, orgB)}/archive?base_version=1`, { token: reader })).status).toBe(404);
    expect((await storedRow(t, orgA, insuranceSubscriptions, s.id)).deleted_at).toBeNull();
    expect((await storedRow(t, orgA, patientPlans, pp.id)).deleted_at).toBeNull();
  });
});
