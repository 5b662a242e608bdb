import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { count, max } from "drizzle-orm";
import { auditEntries } from "@db/tenant/audit";
import { patients } from "@db/tenant/patients";
import { get } from "@/platform/db/work";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { GENDERS } from "@/domains/patients/record/schemas";
import { CATEGORIES, FIELDS, SNAPSHOT_HASH, SOURCE_VERSION } from "@/domains/revenue/fields/registry";
import { createMember, expectValidationCases, startTestApp, twoOrgApp, type TestApp } from "@tests/helpers";
import { TODAY, buildWorld, day, expectedValues, orgDb, type Name, type World } from "@tests/domains/revenue/filters/fixtures";

// The revenue query routes over HTTP: GET /fields (the registry), POST /count
// and POST /execute (paging, sorting, the values shown), their guards and every
// refusal. The patients are those of tests/domains/revenue/filters/fixtures.ts:
// A Alice Anders, B Bob Baker, C carol Cole, D Dan Dunn, E Eve Evans (live) and
// Z Zed Archived (archived, never listed).

let t: TestApp;
let admin: string;
let orgId: string;
let otherOrg: string;
let w: World;
let reader: string; // revenue.read only
const nameOf = new Map<string, string>();

const P = (org = orgId) => `/api/v1/${org}/revenue-module`;
type Cond = { field: string; operator: string; value?: unknown };
const def = (...groups: Cond[][]) => ({ groups: groups.map((conditions) => ({ conditions })) });
const everyone = def([{ field: "last_name", operator: "is_not_null" }]);
const names = (body: { patients: { id: string }[] }) => body.patients.map((p) => nameOf.get(p.id) ?? `unknown ${p.id}`);

async function execute(body: Record<string, unknown>, token = reader) {
  const r = await t.request("POST", `${P()}/execute`, { token, body: { filter_definition: everyone, ...body } });
  if (r.status !== 200) throw new Error(`execute: ${r.status} ${r.text}`);
  return r.body;
}
/** The letters of the patients listed, in order, sorted by `sort_by` `sort_dir`. */
const order = async (sort_by: string, sort_dir = "asc", extra: Record<string, unknown> = {}) => names(await execute({ sort_by, sort_dir, ...extra }));

beforeAll(async () => {
  ({
    t,
    admin,
    orgA: orgId,
    orgB: otherOrg,
    tokens: { reader },
  } = await twoOrgApp({ reader: ["revenue.read"] }));
  w = await buildWorld(t, orgId);
  for (const [letter, id] of Object.entries(w.id)) nameOf.set(id, letter);
});
afterAll(async () => {
  await t.close();
});

describe("GET /fields", () => {
  test("the registry by category, in order, with each field's type, operators and values", async () => {
    const r = await t.request("GET", `${P()}/fields`, { token: reader });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["categories", "scopes", "snapshot_hash", "source_version"]);
    expect(r.body.categories.map((c: { key: string }) => c.key)).toEqual([
      "demographics",
      "visits",
      "treatment",
      "recall",
      "balances",
      "insurance",
      "tags",
      "referrals",
    ]);
    expect(r.body.categories.map((c: { label: string }) => c.label)).toEqual([
      "Demographics",
      "Visits",
      "Treatment",
      "Recall",
      "Balances",
      "Insurance",
      "Tags",
      "Referrals",
    ]);
    expect(r.body.scopes).toEqual(["organization", "location", "personal"]);
    expect(r.body.source_version).toBe(4);
    // every field once, in registry order within its category
    const listed = r.body.categories.flatMap((c: { key: string; fields: { key: string }[] }) => c.fields.map((f) => `${c.key}.${f.key}`));
    expect(listed).toEqual(CATEGORIES.flatMap((c) => FIELDS.filter((f) => f.category === c).map((f) => `${c}.${f.key}`)));
    expect(listed).toHaveLength(38);
    const field = (key: string) => r.body.categories.flatMap((c: { fields: { key: string }[] }) => c.fields).find((f: { key: string }) => f.key === key);
    const scopes = ["organization", "location", "personal"];
    expect(field("gender")).toEqual({
      key: "gender",
      label: "Gender",
      type: "enum",
      operators: ["eq", "neq", "in", "not_in", "is_null", "is_not_null"],
      values: [...GENDERS],
      multi_valued: false,
      sortable: false,
      scopes,
    });
    expect(field("tag")).toEqual({
      key: "tag",
      label: "Tags",
      type: "uuid",
      operators: ["in", "not_in", "is_null", "is_not_null"],
      values: null,
      multi_valued: true,
      sortable: false,
      scopes,
    });
    expect(field("total_balance")).toEqual({
      key: "total_balance",
      label: "Total balance",
      type: "money",
      operators: ["eq", "neq", "gt", "gte", "lt", "lte", "between", "is_null", "is_not_null"],
      values: null,
      multi_valued: false,
      sortable: true,
      scopes,
    });
    expect(field("last_visit_date").operators).toEqual([
      "eq",
      "neq",
      "gt",
      "gte",
      "lt",
      "lte",
      "between",
      "is_null",
      "is_not_null",
      "in_last_days",
      "more_than_days_ago",
      "in_next_days",
      "in_last_months",
      "more_than_months_ago",
    ]);
    expect(field("has_email").operators).toEqual(["eq"]);
    expect(field("first_name").operators).toEqual(["eq", "neq", "in", "not_in", "contains", "starts_with", "is_null", "is_not_null"]);
    expect(field("status").values).toEqual(["active", "inactive", "prospective", "deceased", "archived"]);
  });

  test("snapshot_hash: SHA-256 of what clients see of the fields, pinned to source_version 4, the same on another instance", async () => {
    const r = await t.request("GET", `${P()}/fields`, { token: reader });
    expect(r.body.snapshot_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.snapshot_hash).toBe(SNAPSHOT_HASH);
    // the hash covers the categories and their fields as listed
    const recomputed = createHash("sha256")
      .update(JSON.stringify(r.body.categories.map((c: { key: string; fields: unknown[] }) => [c.key, c.fields])))
      .digest("hex");
    expect(recomputed).toBe(r.body.snapshot_hash);
    // Changing a field changes the hash: bump SOURCE_VERSION with it, then update this pin.
    expect({ SOURCE_VERSION, SNAPSHOT_HASH }).toEqual({ SOURCE_VERSION: 4, SNAPSHOT_HASH: "e23c4421f3b3d433585d17b0e50a0ebb7c3c02492a78da41281773044f3af1ca" });
    // another app instance (another data directory, another org) answers the same
    const t2 = await startTestApp();
    try {
      const org2 = (await t2.createOrg()).id;
      const r2 = await t2.request("GET", `/api/v1/${org2}/revenue-module/fields`, { token: await t2.adminToken() });
      expect(r2.status).toBe(200);
      expect(r2.body).toEqual(r.body);
    } finally {
      await t2.close();
    }
    // and the same org twice
    expect((await t.request("GET", `${P()}/fields`, { token: admin })).body).toEqual(r.body);
  });
});

describe("guards", () => {
  test("401 without a token, 403 without revenue.read, 404 for a member of another org; revenue.read is enough", async () => {
    const lacking = (
      await createMember(
        t,
        orgId,
        ORG_PERMISSION_KEYS.filter((k) => k !== "revenue.read"),
      )
    ).token;
    const outsider = (await createMember(t, otherOrg, ["revenue.read"])).token;
    const routes: [string, string, unknown][] = [
      ["GET", "/fields", undefined],
      ["POST", "/count", { expected_source_snapshot_version: 4, filter_definition: everyone }],
      ["POST", "/execute", { filter_definition: everyone }],
    ];
    for (const [method, path, body] of routes) {
      const anon = await t.request(method, `${P()}${path}`, { body });
      expect({ path, status: anon.status, auth: anon.headers.get("www-authenticate") }).toEqual({ path, status: 401, auth: "Bearer" });
      const forbidden = await t.request(method, `${P()}${path}`, { token: lacking, body });
      expect({ path, status: forbidden.status, code: forbidden.body.code }).toEqual({ path, status: 403, code: "forbidden" });
      const other = await t.request(method, `${P()}${path}`, { token: outsider, body });
      expect({ path, status: other.status }).toEqual({ path, status: 404 });
      const ok = await t.request(method, `${P()}${path}`, { token: reader, body });
      expect({ path, status: ok.status }).toEqual({ path, status: 200 });
    }
    // the outsider reads its own org (no patients there)
    const own = await t.request("POST", `${P(otherOrg)}/count`, {
      token: outsider,
      body: { expected_source_snapshot_version: 4, filter_definition: everyone },
    });
    expect(own.body.count).toBe(0);
    // 401 comes before validation
    expect((await t.request("POST", `${P()}/count`, { body: { nonsense: true } })).status).toBe(401);
  });
});

describe("POST /count and POST /execute", () => {
  test("count: the number of live patients matched, the time it took, the registry version", async () => {
    const r = await t.request("POST", `${P()}/count`, {
      token: reader,
      body: { expected_source_snapshot_version: 4, filter_definition: def([{ field: "gender", operator: "eq", value: "female" }]) },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ count: 2, execution_time_ms: expect.any(Number), source_snapshot_version: 4 });
    expect(r.body.execution_time_ms).toBeGreaterThanOrEqual(0);
    const all = await t.request("POST", `${P()}/count`, { token: reader, body: { expected_source_snapshot_version: 4, filter_definition: everyone } });
    expect(all.body.count).toBe(5); // Z is archived
  });

  test("execute: each patient's contact details, next appointment and values; total_count equals count", async () => {
    const filter_definition = def(
      [
        { field: "total_balance", operator: "gte", value: "0.01" },
        { field: "has_email", operator: "eq", value: true },
      ],
      [{ field: "tag", operator: "in", value: [w.TB] }],
    );
    const c = await t.request("POST", `${P()}/count`, { token: reader, body: { expected_source_snapshot_version: 4, filter_definition } });
    const body = await execute({ filter_definition, sort_by: "next_appointment_date", expected_source_snapshot_version: 4 });
    expect(c.body.count).toBe(4);
    expect(body.total_count).toBe(4);
    expect(Object.keys(body).sort()).toEqual(["execution_time_ms", "page", "page_size", "patients", "source_snapshot_version", "total_count"]);
    expect({ page: body.page, page_size: body.page_size, source_snapshot_version: body.source_snapshot_version }).toEqual({
      page: 1,
      page_size: 50,
      source_snapshot_version: 4,
    });
    // A (day +10), D (day +40), then B and C without one (NULLS LAST, by id)
    expect(names(body)).toEqual(["A", "D", "B", "C"]);
    expect(body.patients[0]).toEqual({
      id: w.id.A,
      first_name: "Alice",
      last_name: "Anders",
      preferred_name: null,
      email: "alice@example.com",
      mobile_phone: "555-0101",
      home_phone: null,
      next_appointment_date: day(10),
      // the filtered value fields and the sort field; set fields (tag) have no single value
      values: { total_balance: "112.50", has_email: true, next_appointment_date: day(10) },
    });
    expect(body.patients[2]).toEqual({
      id: w.id.B,
      first_name: "Bob",
      last_name: "Baker",
      preferred_name: null,
      email: null,
      mobile_phone: null,
      home_phone: null,
      next_appointment_date: null,
      values: { total_balance: "0.00", has_email: false, next_appointment_date: null },
    });
    expect(body.patients[3].values).toEqual({ total_balance: "-5.00", has_email: false, next_appointment_date: null });
  });

  test("values: money as two-decimal strings, booleans as booleans, dates as YYYY-MM-DD, numbers as numbers; the default sort field is shown", async () => {
    const truth = expectedValues(w);
    const body = await execute({
      filter_definition: def([
        { field: "unscheduled_treatment_fee", operator: "gte", value: 0 },
        { field: "recall_overdue", operator: "eq", value: true },
        { field: "age", operator: "is_not_null" },
        { field: "last_visit_date", operator: "is_not_null" },
      ]),
    });
    expect(names(body)).toEqual(["B", "D"]);
    expect(body.patients.map((p: { values: unknown }) => p.values)).toEqual([
      { unscheduled_treatment_fee: "1200.00", recall_overdue: true, age: truth.age!.B, last_visit_date: day(-300), last_name: "Baker" },
      { unscheduled_treatment_fee: "0.00", recall_overdue: true, age: truth.age!.D, last_visit_date: day(-190), last_name: "Dunn" },
    ]);
    const c = await execute({ filter_definition: def([{ field: "unscheduled_treatment_fee", operator: "eq", value: "145.5" }]), sort_by: "age" });
    expect(c.patients).toHaveLength(1);
    expect(c.patients[0].values).toEqual({ unscheduled_treatment_fee: "145.50", age: null });
  });

  test("paging: page and page_size slice the sorted list; total_count is the whole match", async () => {
    const pages = [];
    for (const page of [1, 2, 3, 4]) {
      const body = await execute({ page, page_size: 2 });
      expect({ page: body.page, page_size: body.page_size, total_count: body.total_count }).toEqual({ page, page_size: 2, total_count: 5 });
      pages.push(names(body));
    }
    expect(pages).toEqual([["A", "B"], ["C", "D"], ["E"], []]);
    expect(names(await execute({ page_size: 200 }))).toEqual(["A", "B", "C", "D", "E"]);
    expect(names(await execute({ page: 100_000, page_size: 1 }))).toEqual([]);
  });

  test("sorting: asc and desc, ties by id (in the sort's direction), NULLS LAST both ways", async () => {
    expect(await order("last_name")).toEqual(["A", "B", "C", "D", "E"]);
    expect(await order("last_name", "desc")).toEqual(["E", "D", "C", "B", "A"]);
    // names sort ignoring case: "carol" between Bob and Dan
    expect(await order("first_name")).toEqual(["A", "B", "C", "D", "E"]);
    // next appointments: E today, A +10, D +40; B and C have none
    expect(await order("next_appointment_date")).toEqual(["E", "A", "D", "B", "C"]);
    expect(await order("next_appointment_date", "desc")).toEqual(["D", "A", "E", "C", "B"]);
    // ages: D (born 2010) < B (1990) < A (1980) < E (1955); C has no birth date
    expect(await order("age")).toEqual(["D", "B", "A", "E", "C"]);
    expect(await order("age", "desc")).toEqual(["E", "A", "B", "D", "C"]);
    expect(await order("date_of_birth")).toEqual(["E", "A", "B", "D", "C"]);
    // balances: A 112.50, D 95.25, E 1.00, B 0, C -5.00
    expect(await order("total_balance", "desc")).toEqual(["A", "D", "E", "B", "C"]);
    expect(await order("total_balance")).toEqual(["C", "B", "E", "D", "A"]);
    // ties: B, C and D owe nothing over 90 days
    expect(await order("balance_over_90")).toEqual(["B", "C", "D", "E", "A"]);
    expect(await order("balance_over_90", "desc")).toEqual(["A", "E", "D", "C", "B"]);
    expect(await order("unscheduled_treatment_fee")).toEqual(["D", "E", "C", "A", "B"]);
    expect(await order("last_visit_date", "desc")).toEqual(["E", "A", "D", "B", "C"]);
    expect(await order("recall_due_date")).toEqual(["B", "D", "A", "E", "C"]);
    expect(await order("created_at")).toEqual(["E", "A", "B", "D", "C"]);
    // every sortable field sorts, each listing the five live patients
    for (const f of FIELDS.filter((x) => x.sortable)) expect((await order(f.key)).sort()).toEqual(["A", "B", "C", "D", "E"]);
    // a page of a tie-ordered sort continues where the last one stopped
    const byPage = [];
    for (const page of [1, 2, 3]) byPage.push(...(await order("balance_over_90", "desc", { page, page_size: 2 })));
    expect(byPage).toEqual(["A", "E", "D", "C", "B"]);
  });

  test("archived patients never appear: not in lists, counts, sorts or pages", async () => {
    for (const sort_by of ["last_name", "total_balance", "next_appointment_date"]) {
      for (const sort_dir of ["asc", "desc"]) expect((await order(sort_by, sort_dir)).includes("Z")).toBe(false);
    }
    const zed = await execute({ filter_definition: def([{ field: "first_name", operator: "eq", value: "Zed" }]) });
    expect(zed).toMatchObject({ total_count: 0, patients: [] });
  });

  test("nothing is saved: no audit entry, no patient changed", async () => {
    const db = await orgDb(t, orgId);
    const snapshot = () =>
      db.read((d) =>
        get<{ n: number; v: number | null; u: string | null }>(d.select({ n: count(), v: max(patients.version), u: max(patients.updated_at) }).from(patients)),
      );
    const audits = () => db.read((d) => get<{ n: number }>(d.select({ n: count() }).from(auditEntries)));
    const before = { patients: await snapshot(), audits: await audits() };
    await execute({ sort_by: "total_balance", page_size: 3 });
    await execute({ filter_definition: def([{ field: "tag", operator: "in", value: [w.TA] }]), expected_source_snapshot_version: 4 });
    await t.request("POST", `${P()}/count`, { token: reader, body: { expected_source_snapshot_version: 4, filter_definition: everyone } });
    await t.request("GET", `${P()}/fields`, { token: reader });
    expect({ patients: await snapshot(), audits: await audits() }).toEqual(before);
  });
});

describe("409 snapshot_mismatch", () => {
  test("a stale expected_source_snapshot_version is refused before the filter is even checked", async () => {
    for (const path of ["/count", "/execute"]) {
      const r = await t.request("POST", `${P()}${path}`, { token: reader, body: { expected_source_snapshot_version: 1, filter_definition: everyone } });
      expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 409, code: "snapshot_mismatch" });
      expect(r.body.detail).toContain("source_version 4, not 1");
      // a condition that would be 422 is not looked at
      const bad = await t.request("POST", `${P()}${path}`, {
        token: reader,
        body: { expected_source_snapshot_version: 7, filter_definition: def([{ field: "nonsense", operator: "eq", value: 1 }]) },
      });
      expect({ path, status: bad.status, code: bad.body.code }).toEqual({ path, status: 409, code: "snapshot_mismatch" });
    }
    // execute: the sort field is checked after the version too
    const r = await t.request("POST", `${P()}/execute`, {
      token: reader,
      body: { expected_source_snapshot_version: 1, filter_definition: everyone, sort_by: "nonsense" },
    });
    expect(r.status).toBe(409);
    // the current version, or none for execute, runs
    expect(
      (await t.request("POST", `${P()}/execute`, { token: reader, body: { expected_source_snapshot_version: 4, filter_definition: everyone } })).status,
    ).toBe(200);
  });
});

describe("422", () => {
  const loc = (i: number, j: number, part: string) => ["body", "filter_definition", "groups", i, "conditions", j, part];
  const c = (field: string, operator: string, value?: unknown) => ({
    expected_source_snapshot_version: 4,
    filter_definition: def([{ field, operator, value }]),
  });
  const cond = { field: "last_name", operator: "is_not_null" };

  test("the body's shape: required parts, group and condition counts, unknown keys, types", async () => {
    const many = <T>(n: number, x: T) => Array.from({ length: n }, () => x);
    await expectValidationCases(t, "POST", `${P()}/count`, reader, [
      [{ expected_source_snapshot_version: 4 }, ["body", "filter_definition"], "missing"],
      [{ filter_definition: everyone }, ["body", "expected_source_snapshot_version"], "missing"],
      [{ expected_source_snapshot_version: 0, filter_definition: everyone }, ["body", "expected_source_snapshot_version"], "out_of_range"],
      [{ expected_source_snapshot_version: "1", filter_definition: everyone }, ["body", "expected_source_snapshot_version"], "type_error"],
      [{ expected_source_snapshot_version: 1.5, filter_definition: everyone }, ["body", "expected_source_snapshot_version"], "type_error"],
      [{ expected_source_snapshot_version: 4, filter_definition: { groups: [] } }, ["body", "filter_definition", "groups"], "out_of_range"],
      [{ expected_source_snapshot_version: 4, filter_definition: {} }, ["body", "filter_definition", "groups"], "missing"],
      [{ expected_source_snapshot_version: 4, filter_definition: [] }, ["body", "filter_definition"], "type_error"],
      [
        { expected_source_snapshot_version: 4, filter_definition: { groups: many(21, { conditions: [cond] }) } },
        ["body", "filter_definition", "groups"],
        "out_of_range",
      ],
      [
        { expected_source_snapshot_version: 4, filter_definition: { groups: [{ conditions: many(21, cond) }] } },
        ["body", "filter_definition", "groups", 0, "conditions"],
        "out_of_range",
      ],
      [
        { expected_source_snapshot_version: 4, filter_definition: { groups: [{ conditions: [] }] } },
        ["body", "filter_definition", "groups", 0, "conditions"],
        "out_of_range",
      ],
      [{ expected_source_snapshot_version: 4, filter_definition: everyone, extra: 1 }, ["body", "extra"], "extra_forbidden"],
      [{ expected_source_snapshot_version: 4, filter_definition: { ...everyone, match: "all" } }, ["body", "filter_definition", "match"], "extra_forbidden"],
      [
        { expected_source_snapshot_version: 4, filter_definition: { groups: [{ conditions: [cond], negate: true }] } },
        ["body", "filter_definition", "groups", 0, "negate"],
        "extra_forbidden",
      ],
      [
        { expected_source_snapshot_version: 4, filter_definition: { groups: [{ conditions: [{ ...cond, values: [1] }] }] } },
        ["body", "filter_definition", "groups", 0, "conditions", 0, "values"],
        "extra_forbidden",
      ],
      [{ expected_source_snapshot_version: 4, filter_definition: def([{ operator: "eq", value: 1 } as Cond]) }, loc(0, 0, "field"), "missing"],
      [{ expected_source_snapshot_version: 4, filter_definition: def([{ field: 5, operator: "eq" } as unknown as Cond]) }, loc(0, 0, "field"), "type_error"],
      [{ expected_source_snapshot_version: 4, filter_definition: def([{ field: "age" } as Cond]) }, loc(0, 0, "operator"), "missing"],
      [{ expected_source_snapshot_version: 4, filter_definition: def([{ field: "", operator: "eq" }]) }, loc(0, 0, "field"), "out_of_range"],
    ]);
    // 20 groups of 20 conditions are fine
    const max = { groups: many(20, { conditions: many(20, cond) }) };
    const r = await t.request("POST", `${P()}/count`, { token: reader, body: { expected_source_snapshot_version: 4, filter_definition: max } });
    expect(r.body).toMatchObject({ count: 5 });
  });

  test("conditions against the registry: unknown field, operator not allowed, value of the wrong type; all reported at once", async () => {
    const long = Array.from({ length: 101 }, (_, i) => `v${i}`);
    const ids = Array.from({ length: 101 }, () => Bun.randomUUIDv7());
    await expectValidationCases(t, "POST", `${P()}/count`, reader, [
      [c("nonsense", "eq", 1), loc(0, 0, "field"), "unknown_field"],
      [c("Last_Name", "eq", "x"), loc(0, 0, "field"), "unknown_field"],
      [c("gender", "contains", "fe"), loc(0, 0, "operator"), "operator_not_allowed"],
      [c("gender", "like", "fe"), loc(0, 0, "operator"), "operator_not_allowed"],
      [c("has_email", "neq", true), loc(0, 0, "operator"), "operator_not_allowed"],
      [c("tag", "eq", w.TA), loc(0, 0, "operator"), "operator_not_allowed"],
      [c("age", "in_last_days", 5), loc(0, 0, "operator"), "operator_not_allowed"],
      [c("first_name", "gt", "a"), loc(0, 0, "operator"), "operator_not_allowed"],
      [c("total_balance", "contains", "1"), loc(0, 0, "operator"), "operator_not_allowed"],
      // string
      [c("first_name", "eq", 5), loc(0, 0, "value"), "value_error"],
      [c("first_name", "eq"), loc(0, 0, "value"), "value_error"],
      [c("first_name", "eq", "x".repeat(201)), loc(0, 0, "value"), "value_error"],
      [c("first_name", "contains", null), loc(0, 0, "value"), "value_error"],
      [c("first_name", "in", "Alice"), loc(0, 0, "value"), "value_error"],
      [c("first_name", "in", []), loc(0, 0, "value"), "value_error"],
      [c("first_name", "in", long), loc(0, 0, "value"), "value_error"],
      [c("first_name", "not_in", ["a", 1]), loc(0, 0, "value"), "value_error"],
      // number
      [c("no_show_count", "eq", "2"), loc(0, 0, "value"), "value_error"],
      [c("no_show_count", "gt", true), loc(0, 0, "value"), "value_error"],
      [c("no_show_count", "between", [1]), loc(0, 0, "value"), "value_error"],
      [c("no_show_count", "between", [1, 2, 3]), loc(0, 0, "value"), "value_error"],
      [c("no_show_count", "between", { from: 1, to: 2 }), loc(0, 0, "value"), "value_error"],
      [c("age", "eq", "40"), loc(0, 0, "value"), "value_error"],
      [c("age", "between", [40, 30]), loc(0, 0, "value"), "value_error"],
      // money
      [c("total_balance", "eq", "12.345"), loc(0, 0, "value"), "value_error"],
      [c("total_balance", "gt", "ten"), loc(0, 0, "value"), "value_error"],
      [c("total_balance", "between", ["5.00", "1.00"]), loc(0, 0, "value"), "value_error"],
      // date
      [c("date_of_birth", "eq", "2024-02-30"), loc(0, 0, "value"), "value_error"],
      [c("date_of_birth", "eq", "2024-1-01"), loc(0, 0, "value"), "value_error"],
      [c("date_of_birth", "eq", "2024-01-01T00:00:00Z"), loc(0, 0, "value"), "value_error"],
      [c("date_of_birth", "lt", 20240101), loc(0, 0, "value"), "value_error"],
      [c("last_visit_date", "in_last_days", -1), loc(0, 0, "value"), "value_error"],
      [c("last_visit_date", "in_last_days", 1.5), loc(0, 0, "value"), "value_error"],
      [c("last_visit_date", "in_last_months", "3"), loc(0, 0, "value"), "value_error"],
      [c("last_visit_date", "more_than_days_ago", 36_501), loc(0, 0, "value"), "value_error"],
      [c("last_visit_date", "in_next_days"), loc(0, 0, "value"), "value_error"],
      // boolean
      [c("has_email", "eq", "true"), loc(0, 0, "value"), "value_error"],
      [c("has_email", "eq", 1), loc(0, 0, "value"), "value_error"],
      [c("has_email", "eq", null), loc(0, 0, "value"), "value_error"],
      // enum
      [c("gender", "eq", "FEMALE"), loc(0, 0, "value"), "value_error"],
      [c("gender", "in", ["female", "alien"]), loc(0, 0, "value"), "value_error"],
      [c("status", "neq", 1), loc(0, 0, "value"), "value_error"],
      // uuid (value and set fields)
      [c("location", "eq", "not-a-uuid"), loc(0, 0, "value"), "value_error"],
      [c("tag", "in", ["not-a-uuid"]), loc(0, 0, "value"), "value_error"],
      [c("tag", "in", w.TA), loc(0, 0, "value"), "value_error"],
      [c("tag", "not_in", ids), loc(0, 0, "value"), "value_error"],
      [c("planned_procedure_code", "in", [1]), loc(0, 0, "value"), "value_error"],
      // a value for is_null / is_not_null
      [c("gender", "is_null", "female"), loc(0, 0, "value"), "value_error"],
      [c("tag", "is_not_null", [w.TA]), loc(0, 0, "value"), "value_error"],
      [c("age", "is_null", 0), loc(0, 0, "value"), "value_error"],
    ]);
    // 100 values are fine, null for is_null too
    const ok = await t.request("POST", `${P()}/count`, { token: reader, body: c("first_name", "in", long.slice(0, 100)) });
    expect(ok.body).toMatchObject({ count: 0 });
    expect((await t.request("POST", `${P()}/count`, { token: reader, body: c("gender", "is_null", null) })).body).toMatchObject({ count: 1 });

    // every problem at once, each at its condition
    const r = await t.request("POST", `${P()}/count`, {
      token: reader,
      body: {
        expected_source_snapshot_version: 4,
        filter_definition: def(
          [cond, { field: "nonsense", operator: "eq", value: 1 }],
          [
            { field: "gender", operator: "gt", value: "a" },
            { field: "age", operator: "eq", value: "x" },
          ],
        ),
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      { loc: loc(0, 1, "field"), msg: expect.stringContaining("nonsense"), type: "unknown_field" },
      { loc: loc(1, 0, "operator"), msg: expect.stringContaining("gender"), type: "operator_not_allowed" },
      { loc: loc(1, 1, "value"), msg: expect.any(String), type: "value_error" },
    ]);
    // execute reports the same
    const e = await t.request("POST", `${P()}/execute`, { token: reader, body: { filter_definition: def([{ field: "nonsense", operator: "eq" }]) } });
    expect(e.status).toBe(422);
    expect(e.body.detail).toEqual([{ loc: loc(0, 0, "field"), msg: expect.any(String), type: "unknown_field" }]);
  });

  test("execute: sort_by must be a sortable field; page and page_size in range; unknown keys refused", async () => {
    await expectValidationCases(t, "POST", `${P()}/execute`, reader, [
      [{ filter_definition: everyone, sort_by: "nonsense" }, ["body", "sort_by"], "value_error"],
      [{ filter_definition: everyone, sort_by: "gender" }, ["body", "sort_by"], "value_error"],
      [{ filter_definition: everyone, sort_by: "tag" }, ["body", "sort_by"], "value_error"],
      [{ filter_definition: everyone, sort_by: "balance_0_30" }, ["body", "sort_by"], "value_error"],
      [{ filter_definition: everyone, sort_by: "x".repeat(101) }, ["body", "sort_by"], "out_of_range"],
      [{ filter_definition: everyone, sort_dir: "up" }, ["body", "sort_dir"], "enum"],
      [{ filter_definition: everyone, page_size: 201 }, ["body", "page_size"], "out_of_range"],
      [{ filter_definition: everyone, page_size: 0 }, ["body", "page_size"], "out_of_range"],
      [{ filter_definition: everyone, page: 0 }, ["body", "page"], "out_of_range"],
      [{ filter_definition: everyone, page: 100_001 }, ["body", "page"], "out_of_range"],
      [{ filter_definition: everyone, page: "1" }, ["body", "page"], "type_error"],
      [{ filter_definition: everyone, expected_source_snapshot_version: 0 }, ["body", "expected_source_snapshot_version"], "out_of_range"],
      [{ filter_definition: everyone, limit: 5 }, ["body", "limit"], "extra_forbidden"],
      [{ page: 1 }, ["body", "filter_definition"], "missing"],
    ]);
    const r = await t.request("POST", `${P()}/execute`, { token: reader, body: { filter_definition: everyone, sort_by: "gender" } });
    expect(r.body.detail[0].msg).toContain("last_name");
  });

  test("a body that is not JSON: 422 malformed, 415 for a form, 413 past the size limit", async () => {
    const malformed = await t.request("POST", `${P()}/count`, {
      token: reader,
      rawBody: '{"filter_definition":',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].type).toBe("json_invalid");
    const form = await t.request("POST", `${P()}/count`, {
      token: reader,
      rawBody: "expected_source_snapshot_version=1",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect(form.body.code).toBe("unsupported_media_type");
    const huge = await t.request("POST", `${P()}/execute`, {
      token: reader,
      body: { filter_definition: def([{ field: "first_name", operator: "eq", value: "x".repeat(1024 * 1024 + 1) }]) },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe("payload_too_large");
  });
});

// the fixture's truth and this file's sort expectations agree on the dates used
test("fixture sanity: today is UTC and the relative days fall where the sorts expect", () => {
  expect(TODAY).toBe(new Date().toISOString().slice(0, 10));
  // ties sort by id: the ids were minted in letter order (UUIDv7)
  const ids = ["A", "B", "C", "D", "E"].map((n) => w.id[n as Name]);
  expect([...ids].sort()).toEqual(ids);
  expect(day(10) > TODAY && day(40) > day(10)).toBe(true);
  const truth = expectedValues(w);
  const letters: Name[] = ["A", "B", "C", "D", "E"];
  expect(letters.map((n) => truth.age![n])).toEqual([expect.any(Number), expect.any(Number), null, expect.any(Number), expect.any(Number)]);
});
