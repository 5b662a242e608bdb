import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { insurancePlans } from "@db/tenant/insurance";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, unique, type TestApp } from "@tests/helpers";
import {
  coverageChanges,
  created,
  createPatient,
  eventsOf,
  insertBook,
  insertCarrier,
  insertCategory,
  JSON_HEADERS,
  MISSING,
  planWorld,
  storedRow,
  storedRows,
  systemCategories,
} from "./fixtures";

let t: TestApp;
let admin: string;
let reader: string;
let outsider: string;
let orgA: string;
let orgB: string;
let events: EventEnvelope[];
let P: (org?: string) => string;
let carrier: { id: string; name: string };
let cats: Record<string, { id: string; name: string }>;

const plans = (org?: string) => `${P(org)}/plans`;
const plan = (id: string, org?: string) => `${plans(org)}/${id}`;
const newPlan = (body: Record<string, unknown> = {}) => created(t, admin, plans(), { carrier_uuid: carrier.id, ...body });
const planCount = async () => (await storedRows(t, orgA, insurancePlans)).length;

beforeAll(async () => {
  const w = await planWorld();
  ({ t, admin, reader, outsider, orgA, orgB, events, P } = w);
  carrier = await insertCarrier(t, orgA, "Delta Dental of Somewhere");
  cats = await systemCategories(t, orgA);
});
afterAll(() => t.close());

/** A realistic PPO: 100/80/50, $50 deductible on basic and major, the usual limits. */
const fullBody = () => ({
  carrier_uuid: carrier.id,
  plan_name: "Acme Corp Dental PPO",
  group_name: "Acme Corp",
  group_number: "G-12345",
  plan_type: "ppo",
  cob_method: "non_duplication",
  benefit_year_start_month: 7,
  annual_max: 1500,
  deductible_individual: 50,
  deductible_family: 150,
  deductible_category_uuids: [cats.restorative!.id, cats.prosthodontics!.id, cats.restorative!.id.toUpperCase()],
  coverage: [
    { category_uuid: cats.diagnostic!.id, percent: 100 },
    { category_uuid: cats.preventive!.id, percent: 100 },
    { category_uuid: cats.restorative!.id, percent: 80 },
    { category_uuid: cats.prosthodontics!.id, percent: 50 },
  ],
  frequency_limits: [
    { codes: ["D0120", "D0150"], count: 2, period: "benefit_year" },
    { codes: ["d0274", "D0272"], count: 1, period: "months", months: 12 },
    { codes: ["D0330"], count: 1, period: "lifetime", months: null },
  ],
  waiting_periods: [{ category_uuid: cats.prosthodontics!.id, months: 12 }],
  age_limits: [
    { codes: ["D1206", "D1208"], max_age: 18 },
    { codes: ["D1351"], min_age: 6, max_age: 15 },
  ],
  downgrades: [
    { codes: ["D2391"], to_code: "D2140" },
    { codes: ["D2392-d2394"], to_code: "d2150" },
  ],
  copays: [{ code: "D9110", copay: 25.5 }],
  notes: "Verified by phone with the carrier",
});

describe("POST /insurance/plans", () => {
  test("201 with every field: money as strings, rules with category refs, codes upper-cased, deductible categories once; audited, one event, no coverage change", async () => {
    const before = events.length;
    const r = await t.request("POST", plans(), { token: admin, body: fullBody() });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    const c = (k: string) => ({ uuid: cats[k]!.id, name: cats[k]!.name });
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      carrier: { uuid: carrier.id, name: "Delta Dental of Somewhere" },
      plan_name: "Acme Corp Dental PPO",
      group_name: "Acme Corp",
      group_number: "G-12345",
      plan_type: "ppo",
      estimate_book: null,
      fee_schedule: null,
      cob_method: "non_duplication",
      benefit_year_start_month: 7,
      annual_max: "1500.00",
      deductible_individual: "50.00",
      deductible_family: "150.00",
      deductible_categories: [c("restorative"), c("prosthodontics")],
      coverage: [
        { category: c("diagnostic"), percent: 100 },
        { category: c("preventive"), percent: 100 },
        { category: c("restorative"), percent: 80 },
        { category: c("prosthodontics"), percent: 50 },
      ],
      frequency_limits: [
        { codes: ["D0120", "D0150"], count: 2, period: "benefit_year", months: null },
        { codes: ["D0274", "D0272"], count: 1, period: "months", months: 12 },
        { codes: ["D0330"], count: 1, period: "lifetime", months: null },
      ],
      waiting_periods: [{ category: c("prosthodontics"), months: 12 }],
      age_limits: [
        { codes: ["D1206", "D1208"], min_age: null, max_age: 18 },
        { codes: ["D1351"], min_age: 6, max_age: 15 },
      ],
      downgrades: [
        { codes: ["D2391"], to_code: "D2140" },
        { codes: ["D2392-D2394"], to_code: "D2150" },
      ],
      copays: [{ code: "D9110", copay: "25.50" }],
      is_hidden: false,
      notes: "Verified by phone with the carrier",
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    // stored as the estimate service reads it
    const row = await storedRow(t, orgA, insurancePlans, r.body.id);
    expect(row).toMatchObject({
      annual_max_cents: 150000,
      deductible_individual_cents: 5000,
      deductible_family_cents: 15000,
      deductible_category_ids: [cats.restorative!.id, cats.prosthodontics!.id],
      frequency_limits: [
        { codes: ["D0120", "D0150"], count: 2, period: "benefit_year" },
        { codes: ["D0274", "D0272"], count: 1, period: { months: 12 } },
        { codes: ["D0330"], count: 1, period: "lifetime" },
      ],
      copays: [{ code: "D9110", copay_cents: 2550 }],
      coverage: [
        { category_id: cats.diagnostic!.id, percent: 100 },
        { category_id: cats.preventive!.id, percent: 100 },
        { category_id: cats.restorative!.id, percent: 80 },
        { category_id: cats.prosthodontics!.id, percent: 50 },
      ],
    });
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["insurance_plan.created"]);
    const mine = events.slice(before);
    expect(mine.map((e) => [e.type, e.resource_type, e.resource_id, e.practice_id, e.data])).toEqual([
      ["insurance_plan.created", "insurance_plan", r.body.id, null, { id: r.body.id, carrier_id: carrier.id, plan_type: "ppo" }],
    ]);
    expect(JSON.stringify(mine)).not.toContain("Verified");
    expect((await t.request("GET", plan(r.body.id), { token: reader })).body).toEqual(r.body);
  });

  test("201 with only carrier_uuid: the defaults cover nothing and limit nothing", async () => {
    const r = await t.request("POST", plans(), { token: admin, body: { carrier_uuid: carrier.id.toUpperCase() } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      carrier: { uuid: carrier.id, name: carrier.name },
      plan_name: null,
      group_name: null,
      group_number: null,
      plan_type: "ppo",
      estimate_book: null,
      cob_method: "standard",
      benefit_year_start_month: 1,
      annual_max: null,
      deductible_individual: "0.00",
      deductible_family: null,
      deductible_categories: [],
      coverage: [],
      frequency_limits: [],
      waiting_periods: [],
      age_limits: [],
      downgrades: [],
      copays: [],
      is_hidden: false,
      notes: null,
    });
  });

  test("an estimate book, a hidden category and a hidden carrier may be named; each plan type and COB method is accepted", async () => {
    const book = await insertBook(t, orgA, "Delta allowed fees");
    const mine = await insertCategory(t, orgA, "Implants", { hidden: true });
    const hiddenCarrier = await insertCarrier(t, orgA, "Old carrier", { hidden: true });
    for (const [plan_type, cob_method] of [
      ["indemnity", "standard"],
      ["capitation", "carve_out"],
      ["medicaid", "non_duplication"],
    ]) {
      const r = await newPlan({
        carrier_uuid: hiddenCarrier.id,
        plan_type,
        cob_method,
        estimate_book_uuid: book.id,
        coverage: [{ category_uuid: mine.id, percent: 0 }],
      });
      expect(r).toMatchObject({
        carrier: { uuid: hiddenCarrier.id, name: "Old carrier" },
        plan_type,
        cob_method,
        estimate_book: { uuid: book.id, name: "Delta allowed fees" },
        coverage: [{ category: { uuid: mine.id, name: "Implants" }, percent: 0 }],
      });
    }
  });

  test("404 when the carrier, the estimate book or a category is missing, archived or another org's; nothing is written", async () => {
    const goneCarrier = await insertCarrier(t, orgA, "Gone", { deleted: true });
    const foreignCarrier = await insertCarrier(t, orgB, "Elsewhere");
    const goneBook = await insertBook(t, orgA, "Gone book", { deleted: true });
    const goneCategory = await insertCategory(t, orgA, "Gone category", { deleted: true });
    const foreignCats = await systemCategories(t, orgB);
    const n = await planCount();
    const cases: [Record<string, unknown>, string][] = [
      [{ carrier_uuid: MISSING }, "Insurance carrier not found"],
      [{ carrier_uuid: goneCarrier.id }, "Insurance carrier not found"],
      [{ carrier_uuid: foreignCarrier.id }, "Insurance carrier not found"],
      [{ estimate_book_uuid: MISSING }, "Estimate book not found"],
      [{ estimate_book_uuid: goneBook.id }, "Estimate book not found"],
      [{ coverage: [{ category_uuid: MISSING, percent: 80 }] }, "Coverage category not found"],
      [{ coverage: [{ category_uuid: foreignCats.preventive!.id, percent: 80 }] }, "Coverage category not found"],
      [{ waiting_periods: [{ category_uuid: goneCategory.id, months: 6 }] }, "Coverage category not found"],
      [{ deductible_category_uuids: [cats.restorative!.id, MISSING] }, "Coverage category not found"],
    ];
    for (const [extra, detail] of cases) {
      const r = await t.request("POST", plans(), { token: admin, body: { carrier_uuid: carrier.id, ...extra } });
      expect([JSON.stringify(extra), r.status, r.body]).toEqual([JSON.stringify(extra), 404, { detail, code: "not_found" }]);
    }
    expect(await planCount()).toBe(n);
  });

  test("422 per rule (codes, ranges, percents, months, ages, downgrades, repeats, money, unknown and read-only fields); nothing is written", async () => {
    const n = await planCount();
    const ok = { carrier_uuid: carrier.id };
    const cov = (percent: unknown) => ({ ...ok, coverage: [{ category_uuid: cats.preventive!.id, percent }] });
    const freq = (f: Record<string, unknown>) => ({ ...ok, frequency_limits: [{ codes: ["D0120"], count: 2, period: "benefit_year", ...f }] });
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{}, ["body", "carrier_uuid"], "missing"],
      [{ carrier_uuid: "nope" }, ["body", "carrier_uuid"], "format"],
      [{ ...ok, plan_type: "hmo" }, ["body", "plan_type"], "enum"],
      [{ ...ok, cob_method: "birthday" }, ["body", "cob_method"], "enum"],
      [{ ...ok, benefit_year_start_month: 0 }, ["body", "benefit_year_start_month"], "out_of_range"],
      [{ ...ok, benefit_year_start_month: 13 }, ["body", "benefit_year_start_month"], "out_of_range"],
      [{ ...ok, benefit_year_start_month: 6.5 }, ["body", "benefit_year_start_month"], "type_error"],
      [{ ...ok, annual_max: 10.555 }, ["body", "annual_max"], "value_error"],
      [{ ...ok, annual_max: -1 }, ["body", "annual_max"], "out_of_range"],
      [{ ...ok, annual_max: "1500" }, ["body", "annual_max"], "type_error"],
      [{ ...ok, deductible_individual: null }, ["body", "deductible_individual"], "type_error"],
      [cov(101), ["body", "coverage", 0, "percent"], "out_of_range"],
      [cov(-1), ["body", "coverage", 0, "percent"], "out_of_range"],
      [cov(80.5), ["body", "coverage", 0, "percent"], "type_error"],
      [{ ...ok, coverage: [{ category_uuid: cats.preventive!.id }] }, ["body", "coverage", 0, "percent"], "missing"],
      [
        {
          ...ok,
          coverage: [
            { category_uuid: cats.preventive!.id, percent: 100 },
            { category_uuid: cats.preventive!.id, percent: 80 },
          ],
        },
        ["body", "coverage"],
        "value_error",
      ],
      [freq({ codes: ["D012"] }), ["body", "frequency_limits", 0, "codes", 0], "value_error"],
      [freq({ codes: ["X0120"] }), ["body", "frequency_limits", 0, "codes", 0], "value_error"],
      [freq({ codes: ["D0120", "D0150-D0120"] }), ["body", "frequency_limits", 0, "codes", 1], "value_error"],
      [freq({ codes: ["D0120-"] }), ["body", "frequency_limits", 0, "codes", 0], "value_error"],
      [freq({ codes: [] }), ["body", "frequency_limits", 0, "codes"], "out_of_range"],
      [freq({ count: 0 }), ["body", "frequency_limits", 0, "count"], "out_of_range"],
      [freq({ period: "quarter" }), ["body", "frequency_limits", 0, "period"], "enum"],
      [freq({ period: "months" }), ["body", "frequency_limits", 0, "months"], "value_error"],
      [freq({ period: "benefit_year", months: 6 }), ["body", "frequency_limits", 0, "months"], "value_error"],
      [freq({ period: "months", months: 0 }), ["body", "frequency_limits", 0, "months"], "out_of_range"],
      [{ ...ok, waiting_periods: [{ category_uuid: cats.prosthodontics!.id, months: 0 }] }, ["body", "waiting_periods", 0, "months"], "out_of_range"],
      [
        {
          ...ok,
          waiting_periods: [
            { category_uuid: cats.prosthodontics!.id, months: 6 },
            { category_uuid: cats.prosthodontics!.id, months: 12 },
          ],
        },
        ["body", "waiting_periods"],
        "value_error",
      ],
      [{ ...ok, age_limits: [{ codes: ["D1206"] }] }, ["body", "age_limits", 0, "max_age"], "value_error"],
      [{ ...ok, age_limits: [{ codes: ["D1206"], min_age: 19, max_age: 18 }] }, ["body", "age_limits", 0, "max_age"], "value_error"],
      [{ ...ok, age_limits: [{ codes: ["D1206"], max_age: -1 }] }, ["body", "age_limits", 0, "max_age"], "out_of_range"],
      [{ ...ok, downgrades: [{ codes: ["D2391-D2394"], to_code: "D2392" }] }, ["body", "downgrades", 0, "to_code"], "value_error"],
      [{ ...ok, downgrades: [{ codes: ["D2391"], to_code: "D2140-D2150" }] }, ["body", "downgrades", 0, "to_code"], "format"],
      [{ ...ok, copays: [{ code: "D9110", copay: 1.001 }] }, ["body", "copays", 0, "copay"], "value_error"],
      [
        {
          ...ok,
          copays: [
            { code: "D9110", copay: 10 },
            { code: "d9110", copay: 20 },
          ],
        },
        ["body", "copays"],
        "value_error",
      ],
      [{ ...ok, deductible_category_uuids: ["x"] }, ["body", "deductible_category_uuids", 0], "format"],
      [{ ...ok, id: MISSING }, ["body", "id"], "read_only"],
      [{ ...ok, carrier: { uuid: carrier.id } }, ["body", "carrier"], "read_only"],
      [{ ...ok, deductible_categories: [] }, ["body", "deductible_categories"], "read_only"],
      [{ ...ok, annual_max_cents: 100 }, ["body", "annual_max_cents"], "extra_forbidden"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await t.request("POST", plans(), { token: admin, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
      expect([JSON.stringify(body), r.body.detail[0]]).toEqual([JSON.stringify(body), { loc, msg: expect.any(String), type }]);
    }
    const bad = await t.request("POST", plans(), { token: admin, rawBody: '{"carrier_uuid": ', headers: JSON_HEADERS });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
    expect(await planCount()).toBe(n);
  });

  test("422 family_deductible_below_individual; equal is fine", async () => {
    const n = await planCount();
    const r = await t.request("POST", plans(), { token: admin, body: { carrier_uuid: carrier.id, deductible_individual: 50, deductible_family: 49.99 } });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      code: "family_deductible_below_individual",
      detail: [{ loc: ["body", "deductible_family"], msg: "Must not be below deductible_individual", type: "value_error" }],
    });
    expect(await planCount()).toBe(n);
    expect((await newPlan({ deductible_individual: 50, deductible_family: 50 })).deductible_family).toBe("50.00");
  });

  test("401 without a token, 403 without insurance.write, 404 for a non-member org; nothing is written", async () => {
    const n = await planCount();
    const body = { carrier_uuid: carrier.id };
    const anon = await t.request("POST", plans(), { body });
    expect([anon.status, anon.headers.get("www-authenticate")]).toEqual([401, "Bearer"]);
    expect((await t.request("POST", plans(), { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", plans(), { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", plans(orgB), { token: reader, body })).status).toBe(404);
    expect(await planCount()).toBe(n);
  });
});

describe("GET /insurance/plans", () => {
  test("paged in creation order; filters carrier_uuid, plan_type and search (plan name, group name, group number, any case); hidden only with include_hidden; archived never", async () => {
    const other = await insertCarrier(t, orgA, "Cigna");
    const tag = unique("zq");
    const a = await newPlan({ plan_name: `${tag} Alpha`, group_number: "A-1" });
    const b = await created(t, admin, plans(), { carrier_uuid: other.id, group_name: `${tag.toUpperCase()} Beta Inc`, plan_type: "indemnity" });
    const c = await newPlan({ group_number: `${tag}-777`, is_hidden: true });
    const d = await newPlan({ plan_name: `${tag} archived` });
    await t.request("POST", `${plan(d.id)}/archive?base_version=1`, { token: admin });
    const list = async (qs: string) => {
      const r = await t.request("GET", `${plans()}?${qs}`, { token: reader });
      expect(r.status).toBe(200);
      return r.body;
    };
    expect(await list(`search=${tag}`)).toEqual({ items: [a, b], page: 1, page_size: 50, total: 2 });
    expect((await list(`search=${tag}&include_hidden=true`)).items.map((p: any) => p.id)).toEqual([a.id, b.id, c.id]);
    expect((await list(`search=${tag}&carrier_uuid=${other.id}`)).items).toEqual([b]);
    expect((await list(`search=${tag}&plan_type=indemnity`)).items).toEqual([b]);
    expect((await list(`search=beta%20inc&include_hidden=1`)).items.map((p: any) => p.id)).toEqual([b.id]);
    expect((await list(`search=${tag}-777&include_hidden=true`)).items.map((p: any) => p.id)).toEqual([c.id]);
    const paged = await list(`search=${tag}&include_hidden=true&page=2&page_size=2`);
    expect([paged.items.map((p: any) => p.id), paged.total, paged.page, paged.page_size]).toEqual([[c.id], 3, 2, 2]);
    expect((await list(`carrier_uuid=${MISSING}`)).total).toBe(0);
  });

  test("422 on bad parameters; 401, 403 without insurance.read, 404 for a non-member org", async () => {
    for (const qs of ["page=0", "page_size=201", "include_hidden=maybe", "plan_type=hmo", "carrier_uuid=x", "sort=name"]) {
      const r = await t.request("GET", `${plans()}?${qs}`, { token: reader });
      expect([qs, r.status, r.body.detail[0].loc[0]]).toEqual([qs, 422, "query"]);
    }
    expect((await t.request("GET", plans())).status).toBe(401);
    expect((await t.request("GET", plans(), { token: outsider })).status).toBe(403);
    expect((await t.request("GET", plans(orgB), { token: reader })).status).toBe(404);
  });
});

describe("GET /insurance/plans/{plan_uuid}", () => {
  test("200 with ETag; 404 when missing, archived or another org's; 401; 403", async () => {
    const p = await newPlan({ plan_name: "Read me" });
    const r = await t.request("GET", plan(p.id.toUpperCase()), { token: reader });
    expect([r.status, r.headers.get("etag"), r.body]).toEqual([200, '"1"', p]);
    const foreign = await created(t, admin, plans(orgB), { carrier_uuid: (await insertCarrier(t, orgB)).id });
    const gone = await newPlan();
    await t.request("POST", `${plan(gone.id)}/archive?base_version=1`, { token: admin });
    for (const id of [MISSING, foreign.id, gone.id]) {
      const m = await t.request("GET", plan(id), { token: reader });
      expect([m.status, m.body]).toEqual([404, { detail: "Insurance plan not found", code: "not_found" }]);
    }
    expect((await t.request("GET", plan(p.id))).status).toBe(401);
    expect((await t.request("GET", plan(p.id), { token: outsider })).status).toBe(403);
    expect((await t.request("GET", plan(p.id, orgB), { token: reader })).status).toBe(404);
  });
});

describe("PATCH /insurance/plans/{plan_uuid}", () => {
  test("200: only fields present change, a rule list sent replaces the stored one; audited; updated event with API field names and a coverage change for the plan", async () => {
    const p = await created(t, admin, plans(), fullBody());
    const before = events.length;
    const r = await t.request("PATCH", plan(p.id), {
      token: admin,
      body: {
        base_version: 1,
        annual_max: 2000,
        deductible_category_uuids: [],
        coverage: [{ category_uuid: cats.preventive!.id, percent: 90 }],
        carrier_uuid: (await insertCarrier(t, orgA, "MetLife")).id,
        notes: null,
      },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...p,
      carrier: { uuid: expect.any(String), name: "MetLife" },
      annual_max: "2000.00",
      deductible_categories: [],
      coverage: [{ category: { uuid: cats.preventive!.id, name: "Preventive" }, percent: 90 }],
      notes: null,
      version: 2,
      updated_at: expect.any(String),
    });
    expect((await auditOf(t, orgA, p.id)).map((a) => a.action)).toEqual(["insurance_plan.created", "insurance_plan.updated"]);
    const updated = eventsOf(events.slice(before), "insurance_plan.updated");
    expect(updated.map((e) => e.data)).toEqual([
      { id: p.id, changed_fields: expect.arrayContaining(["carrier", "annual_max", "deductible_categories", "coverage", "notes"]) },
    ]);
    expect(updated[0]!.data.changed_fields).toHaveLength(5);
    expect(coverageChanges(events, before).map((e) => [e.resource_type, e.resource_id, e.data])).toEqual([
      ["insurance_plan", p.id, { patient_ids: [], plan_ids: [p.id] }],
    ]);
  });

  test("409 on a stale base_version before any rule; 404 missing, archived or another org's; nothing changes", async () => {
    const p = await newPlan({ deductible_individual: 50 });
    await t.request("PATCH", plan(p.id), { token: admin, body: { base_version: 1, plan_name: "v2" } });
    const stale = await t.request("PATCH", plan(p.id), { token: admin, body: { base_version: 1, deductible_family: 1 } });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const foreign = await created(t, admin, plans(orgB), { carrier_uuid: (await insertCarrier(t, orgB)).id });
    for (const id of [MISSING, foreign.id]) {
      expect((await t.request("PATCH", plan(id), { token: admin, body: { base_version: 1, plan_name: "x" } })).status).toBe(404);
    }
    expect((await storedRow(t, orgA, insurancePlans, p.id)).version).toBe(2);
    expect((await storedRow(t, orgB, insurancePlans, foreign.id)).plan_name).toBeNull();
  });

  test("422 judged on the plan as it would be stored, 404 for a bad reference, 422 for read-only fields; nothing changes", async () => {
    const p = await newPlan({ deductible_individual: 50, deductible_family: 150 });
    const lower = await t.request("PATCH", plan(p.id), { token: admin, body: { base_version: 1, deductible_family: 40 } });
    expect([lower.status, lower.body.code]).toEqual([422, "family_deductible_below_individual"]);
    const higher = await t.request("PATCH", plan(p.id), { token: admin, body: { base_version: 1, deductible_individual: 200 } });
    expect([higher.status, higher.body.code]).toEqual([422, "family_deductible_below_individual"]);
    const cat = await t.request("PATCH", plan(p.id), { token: admin, body: { base_version: 1, waiting_periods: [{ category_uuid: MISSING, months: 6 }] } });
    expect([cat.status, cat.body.detail]).toEqual([404, "Coverage category not found"]);
    const carrierGone = await t.request("PATCH", plan(p.id), { token: admin, body: { base_version: 1, carrier_uuid: MISSING } });
    expect([carrierGone.status, carrierGone.body.detail]).toEqual([404, "Insurance carrier not found"]);
    for (const [body, loc, type] of [
      [{ base_version: 1, version: 3 }, ["body", "version"], "read_only"],
      [{ base_version: 1, carrier: null }, ["body", "carrier"], "read_only"],
      [{ plan_name: "x" }, ["body", "base_version"], "missing"],
      [{ base_version: 1, coverage: [{ category_uuid: cats.preventive!.id, percent: 120 }] }, ["body", "coverage", 0, "percent"], "out_of_range"],
    ] as const) {
      const r = await t.request("PATCH", plan(p.id), { token: admin, body });
      expect([r.status, r.body.detail[0]]).toEqual([422, { loc, msg: expect.any(String), type }]);
    }
    expect(await storedRow(t, orgA, insurancePlans, p.id)).toMatchObject({ version: 1, deductible_family_cents: 15000, waiting_periods: [] });
  });

  test("a null estimate book clears it; 401, 403 without insurance.write, 404 for a non-member org", async () => {
    const book = await insertBook(t, orgA);
    const p = await newPlan({ estimate_book_uuid: book.id });
    const body = { base_version: 1, estimate_book_uuid: null };
    expect((await t.request("PATCH", plan(p.id), { body })).status).toBe(401);
    expect((await t.request("PATCH", plan(p.id), { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", plan(p.id, orgB), { token: reader, body })).status).toBe(404);
    expect((await storedRow(t, orgA, insurancePlans, p.id)).estimate_book_id).toBe(book.id);
    const r = await t.request("PATCH", plan(p.id), { token: admin, body });
    expect([r.status, r.body.estimate_book]).toEqual([200, null]);
  });
});

describe("POST /insurance/plans/{plan_uuid}/archive", () => {
  test("200 answers the archived plan; audited; archived event and a coverage change; then 404", async () => {
    const p = await newPlan();
    const before = events.length;
    const r = await t.request("POST", `${plan(p.id)}/archive?base_version=1`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...p, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await auditOf(t, orgA, p.id)).map((a) => a.action)).toEqual(["insurance_plan.created", "insurance_plan.archived"]);
    expect(events.slice(before).map((e) => e.type)).toEqual(["insurance_plan.archived", "insurance.coverage_changed"]);
    expect((await t.request("POST", `${plan(p.id)}/archive?base_version=2`, { token: admin })).status).toBe(404);
  });

  test("409 in_use while a live subscription names the plan; an archived subscription does not count", async () => {
    const p = await newPlan();
    const holder = await createPatient(t, admin, orgA);
    const sub = await created(t, admin, `${P()}/subscriptions`, { plan_uuid: p.id, subscriber_patient_uuid: holder.id });
    const r = await t.request("POST", `${plan(p.id)}/archive?base_version=1`, { token: admin });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: "1 subscription still name this plan; archive them or move them to another plan first", code: "in_use" });
    expect((await storedRow(t, orgA, insurancePlans, p.id)).deleted_at).toBeNull();
    await t.request("POST", `${P()}/subscriptions/${sub.id}/archive?base_version=1`, { token: admin });
    expect((await t.request("POST", `${plan(p.id)}/archive?base_version=1`, { token: admin })).status).toBe(200);
  });

  test("409 stale, 422 without base_version, 404 missing or another org's, 401, 403; nothing changes", async () => {
    const p = await newPlan();
    const stale = await t.request("POST", `${plan(p.id)}/archive?base_version=2`, { token: admin });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const none = await t.request("POST", `${plan(p.id)}/archive`, { token: admin });
    expect([none.status, none.body.detail[0].loc]).toEqual([422, ["query", "base_version"]]);
    expect((await t.request("POST", `${plan(MISSING)}/archive?base_version=1`, { token: admin })).status).toBe(404);
    const foreign = await created(t, admin, plans(orgB), { carrier_uuid: (await insertCarrier(t, orgB)).id });
    expect((await t.request("POST", `${plan(foreign.id)}/archive?base_version=1`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${plan(p.id)}/archive?base_version=1`)).status).toBe(401);
    expect((await t.request("POST", `${plan(p.id)}/archive?base_version=1`, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${plan(p.id, orgB)}/archive?base_version=1`, { token: reader })).status).toBe(404);
    expect((await storedRow(t, orgA, insurancePlans, p.id)).deleted_at).toBeNull();
    expect((await storedRow(t, orgB, insurancePlans, foreign.id)).deleted_at).toBeNull();
  });
});
