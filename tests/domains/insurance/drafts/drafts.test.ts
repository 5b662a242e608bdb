import { IMPORT_BODY_BOUNDS } from "@/domains/insurance/drafts/routes";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { insuranceDrafts, insuranceSubscriptions, patientPlans } from "@db/tenant/insurance";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, busDrained, createMember, expectGuarded, twoOrgApp, type TestApp } from "@tests/helpers";
import { storedRow, storedRows } from "@tests/domains/insurance/plans/fixtures";
import { carrier, created, draftRows, generatedRow, insurancePath, MISSING, patient, plan, runMatchJob } from "./fixtures";

// The drafts endpoints over HTTP. The app runs without a queue: the matching job's handler is run
// directly where a worker would (drafts-job.test.ts runs it through pg-boss).

let t: TestApp;
let admin: string;
let reader: string;
let orgA: string;
let orgB: string;
let A: string;
let events: EventEnvelope[];
let location: any;
let dana: any; // the patient of the main import, her own subscriber
let sam: any; // her spouse, a subscriber
let kid: any; // their child
const people: Record<string, any> = {};
const carriers: Record<string, any> = {};
const plans: Record<string, any> = {};
let foreignPatient: any;

const drafts = (org = orgA) => `${insurancePath(org)}/drafts`;
const draft = (id: string, org = orgA) => `${drafts(org)}/${id}`;
const importRows = (patientId: string, rows: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  created(t, admin, `${drafts()}/import`, { patient_uuid: patientId, rows, ...extra });
const get = async (id: string) => (await t.request("GET", draft(id), { token: admin })).body;
const stored = (id: string) => storedRow(t, orgA, insuranceDrafts, id);
const eventsSince = async (from: number) => {
  await busDrained(t.rt.bus);
  return events.slice(from);
};
/** Import the rows and run the matching job: the drafts as matched, in row order. */
async function imported(patientId: string, rows: Record<string, unknown>[]) {
  const r = await importRows(patientId, rows);
  await runMatchJob(t, orgA, r.import_id, patientId);
  return Promise.all(r.drafts.items.map((d: any) => get(d.id)));
}

beforeAll(async () => {
  const w = await twoOrgApp({ reader: ["insurance.read"] }, { events: true });
  ({ t, admin, orgA, orgB, pathA: A, events } = w);
  reader = w.tokens.reader;
  location = await created(t, admin, `${A}/locations`, { name: "Downtown", timezone: "America/Chicago" });
  dana = await patient(t, admin, orgA, "Dana", "Reyes", "1985-03-02", { location_uuid: location.id });
  sam = await patient(t, admin, orgA, "Sam", "Reyes", "1983-07-19", { location_uuid: location.id });
  kid = await patient(t, admin, orgA, "Kim", "Reyes", "2015-05-05", { location_uuid: location.id });
  people.twin1 = await patient(t, admin, orgA, "Chris", "Lee", "1990-01-01");
  people.twin2 = await patient(t, admin, orgA, "Chris", "Lee", "1990-01-01");
  people.near = await patient(t, admin, orgA, "Jo", "Park", "1970-10-10");
  carriers.delta = await carrier(t, admin, orgA, "Delta Dental of California", "94276");
  carriers.aetna = await carrier(t, admin, orgA, "Aetna Dental", "60054");
  carriers.guardian1 = await carrier(t, admin, orgA, "Guardian");
  carriers.guardian2 = await carrier(t, admin, orgA, "Guardian");
  carriers.cigna = await carrier(t, admin, orgA, "Cigna Dental PPO");
  carriers.uc1 = await carrier(t, admin, orgA, "United Concordia", "CX014");
  carriers.uc2 = await carrier(t, admin, orgA, "UC Dental", "CX014");
  plans.delta100 = await plan(t, admin, orgA, carriers.delta.id, { plan_name: "Acme PPO", group_number: "G-100", group_name: "Acme Corp" });
  plans.delta200 = await plan(t, admin, orgA, carriers.delta.id, { group_number: "G-200", group_name: "Globex" });
  plans.aetna100 = await plan(t, admin, orgA, carriers.aetna.id, { plan_name: "Aetna Acme", group_number: "G-100" });
  plans.guardian = await plan(t, admin, orgA, carriers.guardian1.id, { group_number: "GU-1" });
  plans.uc = await plan(t, admin, orgA, carriers.uc2.id, { group_number: "U-1" });
  foreignPatient = await patient(t, admin, orgB, "Dana", "Reyes", "1985-03-02");
});
afterAll(() => t.close());

describe("POST /insurance/drafts/import", () => {
  test("201: one pending, unattempted draft per row in row order, one audit entry and one event for the import; the raw rows kept as sent", async () => {
    const before = events.length;
    const rows = [
      { carrier_name: "Delta Dental of California", group_number: "G-100", source_ref: "row-1", note: "kept as sent" },
      { carrier_name: "Aetna Dental", extra: { nested: [1, 2] } },
      { payer_id: 60054, Source_Ref: 17 },
    ];
    const r = await t.request("POST", `${drafts()}/import`, {
      token: admin,
      body: { patient_uuid: dana.id.toUpperCase(), rows, source_system: " Clearinghouse X " },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      import_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      draft_count: 3,
      drafts: { items: expect.any(Array), page: 1, page_size: 50, total: 3 },
    });
    const items = r.body.drafts.items;
    expect(items.map((d: any) => d.raw_data_json)).toEqual(rows);
    expect(items[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      patient: { uuid: dana.id, name: "Dana Reyes" },
      subscriber_patient: null,
      matched_carrier: null,
      matched_plan: null,
      converted_subscription: null,
      converted_patient_plan: null,
      raw_data_json: rows[0],
      review_status: "pending",
      match_attempted: false,
      conversion_error: null,
      reject_reason: null,
      reviewed_at: null,
      reviewed_by_user_uuid: null,
      source_ref: "row-1",
      source_system: "Clearinghouse X",
      import_id: r.body.import_id,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(items.map((d: any) => d.source_ref)).toEqual(["row-1", null, "17"]);
    expect(items.map((d: any) => d.id)).toEqual([...items.map((d: any) => d.id)].sort());
    expect((await draftRows(t, orgA, r.body.import_id)).map((d) => d.id)).toEqual(items.map((d: any) => d.id));
    // the import is one audit entry (by import id); the drafts carry the import id
    const trail = await auditOf(t, orgA, r.body.import_id);
    expect(trail.map((a: any) => [a.action, a.resource_type, a.after])).toEqual([
      [
        "insurance_draft_import.created",
        "insurance_draft_import",
        { import_id: r.body.import_id, patient_id: dana.id, source_system: "Clearinghouse X", draft_count: 3 },
      ],
    ]);
    const mine = await eventsSince(before);
    expect(mine.map((e) => [e.type, e.resource_type, e.resource_id, e.practice_id, e.data])).toEqual([
      [
        "insurance_draft_import.created",
        "insurance_draft_import",
        r.body.import_id,
        location.id,
        { import_id: r.body.import_id, draft_count: 3, patient_id: dana.id },
      ],
    ]);
    // GET /drafts?import_id= answers the same first page
    const listed = await t.request("GET", `${drafts()}?import_id=${r.body.import_id}`, { token: reader });
    expect(listed.body).toEqual(r.body.drafts);
  });

  test("the answer is the first page of 50; the rest come from the list", async () => {
    const rows = Array.from({ length: 120 }, (_, i) => ({ carrier_name: "Nobody", source_ref: `r${i}` }));
    const r = await importRows(kid.id, rows);
    expect(r.draft_count).toBe(120);
    expect(r.drafts.total).toBe(120);
    expect(r.drafts.items.map((d: any) => d.source_ref)).toEqual(rows.slice(0, 50).map((x) => x.source_ref));
    const page3 = await t.request("GET", `${drafts()}?import_id=${r.import_id}&page=3`, { token: reader });
    expect(page3.body.items.map((d: any) => d.source_ref)).toEqual(rows.slice(100).map((x) => x.source_ref));
  });

  test("404 when the patient is missing or another org's; 422 patient_archived; nothing stored", async () => {
    const count = (await storedRows(t, orgA, insuranceDrafts)).length;
    for (const id of [MISSING, foreignPatient.id]) {
      const r = await t.request("POST", `${drafts()}/import`, { token: admin, body: { patient_uuid: id, rows: [{ carrier_name: "Aetna Dental" }] } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Patient not found", code: "not_found" });
    }
    const gone = await patient(t, admin, orgA, "Gone", "Away");
    expect((await t.request("POST", `${A}/patients/${gone.id}/archive`, { token: admin })).status).toBe(200);
    const archived = await t.request("POST", `${drafts()}/import`, { token: admin, body: { patient_uuid: gone.id, rows: [{ carrier_name: "Aetna Dental" }] } });
    expect(archived.status).toBe(422);
    expect(archived.body.code).toBe("patient_archived");
    expect((await storedRows(t, orgA, insuranceDrafts)).length).toBe(count);
  });

  test("422 on the body's shape", async () => {
    const cases: [unknown, unknown[], string][] = [
      [{ rows: [{ a: 1 }] }, ["body", "patient_uuid"], "missing"],
      [{ patient_uuid: dana.id }, ["body", "rows"], "missing"],
      [{ patient_uuid: dana.id, rows: [] }, ["body", "rows"], "out_of_range"],
      [{ patient_uuid: dana.id, rows: ["text"] }, ["body", "rows", 0], "type_error"],
      [{ patient_uuid: dana.id, rows: [[1]] }, ["body", "rows", 0], "type_error"],
      [{ patient_uuid: dana.id, rows: [Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]))] }, ["body", "rows", 0], "value_error"],
      [{ patient_uuid: dana.id, rows: [{ a: 1 }], source_system: "" }, ["body", "source_system"], "out_of_range"],
      [{ patient_uuid: dana.id, rows: [{ a: 1 }], status: "matched" }, ["body", "status"], "extra_forbidden"],
    ];
    const count = (await storedRows(t, orgA, insuranceDrafts)).length;
    for (const [body, loc, type] of cases) {
      const r = await t.request("POST", `${drafts()}/import`, { token: admin, body });
      expect({ body, status: r.status, first: r.body.detail?.[0] }).toEqual({ body, status: 422, first: { loc, msg: expect.any(String), type } });
    }
    expect((await storedRows(t, orgA, insuranceDrafts)).length).toBe(count);
  });

  test("more than 10,000 rows is 422", async () => {
    const r = await t.request("POST", `${drafts()}/import`, {
      token: admin,
      body: { patient_uuid: dana.id, rows: Array.from({ length: 10_001 }, () => ({})) },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["body", "rows"], type: "out_of_range" });
  });

  test("the import route has its own body bounds: 10,000 realistic rows fit under the default settings; other routes keep the defaults", async () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => generatedRow(i, { first: "Dana", last: "Reyes", dob: "1985-03-02" }));
    const body = { patient_uuid: kid.id, rows: rows(10_000) };
    expect(JSON.stringify(body).length).toBeGreaterThan(1024 * 1024); // above the default 1 MiB
    const big = await t.request("POST", `${drafts()}/import`, { token: admin, body });
    expect(big.status).toBe(201);
    expect(big.body.draft_count).toBe(10_000);
    // the same size elsewhere is still 413
    const elsewhere = await t.request("POST", `/api/v1/${orgA}/locations`, {
      token: admin,
      rawBody: JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) }),
      headers: { "content-type": "application/json" },
    });
    expect(elsewhere.status).toBe(413);
    // and beyond the route's own bound the import is 413 too
    const huge = await t.request("POST", `${drafts()}/import`, {
      token: admin,
      rawBody: JSON.stringify({ patient_uuid: kid.id, rows: [{ notes: "x".repeat(IMPORT_BODY_BOUNDS.bytes) }] }),
      headers: { "content-type": "application/json" },
    });
    expect(huge.status).toBe(413);
  });

  test("401, 403 without insurance.write, 404 for another org's member", async () => {
    await expectGuarded(t, orgA, orgB, "POST", `${drafts()}/import`, "insurance.write", { patient_uuid: dana.id, rows: [{}] });
  });
});

describe("matching (the insurance.drafts-match job)", () => {
  let d: any[];
  const rows: Record<string, unknown>[] = [
    // 0 matched: carrier by electronic id, plan by group number (any case), no subscriber given: the patient's own card
    { carrier_name: "Delta Dental", payer_id: "94276", group_number: "g-100", member_id: "W1", effective_date: "2025-01-01" },
    // 1 matched: electronic id alone, subscriber by names (any case) and date of birth (US format), the spouse
    {
      "Payer ID": "60054",
      "Group Number": "G-100",
      subscriber_first_name: "sam",
      subscriber_last_name: "REYES",
      subscriber_dob: "07/19/1983",
      relationship: "Husband",
      member_id: "A77",
    },
    // 2 pending: two carriers named Guardian
    { carrier_name: "guardian", group_number: "GU-1" },
    // 3 pending: no carrier of that name; one whose name contains it is offered
    { carrier_name: "Cigna Dental", group_number: "C-1" },
    // 4 pending: the carrier's plans offered when the group number is unknown
    { electronic_id: "94276", group_number: "G-999", relationship: "self" },
    // 5 pending: two patients with the subscriber's names and date of birth
    {
      carrier_name: "Aetna Dental",
      group_number: "G-100",
      subscriber_first_name: "Chris",
      subscriber_last_name: "Lee",
      subscriber_date_of_birth: "1990-01-01",
      relationship: "other",
    },
    // 6 error: neither carrier name nor electronic id
    { group_number: "G-100" },
    // 7 error: not a real date
    { carrier_name: "Aetna Dental", subscriber_date_of_birth: "1983-02-30" },
    // 8 error: the subscriber found is the patient, but the relationship says child
    {
      carrier_name: "Aetna Dental",
      group_number: "G-100",
      subscriber_first_name: "Dana",
      subscriber_last_name: "Reyes",
      subscriber_date_of_birth: "1985-03-02",
      relationship: "child",
    },
    // 9 error: another subscriber found and no relationship
    {
      carrier_name: "Aetna Dental",
      group_number: "G-100",
      subscriber_first_name: "Sam",
      subscriber_last_name: "Reyes",
      subscriber_date_of_birth: "1983-07-19",
    },
    // 10 pending: an electronic id two carriers share, the name neither's
    { carrier_name: "Concordia", payer_id: "CX014", group_number: "U-1" },
    // 11 matched: the shared electronic id and the name pick one
    { carrier_name: "uc dental", payer_id: "CX014", group_number: "U-1" },
    // 12 pending: no carrier, but the group number names a plan: plan and its carrier offered
    { carrier_name: "Unknown Insurer", group_number: "g-200" },
    // 13 pending: the subscriber not found; near people offered (same birth date, one name in common)
    {
      carrier_name: "Aetna Dental",
      group_number: "G-100",
      subscriber_first_name: "Joe",
      subscriber_last_name: "Park",
      subscriber_date_of_birth: "1970-10-10",
      relationship: "spouse",
    },
    // 14 error: termination before effective date; a value that is not text
    { carrier_name: { name: "Aetna" }, effective_date: "2025-06-01", termination_date: "2025-01-01" },
    // 15 pending: relationship self but the names are not the patient's: the patient offered
    { carrier_name: "Aetna Dental", group_number: "G-100", subscriber_first_name: "Danielle", subscriber_last_name: "Reyes", relationship: "self" },
    // 16 pending: names without a date of birth are never enough; the patients with those names are offered
    { carrier_name: "Aetna Dental", group_number: "G-100", subscriber_first_name: "sam", subscriber_last_name: "reyes", relationship: "spouse" },
  ];

  beforeAll(async () => {
    d = await imported(dana.id, rows);
  });

  const summary = (x: any) => ({
    status: x.draft.review_status,
    carrier: x.draft.matched_carrier?.uuid ?? null,
    plan: x.draft.matched_plan?.uuid ?? null,
    subscriber: x.draft.subscriber_patient?.uuid ?? null,
    error: x.draft.conversion_error,
  });
  const offered = (list: any[]) => list.map((c) => [c.uuid, c.reason]);

  test("every draft attempted, version 2, one matched audit entry each by the system actor with the request id", async () => {
    for (const x of d) {
      expect(x.draft).toMatchObject({ match_attempted: true, version: 2 });
      const trail = await auditOf(t, orgA, x.draft.id);
      expect(trail.map((a: any) => [a.action, a.actor_id, a.actor_type, a.request_id])).toEqual([
        ["insurance_draft.matched", "system:insurance.drafts-match", "system", "req-drafts-test"],
      ]);
      expect(trail[0].after).not.toHaveProperty("raw_data_json");
    }
  });

  test("matched: carrier by electronic id then name, plan by group number, subscriber by names and date of birth", async () => {
    expect(summary(d[0])).toEqual({ status: "matched", carrier: carriers.delta.id, plan: plans.delta100.id, subscriber: dana.id, error: null });
    expect(d[0].draft.matched_carrier.name).toBe("Delta Dental of California");
    expect(d[0].draft.matched_plan.name).toBe("Acme PPO");
    expect(d[0].candidates).toEqual({ carriers: [], plans: [], patients: [] });
    expect(summary(d[1])).toEqual({ status: "matched", carrier: carriers.aetna.id, plan: plans.aetna100.id, subscriber: sam.id, error: null });
    expect(summary(d[11])).toEqual({ status: "matched", carrier: carriers.uc2.id, plan: plans.uc.id, subscriber: dana.id, error: null });
  });

  test("pending with candidates, each with its reason", async () => {
    expect(summary(d[2])).toEqual({ status: "pending", carrier: null, plan: null, subscriber: dana.id, error: null });
    expect(offered(d[2].candidates.carriers)).toEqual([
      [carriers.guardian1.id, "name"],
      [carriers.guardian2.id, "name"],
    ]);
    expect(d[2].candidates.carriers[0].name).toBe("Guardian");
    expect(offered(d[2].candidates.plans)).toEqual([[plans.guardian.id, "group_number"]]);

    expect(offered(d[3].candidates.carriers)).toEqual([[carriers.cigna.id, "similar_name"]]);
    expect(d[3].draft.review_status).toBe("pending");

    expect(summary(d[4])).toEqual({ status: "pending", carrier: carriers.delta.id, plan: null, subscriber: dana.id, error: null });
    expect(offered(d[4].candidates.plans)).toEqual([
      [plans.delta100.id, "carrier_plan"],
      [plans.delta200.id, "carrier_plan"],
    ]);

    expect(summary(d[5])).toEqual({ status: "pending", carrier: carriers.aetna.id, plan: plans.aetna100.id, subscriber: null, error: null });
    expect(d[5].candidates.patients).toEqual([
      { uuid: people.twin1.id, name: "Chris Lee", reason: "name_and_date_of_birth" },
      { uuid: people.twin2.id, name: "Chris Lee", reason: "name_and_date_of_birth" },
    ]);

    expect(offered(d[10].candidates.carriers)).toEqual([
      [carriers.uc2.id, "electronic_id"],
      [carriers.uc1.id, "electronic_id"],
    ]);
    expect(offered(d[12].candidates.plans)).toEqual([[plans.delta200.id, "group_number"]]);
    expect(offered(d[12].candidates.carriers)).toEqual([[carriers.delta.id, "plan_group_number"]]);
    expect(summary(d[13])).toMatchObject({ status: "pending", subscriber: null });
    expect(offered(d[13].candidates.patients)).toEqual([[people.near.id, "date_of_birth"]]);
    expect(summary(d[15])).toMatchObject({ status: "pending", subscriber: null });
    expect(offered(d[15].candidates.patients)).toEqual([[dana.id, "relationship_self"]]);
    expect(summary(d[16])).toMatchObject({ status: "pending", carrier: carriers.aetna.id, plan: plans.aetna100.id, subscriber: null });
    expect(offered(d[16].candidates.patients)).toEqual([[sam.id, "name"]]);
  });

  test("error when the row is unusable, conversion_error saying why", async () => {
    expect(summary(d[6])).toEqual({ status: "error", carrier: null, plan: null, subscriber: null, error: "carrier_name or electronic_id is required" });
    expect(d[7].draft.conversion_error).toBe("subscriber_date_of_birth is not a valid date (YYYY-MM-DD or MM/DD/YYYY)");
    expect(summary(d[8])).toMatchObject({ status: "error", subscriber: dana.id, error: "relationship is child but the subscriber is the patient" });
    expect(summary(d[9])).toMatchObject({ status: "error", subscriber: sam.id, error: "relationship is required when the subscriber is not the patient" });
    expect(d[14].draft.conversion_error).toBe("carrier_name must be text; termination_date is before effective_date");
  });

  test("events: one insurance_draft.matched per draft (ids and status only), then the import's outcome once", async () => {
    const before = events.length;
    const r = await importRows(dana.id, [rows[0]!, rows[2]!, rows[6]!]);
    await runMatchJob(t, orgA, r.import_id, dana.id);
    const mine = (await eventsSince(before)).filter((e) => e.type !== "insurance_draft_import.created");
    expect(mine.map((e) => [e.type, e.resource_id, e.practice_id, e.data])).toEqual([
      ...r.drafts.items.map((x: any, i: number) => [
        "insurance_draft.matched",
        x.id,
        location.id,
        {
          id: x.id,
          changed_fields: expect.arrayContaining(["match_attempted", "candidates"]),
          review_status: ["matched", "pending", "error"][i],
          import_id: r.import_id,
          patient_id: dana.id,
        },
      ]),
      [
        "insurance_draft_import.matched",
        r.import_id,
        location.id,
        { import_id: r.import_id, draft_count: 3, matched: 1, pending: 1, error: 1, converted: 0, rejected: 0, patient_id: dana.id },
      ],
    ]);
    expect(mine[0]!.data.changed_fields).toEqual(["subscriber_patient", "matched_carrier", "matched_plan", "review_status", "match_attempted", "candidates"]);
    const text = JSON.stringify(mine);
    for (const phi of ["Reyes", "Delta", "G-100", "W1", "1985"]) expect(text).not.toContain(phi);
  });
});

describe("GET /insurance/drafts", () => {
  let ids: string[];
  let other: any;
  beforeAll(async () => {
    other = await patient(t, admin, orgA, "Lis", "Tay", "1999-09-09");
    const x = await imported(other.id, [{ carrier_name: "Aetna Dental", group_number: "G-100" }, {}, { carrier_name: "Nobody" }]);
    ids = x.map((y) => y.draft.id);
  });

  test("filters by patient and review status, oldest first, paged", async () => {
    const all = await t.request("GET", `${drafts()}?patient_uuid=${other.id}`, { token: reader });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(all.body.items.map((x: any) => x.id)).toEqual(ids);
    const errors = await t.request("GET", `${drafts()}?patient_uuid=${other.id}&review_status=error`, { token: reader });
    expect(errors.body.items.map((x: any) => x.id)).toEqual([ids[1]]);
    const matched = await t.request("GET", `${drafts()}?patient_uuid=${other.id}&review_status=matched`, { token: reader });
    expect(matched.body.items.map((x: any) => [x.id, x.matched_carrier, x.subscriber_patient])).toEqual([
      [ids[0], { uuid: carriers.aetna.id, name: "Aetna Dental" }, { uuid: other.id, name: "Lis Tay" }],
    ]);
    const paged = await t.request("GET", `${drafts()}?patient_uuid=${other.id}&page=2&page_size=2`, { token: reader });
    expect(paged.body).toMatchObject({ page: 2, page_size: 2, total: 3 });
    expect(paged.body.items.map((x: any) => x.id)).toEqual([ids[2]]);
    const everyone = await t.request("GET", `${drafts()}?review_status=error&page_size=200`, { token: reader });
    expect(everyone.body.items.map((x: any) => x.id)).toContain(ids[1]);
    expect(everyone.body.items.every((x: any) => x.review_status === "error")).toBe(true);
  });

  test("404 for a missing patient; 422 on bad filters; another org sees none of these", async () => {
    expect((await t.request("GET", `${drafts()}?patient_uuid=${MISSING}`, { token: reader })).status).toBe(404);
    for (const q of ["review_status=done", "page_size=201", "page=0", "patient_id=" + other.id, "import_id=nope"]) {
      expect({ q, status: (await t.request("GET", `${drafts()}?${q}`, { token: reader })).status }).toEqual({ q, status: 422 });
    }
    const foreign = await t.request("GET", drafts(orgB), { token: admin });
    expect(foreign.body.total).toBe(0);
  });

  test("401, 403 without insurance.read, 404 for another org's member", async () => {
    await expectGuarded(t, orgA, orgB, "GET", drafts(), "insurance.read");
  });
});

describe("GET /insurance/drafts/{id}", () => {
  test("candidates and the draft; not yet attempted: empty candidates", async () => {
    const r = await importRows(dana.id, [{ carrier_name: "guardian" }]);
    const id = r.drafts.items[0].id;
    const fresh = await t.request("GET", draft(id), { token: reader });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toEqual({ candidates: { carriers: [], plans: [], patients: [] }, draft: r.drafts.items[0] });
    await runMatchJob(t, orgA, r.import_id, dana.id);
    const after = await t.request("GET", draft(id), { token: reader });
    expect(after.body.candidates.carriers.map((c: any) => c.uuid)).toEqual([carriers.guardian1.id, carriers.guardian2.id]);
    expect(after.body.draft).toMatchObject({ id, review_status: "pending", match_attempted: true, version: 2 });
  });

  test("404 when missing or another org's", async () => {
    const foreign = await created(t, admin, `${drafts(orgB)}/import`, { patient_uuid: foreignPatient.id, rows: [{ carrier_name: "X" }] });
    for (const id of [MISSING, foreign.drafts.items[0].id]) {
      const r = await t.request("GET", draft(id), { token: admin });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Insurance draft not found", code: "not_found" });
    }
  });

  test("401, 403 without insurance.read, 404 for another org's member", async () => {
    await expectGuarded(t, orgA, orgB, "GET", draft(MISSING), "insurance.read");
  });
});

describe("POST /insurance/drafts/{id}/reject", () => {
  test("200: rejected with the reason, when and by whom; audited; event without the reason; rejecting again replaces the reason", async () => {
    const [x] = await imported(dana.id, [{ carrier_name: "guardian" }]);
    const before = events.length;
    const member = await createMember(t, orgA, ["insurance.write"]);
    const r = await t.request("POST", `${draft(x.draft.id)}/reject`, { token: member.token, body: { reason: "  Duplicate of the card on file  " } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: x.draft.id,
      review_status: "rejected",
      reject_reason: "Duplicate of the card on file",
      reviewed_by_user_uuid: member.userId,
      reviewed_at: expect.stringMatching(/Z$/),
      version: 3,
    });
    expect((await auditOf(t, orgA, x.draft.id)).map((a: any) => a.action)).toEqual(["insurance_draft.matched", "insurance_draft.rejected"]);
    const mine = await eventsSince(before);
    expect(mine.map((e) => [e.type, e.resource_id, e.data.review_status])).toEqual([["insurance_draft.rejected", x.draft.id, "rejected"]]);
    expect(JSON.stringify(mine)).not.toContain("Duplicate");
    const again = await t.request("POST", `${draft(x.draft.id)}/reject`, { token: admin, body: { reason: "Wrong patient" } });
    expect(again.body).toMatchObject({ review_status: "rejected", reject_reason: "Wrong patient", version: 4 });
  });

  test("422 without a reason; 404 missing or another org's; nothing changed", async () => {
    const [x] = await imported(dana.id, [{ carrier_name: "guardian" }]);
    const before = await stored(x.draft.id);
    for (const body of [{}, { reason: "   " }, { reason: "x".repeat(2001) }, { reason: "ok", status: "x" }]) {
      expect({ body, status: (await t.request("POST", `${draft(x.draft.id)}/reject`, { token: admin, body })).status }).toEqual({ body, status: 422 });
    }
    const foreign = await created(t, admin, `${drafts(orgB)}/import`, { patient_uuid: foreignPatient.id, rows: [{ carrier_name: "X" }] });
    for (const id of [MISSING, foreign.drafts.items[0].id]) {
      expect((await t.request("POST", `${draft(id)}/reject`, { token: admin, body: { reason: "no" } })).status).toBe(404);
    }
    expect(await stored(x.draft.id)).toEqual(before);
  });

  test("401, 403 without insurance.write, 404 for another org's member", async () => {
    await expectGuarded(t, orgA, orgB, "POST", `${draft(MISSING)}/reject`, "insurance.write", { reason: "no" });
  });
});

describe("POST /insurance/drafts/{id}/rematch", () => {
  test("matches again at once: a pending draft becomes matched once the ambiguity is gone; audited; event", async () => {
    const extra = await carrier(t, admin, orgA, "Humana Dental");
    const twin = await carrier(t, admin, orgA, "Humana Dental");
    const hp = await plan(t, admin, orgA, extra.id, { group_number: "H-1" });
    const [x] = await imported(dana.id, [{ carrier_name: "Humana Dental", group_number: "H-1" }]);
    expect(x.draft.review_status).toBe("pending");
    expect((await t.request("POST", `${insurancePath(orgA)}/carriers/${twin.id}/archive?base_version=1`, { token: admin })).status).toBe(200);
    const before = events.length;
    const r = await t.request("POST", `${draft(x.draft.id)}/rematch`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      review_status: "matched",
      matched_carrier: { uuid: extra.id, name: "Humana Dental" },
      matched_plan: { uuid: hp.id },
      subscriber_patient: { uuid: dana.id },
      match_attempted: true,
      version: 3,
    });
    expect((await get(x.draft.id)).candidates).toEqual({ carriers: [], plans: [], patients: [] });
    expect((await auditOf(t, orgA, x.draft.id)).map((a: any) => [a.action, a.actor_type])).toEqual([
      ["insurance_draft.matched", "system"],
      ["insurance_draft.rematched", "user"],
    ]);
    const mine = await eventsSince(before);
    expect(mine.map((e) => [e.type, e.resource_id, e.data.review_status])).toEqual([["insurance_draft.rematched", x.draft.id, "matched"]]);
  });

  test("clears the carrier and plan matches when they no longer hold; reopens a rejected draft; runs on a draft not yet attempted", async () => {
    const c = await carrier(t, admin, orgA, "Principal Dental", "PR-1");
    const pl = await plan(t, admin, orgA, c.id, { group_number: "P-1" });
    const [x] = await imported(dana.id, [{ electronic_id: "PR-1", group_number: "P-1" }]);
    expect(x.draft.review_status).toBe("matched");
    await t.request("POST", `${draft(x.draft.id)}/reject`, { token: admin, body: { reason: "later" } });
    expect((await t.request("POST", `${insurancePath(orgA)}/plans/${pl.id}/archive?base_version=1`, { token: admin })).status).toBe(200);
    const r = await t.request("POST", `${draft(x.draft.id)}/rematch`, { token: admin });
    expect(r.body).toMatchObject({
      review_status: "pending",
      matched_carrier: { uuid: c.id },
      matched_plan: null,
      reject_reason: null,
      reviewed_at: null,
      reviewed_by_user_uuid: null,
    });
    const fresh = await importRows(dana.id, [{ electronic_id: "PR-1" }]);
    const now = await t.request("POST", `${draft(fresh.drafts.items[0].id)}/rematch`, { token: admin });
    expect(now.body).toMatchObject({ match_attempted: true, review_status: "pending", version: 2 });
    // the job later finds nothing left of that import
    expect(await runMatchJob(t, orgA, fresh.import_id, dana.id)).toMatchObject({ drafts_matched: 0 });
  });

  test("404 missing or another org's; 409 draft_converted once converted, nothing changed", async () => {
    const foreign = await created(t, admin, `${drafts(orgB)}/import`, { patient_uuid: foreignPatient.id, rows: [{ carrier_name: "X" }] });
    for (const id of [MISSING, foreign.drafts.items[0].id]) expect((await t.request("POST", `${draft(id)}/rematch`, { token: admin })).status).toBe(404);
    const [x] = await imported(kid.id, [{ payer_id: "94276", group_number: "G-200", member_id: "K-REMATCH" }]);
    expect((await t.request("POST", `${draft(x.draft.id)}/convert`, { token: admin })).status).toBe(200);
    const before = await stored(x.draft.id);
    const r = await t.request("POST", `${draft(x.draft.id)}/rematch`, { token: admin });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("draft_converted");
    expect(await stored(x.draft.id)).toEqual(before);
  });

  test("401, 403 without insurance.write, 404 for another org's member", async () => {
    await expectGuarded(t, orgA, orgB, "POST", `${draft(MISSING)}/rematch`, "insurance.write");
  });
});

describe("POST /insurance/drafts/{id}/convert", () => {
  test("200: the subscriber's subscription and the patient's plan at the next free ordinal; the draft converted; audited; events", async () => {
    const [self, spouse] = await imported(dana.id, [
      { payer_id: "94276", group_number: "G-100", member_id: "W-CONV", effective_date: "01/01/2025", termination_date: "2025-12-31" },
      {
        payer_id: "60054",
        group_number: "G-100",
        subscriber_first_name: "Sam",
        subscriber_last_name: "Reyes",
        subscriber_dob: "1983-07-19",
        relationship: "spouse",
        member_id: "A-CONV",
      },
    ]);
    const member = await createMember(t, orgA, ["insurance.write"]);
    const before = events.length;
    const r = await t.request("POST", `${draft(self.draft.id)}/convert`, { token: member.token });
    expect(r.status).toBe(200);
    expect(r.body.subscription).toMatchObject({
      plan: { uuid: plans.delta100.id, name: "Acme PPO" },
      carrier: { uuid: carriers.delta.id, name: "Delta Dental of California" },
      subscriber: { uuid: dana.id, name: "Dana Reyes" },
      subscriber_id: "W-CONV",
      effective_date: "2025-01-01",
      termination_date: "2025-12-31",
      version: 1,
    });
    expect(r.body.patient_plan).toMatchObject({
      patient: { uuid: dana.id },
      subscription: { uuid: r.body.subscription.id, name: "W-CONV" },
      relationship: "self",
      ordinal: 1,
      is_active: true,
    });
    expect(r.body.draft).toMatchObject({
      id: self.draft.id,
      review_status: "converted",
      converted_subscription: { uuid: r.body.subscription.id, name: "W-CONV" },
      converted_patient_plan: { uuid: r.body.patient_plan.id, name: null },
      reviewed_by_user_uuid: member.userId,
      reviewed_at: expect.stringMatching(/Z$/),
      version: 3,
    });
    expect((await auditOf(t, orgA, self.draft.id)).map((a: any) => a.action)).toEqual(["insurance_draft.matched", "insurance_draft.converted"]);
    expect((await auditOf(t, orgA, r.body.subscription.id)).map((a: any) => a.action)).toEqual(["insurance_subscription.created"]);
    expect((await auditOf(t, orgA, r.body.patient_plan.id)).map((a: any) => a.action)).toEqual(["patient_plan.created"]);
    const mine = await eventsSince(before);
    expect(mine.map((e) => [e.type, e.resource_id])).toEqual([
      ["insurance_subscription.created", r.body.subscription.id],
      ["patient_plan.created", r.body.patient_plan.id],
      ["insurance.coverage_changed", dana.id],
      ["insurance_draft.converted", self.draft.id],
    ]);
    expect(mine.at(-1)!.data).toEqual({
      id: self.draft.id,
      changed_fields: expect.arrayContaining(["review_status", "converted_subscription", "converted_patient_plan"]),
      review_status: "converted",
      subscription_id: r.body.subscription.id,
      patient_plan_id: r.body.patient_plan.id,
      patient_id: dana.id,
    });
    expect(JSON.stringify(mine)).not.toContain("W-CONV");

    // the spouse's card: Sam's subscription, Dana's second plan
    const second = await t.request("POST", `${draft(spouse.draft.id)}/convert`, { token: admin });
    expect(second.status).toBe(200);
    expect(second.body.subscription).toMatchObject({ subscriber: { uuid: sam.id }, plan: { uuid: plans.aetna100.id }, subscriber_id: "A-CONV" });
    expect(second.body.patient_plan).toMatchObject({ patient: { uuid: dana.id }, relationship: "spouse", ordinal: 2 });
  });

  test("a family's second draft reuses the subscriber's live card with the same member id", async () => {
    const row = {
      payer_id: "60054",
      group_number: "G-100",
      subscriber_first_name: "Sam",
      subscriber_last_name: "Reyes",
      subscriber_dob: "1983-07-19",
      member_id: "FAM-1",
    };
    const [forSam] = await imported(sam.id, [{ ...row, relationship: "self" }]);
    const [forKid] = await imported(kid.id, [{ ...row, relationship: "child", member_id: "fam-1" }]);
    const a = (await t.request("POST", `${draft(forSam.draft.id)}/convert`, { token: admin })).body;
    const subscriptions = (await storedRows(t, orgA, insuranceSubscriptions)).length;
    const b = await t.request("POST", `${draft(forKid.draft.id)}/convert`, { token: admin });
    expect(b.status).toBe(200);
    expect(b.body.subscription.id).toBe(a.subscription.id);
    expect(b.body.patient_plan).toMatchObject({ patient: { uuid: kid.id }, subscription: { uuid: a.subscription.id }, relationship: "child" });
    expect((await storedRows(t, orgA, insuranceSubscriptions)).length).toBe(subscriptions);
  });

  test("422 draft_not_matched for pending, error and rejected drafts; 409 draft_converted when converted; nothing changed", async () => {
    const [pending, error, rejected, matched] = await imported(kid.id, [
      { carrier_name: "guardian" },
      {},
      { payer_id: "94276", group_number: "G-100", member_id: "K-REJ" },
      { payer_id: "94276", group_number: "G-100", member_id: "K-TWICE" },
    ]);
    await t.request("POST", `${draft(rejected.draft.id)}/reject`, { token: admin, body: { reason: "no" } });
    const counts = async () => [(await storedRows(t, orgA, insuranceSubscriptions)).length, (await storedRows(t, orgA, patientPlans)).length];
    const before = await counts();
    for (const [x, status] of [
      [pending, "pending"],
      [error, "error"],
      [rejected, "rejected"],
    ] as const) {
      const snapshot = await stored(x.draft.id);
      const r = await t.request("POST", `${draft(x.draft.id)}/convert`, { token: admin });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({
        detail: [{ loc: ["path", "draft_uuid"], msg: `Only a matched draft can be converted; this one is ${status}`, type: "value_error" }],
        code: "draft_not_matched",
      });
      expect(await stored(x.draft.id)).toEqual(snapshot);
    }
    expect(await counts()).toEqual(before);
    expect((await t.request("POST", `${draft(matched.draft.id)}/convert`, { token: admin })).status).toBe(200);
    const converted = await stored(matched.draft.id);
    const after = await counts();
    const twice = await t.request("POST", `${draft(matched.draft.id)}/convert`, { token: admin });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe("draft_converted");
    const rejectConverted = await t.request("POST", `${draft(matched.draft.id)}/reject`, { token: admin, body: { reason: "x" } });
    expect(rejectConverted.status).toBe(409);
    expect(rejectConverted.body.code).toBe("draft_converted");
    expect(await stored(matched.draft.id)).toEqual(converted);
    expect(await counts()).toEqual(after);
  });

  test("422 draft_match_outdated when the matched plan was archived since; 409 ordinal_taken when the patient holds 1-4: nothing written", async () => {
    const c = await carrier(t, admin, orgA, "Metlife Dental", "ML-1");
    const pl = await plan(t, admin, orgA, c.id, { group_number: "M-1" });
    const full = await patient(t, admin, orgA, "Full", "House", "1960-06-06");
    const [stale, crowded] = await imported(full.id, [
      { payer_id: "ML-1", group_number: "M-1", member_id: "ML-STALE" },
      { payer_id: "94276", group_number: "G-200", member_id: "ML-CROWD" },
    ]);
    expect([stale.draft.review_status, crowded.draft.review_status]).toEqual(["matched", "matched"]);
    await t.request("POST", `${insurancePath(orgA)}/plans/${pl.id}/archive?base_version=1`, { token: admin });
    const counts = async () => [(await storedRows(t, orgA, insuranceSubscriptions)).length, (await storedRows(t, orgA, patientPlans)).length];
    let before = await counts();
    const outdated = await t.request("POST", `${draft(stale.draft.id)}/convert`, { token: admin });
    expect(outdated.status).toBe(422);
    expect(outdated.body.code).toBe("draft_match_outdated");
    expect(await counts()).toEqual(before);
    // four active plans: ordinals 1-4 held
    for (let i = 1; i <= 4; i++) {
      const sub = await created(t, admin, `${insurancePath(orgA)}/subscriptions`, {
        plan_uuid: plans.delta100.id,
        subscriber_patient_uuid: full.id,
        subscriber_id: `F${i}`,
      });
      await created(t, admin, `${insurancePath(orgA)}/patient-plans`, { patient_uuid: full.id, subscription_uuid: sub.id });
    }
    before = await counts();
    const snapshot = await stored(crowded.draft.id);
    const r = await t.request("POST", `${draft(crowded.draft.id)}/convert`, { token: admin });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("ordinal_taken");
    expect(await counts()).toEqual(before);
    expect(await stored(crowded.draft.id)).toEqual(snapshot);
  });

  test("404 missing or another org's", async () => {
    const foreign = await created(t, admin, `${drafts(orgB)}/import`, { patient_uuid: foreignPatient.id, rows: [{ carrier_name: "X" }] });
    for (const id of [MISSING, foreign.drafts.items[0].id]) {
      const r = await t.request("POST", `${draft(id)}/convert`, { token: admin });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
  });

  test("401, 403 without insurance.write, 404 for another org's member", async () => {
    await expectGuarded(t, orgA, orgB, "POST", `${draft(MISSING)}/convert`, "insurance.write");
  });
});
