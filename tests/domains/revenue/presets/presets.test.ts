import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, expectGuarded, unique, type TestApp } from "@tests/helpers";
import { compileFilter } from "@/domains/revenue/filters/compile";
import { PRESET_KEYS, presets } from "@/domains/revenue/presets/catalog";
import { createLocation, revenueWorld } from "@tests/domains/revenue/lists/fixtures";

let w: Awaited<ReturnType<typeof revenueWorld>>;
let t: TestApp;

beforeAll(async () => {
  w = await revenueWorld();
  t = w.t;
});
afterAll(() => t.close());

const month = () => Number(new Date().toISOString().slice(5, 7));

describe("GET /presets", () => {
  test("every system template, with a filter that compiles against the registry", async () => {
    const r = await t.request("GET", `${w.A}/presets`, { token: w.reader.token });
    expect(r.status).toBe(200);
    expect(r.body.items.map((p: any) => p.key)).toEqual([...PRESET_KEYS]);
    for (const p of r.body.items) {
      expect(p).toEqual({
        key: expect.any(String),
        name: expect.any(String),
        description: expect.any(String),
        category: expect.any(String),
        filter_definition: expect.any(Object),
      });
      expect(() => compileFilter(p.filter_definition, "2025-03-15")).not.toThrow();
    }
    const byKey = Object.fromEntries(r.body.items.map((p: any) => [p.key, p]));
    expect(byKey.unscheduled_treatment_over_500.filter_definition).toEqual({
      groups: [
        {
          conditions: [
            { field: "has_unscheduled_treatment", operator: "eq", value: true },
            { field: "unscheduled_treatment_fee", operator: "gt", value: 500 },
          ],
        },
      ],
    });
    expect(byKey.balances_over_90.filter_definition).toEqual({ groups: [{ conditions: [{ field: "balance_over_90", operator: "gt", value: 0 }] }] });
    expect(byKey.birthdays_this_month.filter_definition).toEqual({ groups: [{ conditions: [{ field: "birthday_month", operator: "eq", value: month() }] }] });
    expect(byKey.no_visit_18_months.filter_definition.groups).toHaveLength(2);
    expect(byKey.insurance_benefits_remaining.filter_definition).toEqual({
      groups: [
        {
          conditions: [
            { field: "annual_max_remaining", operator: "gt", value: 0 },
            { field: "has_unscheduled_treatment", operator: "eq", value: true },
          ],
        },
      ],
    });
  });

  test("every preset compiles on any day (birthday month from the date)", () => {
    for (const day of ["2025-01-01", "2025-12-31", "2024-02-29"]) {
      const list = presets(day);
      expect(list.find((p) => p.key === "birthdays_this_month")!.filter_definition.groups[0]!.conditions[0]!.value).toBe(Number(day.slice(5, 7)));
      for (const p of list) expect(() => compileFilter(p.filter_definition, day)).not.toThrow();
    }
  });

  test("401, 403, 404", async () => {
    await expectGuarded(t, w.orgA, w.orgB, "GET", `${w.A}/presets`, "revenue.read");
  });
});

describe("POST /lists/from-preset", () => {
  test("201: list_type preset with preset_key, the preset's filter, name and description (overridable)", async () => {
    const r = await t.request("POST", `${w.A}/lists/from-preset`, { token: w.writer.token, body: { preset_key: "balances_over_90", scope: "organization" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      list_type: "preset",
      preset_key: "balances_over_90",
      name: "Balances over 90 days",
      description: "Patients with any balance aged more than 90 days.",
      filter_definition: { groups: [{ conditions: [{ field: "balance_over_90", operator: "gt", value: 0 }] }] },
      source_version: 4,
      owner: { uuid: w.writer.userId },
    });
    expect((await auditOf(t, w.orgA, r.body.id)).map((a) => a.action)).toEqual(["smart_list.created"]);
    const loc = await createLocation(t, w.admin, w.orgA);
    const named = await t.request("POST", `${w.A}/lists/from-preset`, {
      token: w.writer.token,
      body: { preset_key: "recall_overdue_6_months", scope: "location", scope_location_uuid: loc, name: "North recall", description: null, is_pinned: true },
    });
    expect(named.status).toBe(201);
    expect(named.body).toMatchObject({ name: "North recall", description: null, is_pinned: true, scope_location: { uuid: loc } });
    const listed = await t.request("GET", `${w.A}/lists?list_type=preset`, { token: w.reader.token });
    expect(listed.body.total).toBe(2);
    const run = await t.request("POST", `${w.A}/lists/${r.body.id}/execute`, { token: w.reader.token, body: {} });
    expect(run.status).toBe(200);
    expect(run.body.total_count).toBe(0);
  });

  test("422 unknown preset, missing scope, location scope without location, filter_definition given; 409 same name; 403 reader", async () => {
    const total = async () => (await t.request("GET", `${w.A}/lists?page_size=1`, { token: w.writer.token })).body.total;
    const n = await total();
    const P = `${w.A}/lists/from-preset`;
    const cases: [Record<string, unknown>, unknown[]][] = [
      [{ preset_key: "nope", scope: "organization" }, ["body", "preset_key"]],
      [{ preset_key: "balances_over_90" }, ["body", "scope"]],
      [{ preset_key: "balances_over_90", scope: "location" }, ["body", "scope_location_uuid"]],
      [{ preset_key: "balances_over_90", scope: "personal", filter_definition: {} }, ["body", "filter_definition"]],
      [{ preset_key: "balances_over_90", scope: "personal", list_type: "dynamic" }, ["body", "list_type"]],
    ];
    for (const [body, loc] of cases) {
      const r = await t.request("POST", P, { token: w.writer.token, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
      expect(r.body.detail[0].loc).toEqual(loc);
    }
    const name = unique("Preset");
    expect((await t.request("POST", P, { token: w.writer.token, body: { preset_key: "birthdays_this_month", scope: "personal", name } })).status).toBe(201);
    const dup = await t.request("POST", P, { token: w.writer.token, body: { preset_key: "balances_over_90", scope: "personal", name: name.toUpperCase() } });
    expect(dup.status).toBe(409);
    expect((await t.request("POST", P, { token: w.reader.token, body: { preset_key: "balances_over_90", scope: "personal" } })).status).toBe(403);
    expect(await total()).toBe(n + 1);
  });
});
