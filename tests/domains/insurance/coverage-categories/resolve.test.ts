import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { coverageCategoryFor, inMatchOrder, type MatchCategory } from "@/domains/insurance/coverage-categories/resolve";
import { loadCoverageCategories } from "@/domains/insurance/coverage-categories/service";
import { SYSTEM_COVERAGE_CATEGORIES } from "@db/seeds/coverage-categories";
import { startTestApp, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

const span = (from_code: string, to_code = from_code, is_exclusion = false) => ({ from_code, to_code, is_exclusion });

/** The nine system categories as the seed writes them (item_order 10, 20, ... 90). */
const SEEDED: MatchCategory[] = SYSTEM_COVERAGE_CATEGORIES.map(([key, name, , spans], i) => ({
  id: key,
  category_name: name,
  item_order: (i + 1) * 10,
  spans: spans.map(([from, to]) => span(from, to)),
}));
const keyOf = (code: string, categories: readonly MatchCategory[] = SEEDED) => coverageCategoryFor(code, categories)?.id ?? null;

describe("coverageCategoryFor", () => {
  test("each CDT chapter falls in its system category, range ends included", () => {
    expect(
      ["D0100", "D0120", "D0999", "D1110", "D2391", "D2999", "D3330", "D4341", "D5110", "D6010", "D6999", "D7140", "D8080", "D9999"].map((c) => keyOf(c)),
    ).toEqual([
      "diagnostic",
      "diagnostic",
      "diagnostic",
      "preventive",
      "restorative",
      "restorative",
      "endodontics",
      "periodontics",
      "prosthodontics",
      "prosthodontics",
      "prosthodontics",
      "oral_surgery",
      "orthodontics",
      "adjunctive",
    ]);
  });

  test("a code no category covers, or a code that is not CDT, has none; case and spaces do not matter", () => {
    expect(keyOf("D0099")).toBeNull();
    expect(keyOf("99213")).toBeNull();
    expect(keyOf("D2740.1")).toBeNull();
    expect(keyOf(" d0120 ")).toBe("diagnostic");
    expect(keyOf("D0120", [])).toBeNull();
  });

  test("the first category in item_order wins where live categories overlap, whatever the input order", () => {
    const implants = { id: "implants", category_name: "Implants", item_order: 55, spans: [span("D6000", "D6199")] };
    const cats = [...SEEDED].reverse().concat(implants);
    expect(keyOf("D6010", cats)).toBe("implants");
    expect(keyOf("D6210", cats)).toBe("prosthodontics");
    expect(keyOf("D6010", [...SEEDED, { ...implants, item_order: 70 }])).toBe("prosthodontics");
  });

  test("an exclusion span of a category sends the code on to the next category that covers it", () => {
    const prostho = SEEDED.find((c) => c.id === "prosthodontics")!;
    const carved = SEEDED.map((c) => (c === prostho ? { ...c, spans: [...c.spans, span("D6000", "D6199", true)] } : c));
    const implants = { id: "implants", category_name: "Implants", item_order: 100, spans: [span("D6000", "D6199"), span("D6104", "D6104", true)] };
    expect(keyOf("D6010", [...carved, implants])).toBe("implants");
    expect(keyOf("D6199", [...carved, implants])).toBe("implants");
    expect(keyOf("D6205", [...carved, implants])).toBe("prosthodontics");
    expect(keyOf("D5110", [...carved, implants])).toBe("prosthodontics");
    // excluded by both: no category
    expect(keyOf("D6104", [...carved, implants])).toBeNull();
    // an exclusion alone covers nothing
    expect(keyOf("D6010", [{ id: "only-excl", item_order: 1, spans: [span("D6000", "D6999", true)] }])).toBeNull();
  });

  test("archived categories are skipped; ties in item_order go by name (any case), then id", () => {
    const diagnostic = SEEDED[0]!;
    const archived = { id: "archived", category_name: "Exams", item_order: 1, deleted_at: "2026-01-01T00:00:00.000Z", spans: [span("D0100", "D0999")] };
    expect(keyOf("D0120", [archived, ...SEEDED])).toBe("diagnostic");
    const a = { id: "z-id", category_name: "alpha", item_order: 10, spans: [span("D0120")] };
    expect(keyOf("D0120", [diagnostic, a])).toBe("z-id"); // "alpha" < "Diagnostic" ignoring case
    const same = { id: "a-id", category_name: "ALPHA", item_order: 10, spans: [span("D0120")] };
    expect(keyOf("D0120", [a, same])).toBe("a-id");
  });

  test("inMatchOrder does not change its input", () => {
    const input = [...SEEDED].reverse();
    const copy = [...input];
    expect(inMatchOrder(input).map((c) => c.id)).toEqual(SEEDED.map((c) => c.id));
    expect(input).toEqual(copy);
  });
});

describe("loadCoverageCategories", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test("reads an org's live categories with spans in matching order, ready for coverageCategoryFor", async () => {
    const admin = await t.adminToken();
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/insurance/coverage-categories`;
    const prostho = (await t.request("GET", `${P}?search=prosthodontics`, { token: admin })).body.items[0];
    await t.request("POST", `${P}/${prostho.id}/spans`, { token: admin, body: { from_code: "D6010", to_code: "D6199", is_exclusion: true } });
    const implants = (
      await t.request("POST", P, { token: admin, body: { category_name: "Implants", is_hidden: true, spans: [{ from_code: "D6010", to_code: "D6199" }] } })
    ).body;
    const gone = (await t.request("POST", P, { token: admin, body: { category_name: "Gone", item_order: 1, spans: [{ to_code: "D0120" }] } })).body;
    await t.request("POST", `${P}/${gone.id}/archive?base_version=1`, { token: admin });

    // the hidden Implants category still matches: hiding only keeps it out of new plan rules
    const categories = await (await orgDb(t, org)).read((db) => loadCoverageCategories(db));
    expect(categories.map((c) => c.system_key ?? c.category_name)).toEqual([...SYSTEM_COVERAGE_CATEGORIES.map(([k]) => k), "Implants"]);
    const nameOf = (code: string) => coverageCategoryFor(code, categories)?.category_name ?? null;
    expect(["D0120", "D1110", "D6010", "D6240", "D9944", "T1234"].map(nameOf)).toEqual([
      "Diagnostic",
      "Preventive",
      "Implants",
      "Prosthodontics",
      "Adjunctive general services",
      null,
    ]);
    expect(coverageCategoryFor("D6010", categories)?.id).toBe(implants.id);
  });
});
