import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGuarded, type TestApp } from "@tests/helpers";
import { compileFilter } from "@/domains/revenue/filters/compile";
import { compose } from "@/domains/revenue/compose/parser";
import { revenueWorld } from "@tests/domains/revenue/lists/fixtures";

let w: Awaited<ReturnType<typeof revenueWorld>>;
let t: TestApp;
let C: string;

beforeAll(async () => {
  w = await revenueWorld();
  t = w.t;
  C = `${w.A}/compose`;
});
afterAll(() => t.close());

const conditionsOf = (q: string, today = "2025-06-10") => compose(q, today).filter_definition?.groups[0]?.conditions;

describe("POST /compose", () => {
  test("a simple sentence becomes a real filter, with confidence, explanation and field keys", async () => {
    const r = await t.request("POST", C, {
      token: w.reader.token,
      body: { query: "Patients with unscheduled treatment and no appointment", context: { screen: "lists" } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      confidence: 1,
      explanation: "Patients who have unscheduled treatment and have no upcoming appointment.",
      field_keys_used: ["has_unscheduled_treatment", "next_appointment_date"],
      filter_definition: {
        groups: [
          {
            conditions: [
              { field: "has_unscheduled_treatment", operator: "eq", value: true },
              { field: "next_appointment_date", operator: "is_null" },
            ],
          },
        ],
      },
      warnings: [],
    });
    const count = await t.request("POST", `${w.A}/count`, {
      token: w.reader.token,
      body: { expected_source_snapshot_version: 4, filter_definition: r.body.filter_definition },
    });
    expect(count.status).toBe(200);
  });

  test("phrases of the parser", () => {
    expect(conditionsOf("balance over 90 days")).toEqual([{ field: "balance_over_90", operator: "gt", value: 0 }]);
    expect(conditionsOf("birthday this month")).toEqual([{ field: "birthday_month", operator: "eq", value: 6 }]);
    expect(conditionsOf("birthdays next month", "2025-12-01")).toEqual([{ field: "birthday_month", operator: "eq", value: 1 }]);
    expect(conditionsOf("overdue recall")).toEqual([{ field: "recall_overdue", operator: "eq", value: true }]);
    expect(conditionsOf("no email")).toEqual([{ field: "has_email", operator: "eq", value: false }]);
    expect(conditionsOf("unscheduled treatment over $500")).toEqual([
      { field: "has_unscheduled_treatment", operator: "eq", value: true },
      { field: "unscheduled_treatment_fee", operator: "gt", value: 500 },
    ]);
    expect(conditionsOf("haven't been seen in 2 years")).toEqual([{ field: "last_visit_date", operator: "more_than_months_ago", value: 24 }]);
    expect(conditionsOf("uninsured patients older than 65")).toEqual([
      { field: "has_active_insurance", operator: "eq", value: false },
      { field: "age", operator: "gt", value: 65 },
    ]);
    expect(conditionsOf("new patients with insurance and no mobile phone")).toEqual([
      { field: "has_mobile_phone", operator: "eq", value: false },
      { field: "has_active_insurance", operator: "eq", value: true },
      { field: "created_at", operator: "in_last_months", value: 12 },
    ]);
    for (const q of ["balance over 90 days", "overdue recall with no appointment", "no-shows under 18"]) {
      expect(() => compileFilter(compose(q, "2025-06-10").filter_definition!, "2025-06-10")).not.toThrow();
    }
  });

  test("partly understood: lower confidence and a warning naming what was left out; OR is warned about", () => {
    const r = compose("patients with no email who like golf", "2025-06-10");
    expect(r.filter_definition).toEqual({ groups: [{ conditions: [{ field: "has_email", operator: "eq", value: false }] }] });
    expect(r.confidence).toBeCloseTo(0.5, 2);
    expect(r.warnings).toEqual(["Not understood and left out: like, golf"]);
    expect(compose("no email or overdue recall", "2025-06-10").warnings).toContain("Only AND is understood: every recognised condition was joined with AND");
  });

  test("nothing matched: filter_definition null, confidence 0, a warning", async () => {
    const r = await t.request("POST", C, { token: w.reader.token, body: { query: "patients who like golf" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ confidence: 0, field_keys_used: [], filter_definition: null });
    expect(r.body.warnings[0]).toStartWith("No condition recognised");
  });

  test("422 for an empty or too short query (after trimming), a missing query, a context that is not an object", async () => {
    const cases: [unknown, string][] = [
      [{}, "missing"],
      [{ query: "" }, "out_of_range"],
      [{ query: "  ab  " }, "out_of_range"],
      [{ query: 5 }, "type_error"],
      [{ query: "overdue", context: "x" }, "type_error"],
    ];
    for (const [body, type] of cases) {
      const r = await t.request("POST", C, { token: w.reader.token, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
      expect(r.body.detail[0].type).toBe(type);
    }
  });

  test("401, 403, 404", async () => {
    await expectGuarded(t, w.orgA, w.orgB, "POST", C, "revenue.read", { query: "overdue recall" });
  });
});
