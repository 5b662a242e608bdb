import { describe, expect, test } from "bun:test";
import { Condition, conditionProblem, ExplodeContext, factsOf, holds, toothFacts, type Facts } from "@/domains/codes/explosion-codes/conditions";
import { ValidationFailed } from "@/platform/errors";

// The condition language, table by table: every operator on every kind of field,
// the facts derived from a tooth, and the shapes the language refuses.

describe("holds", () => {
  const facts: Facts = { patient_age: 15, surface_count: 3, tooth_number: "3", tooth_type: "molar", arch: "upper", quadrant: "UR", dentition: "permanent" };
  test.each([
    ["patient_age", "eq", 15, true],
    ["patient_age", "eq", 16, false],
    ["patient_age", "ne", 16, true],
    ["patient_age", "ne", 15, false],
    ["patient_age", "lt", 16, true],
    ["patient_age", "lt", 15, false],
    ["patient_age", "lte", 15, true],
    ["patient_age", "lte", 14, false],
    ["patient_age", "gt", 14, true],
    ["patient_age", "gt", 15, false],
    ["patient_age", "gte", 15, true],
    ["patient_age", "gte", 16, false],
    ["patient_age", "in", [14, 15], true],
    ["patient_age", "in", [13, 14], false],
    ["patient_age", "not_in", [13, 14], true],
    ["patient_age", "not_in", [15], false],
    ["surface_count", "gte", 3, true],
    ["surface_count", "lt", 3, false],
    ["tooth_number", "eq", "3", true],
    ["tooth_number", "in", ["1", "2", "3"], true],
    ["tooth_number", "not_in", ["3"], false],
    ["tooth_type", "eq", "molar", true],
    ["tooth_type", "ne", "molar", false],
    ["tooth_type", "in", ["anterior", "premolar"], false],
    ["arch", "eq", "upper", true],
    ["arch", "eq", "lower", false],
    ["quadrant", "in", ["UR", "UL"], true],
    ["quadrant", "eq", "LL", false],
    ["dentition", "eq", "permanent", true],
    ["dentition", "eq", "primary", false],
  ] as const)("%s %s %p -> %p", (field, op, value, expected) => {
    expect(holds({ field, op, value }, facts)).toBe(expected);
  });

  test.each(["eq", "ne", "lt", "gte", "in", "not_in"] as const)("a fact missing from the context satisfies no condition (%s)", (op) => {
    const value = op === "in" || op === "not_in" ? [1] : 1;
    expect(holds({ field: "patient_age", op, value }, { arch: "upper" })).toBe(false);
  });
});

describe("toothFacts", () => {
  test.each([
    ["1", "upper", "UR", "molar", "permanent"],
    ["3", "upper", "UR", "molar", "permanent"],
    ["4", "upper", "UR", "premolar", "permanent"],
    ["6", "upper", "UR", "anterior", "permanent"],
    ["8", "upper", "UR", "anterior", "permanent"],
    ["9", "upper", "UL", "anterior", "permanent"],
    ["12", "upper", "UL", "premolar", "permanent"],
    ["16", "upper", "UL", "molar", "permanent"],
    ["17", "lower", "LL", "molar", "permanent"],
    ["20", "lower", "LL", "premolar", "permanent"],
    ["24", "lower", "LL", "anterior", "permanent"],
    ["25", "lower", "LR", "anterior", "permanent"],
    ["29", "lower", "LR", "premolar", "permanent"],
    ["30", "lower", "LR", "molar", "permanent"],
    ["32", "lower", "LR", "molar", "permanent"],
    ["A", "upper", "UR", "molar", "primary"],
    ["C", "upper", "UR", "anterior", "primary"],
    ["E", "upper", "UR", "anterior", "primary"],
    ["F", "upper", "UL", "anterior", "primary"],
    ["J", "upper", "UL", "molar", "primary"],
    ["K", "lower", "LL", "molar", "primary"],
    ["O", "lower", "LL", "anterior", "primary"],
    ["P", "lower", "LR", "anterior", "primary"],
    ["T", "lower", "LR", "molar", "primary"],
  ])("tooth %s: %s arch, %s, %s, %s", (tooth, arch, quadrant, tooth_type, dentition) => {
    expect(toothFacts(tooth)).toEqual({ arch, quadrant, tooth_type, dentition } as ReturnType<typeof toothFacts>);
  });
});

describe("factsOf", () => {
  test("derives tooth facts and the surface count; keeps what the tooth does not decide", () => {
    expect(factsOf(ExplodeContext.parse({ patient_age: 9, tooth_number: "K", surfaces: "mod" }))).toEqual({
      patient_age: 9,
      tooth_number: "K",
      arch: "lower",
      quadrant: "LL",
      tooth_type: "molar",
      dentition: "primary",
      surface_count: 3,
    });
    expect(factsOf({ arch: "upper", tooth_type: "anterior" })).toEqual({ arch: "upper", tooth_type: "anterior" });
    expect(factsOf({})).toEqual({});
  });

  test.each([
    ["arch", "lower"],
    ["quadrant", "UL"],
    ["tooth_type", "anterior"],
    ["dentition", "primary"],
  ] as const)("422 context_mismatch when %s contradicts the tooth", (field, value) => {
    let err: unknown;
    try {
      factsOf({ tooth_number: "3", [field]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).code).toBe("context_mismatch");
    expect((err as ValidationFailed).issues[0].loc).toEqual(["body", "context", field]);
  });
  test("an agreeing explicit fact is fine", () => {
    expect(factsOf({ tooth_number: "3", arch: "upper", tooth_type: "molar" }).quadrant).toBe("UR");
  });
});

describe("the shapes a condition may take", () => {
  test.each([
    [{ field: "patient_age", op: "lt", value: 18 }],
    [{ field: "patient_age", op: "in", value: [0, 150] }],
    [{ field: "surface_count", op: "gte", value: 4 }],
    [{ field: "tooth_number", op: "in", value: ["1", "A", "32"] }],
    [{ field: "tooth_type", op: "ne", value: "molar" }],
    [{ field: "arch", op: "eq", value: "lower" }],
    [{ field: "quadrant", op: "not_in", value: ["UR"] }],
    [{ field: "dentition", op: "eq", value: "primary" }],
  ])("accepts %j", (c) => {
    expect(Condition.safeParse(c).success).toBe(true);
  });

  test.each([
    [{ field: "arch", op: "lt", value: 3 }, "op"],
    [{ field: "tooth_type", op: "gte", value: "molar" }, "op"],
    [{ field: "patient_age", op: "lt", value: "18" }, "value"],
    [{ field: "patient_age", op: "eq", value: 151 }, "value"],
    [{ field: "patient_age", op: "eq", value: 1.5 }, "value"],
    [{ field: "surface_count", op: "gt", value: 7 }, "value"],
    [{ field: "patient_age", op: "in", value: 12 }, "value"],
    [{ field: "patient_age", op: "in", value: [] }, "value"],
    [{ field: "tooth_number", op: "eq", value: "33" }, "value"],
    [{ field: "tooth_number", op: "in", value: ["1", "U"] }, "value"],
    [{ field: "arch", op: "eq", value: ["upper"] }, "value"],
    [{ field: "quadrant", op: "eq", value: "ur" }, "value"],
  ] as const)("refuses %j at %s", (c, key) => {
    expect(conditionProblem(c as any)?.[0]).toBe(key);
    const parsed = Condition.safeParse(c);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0].path).toEqual([key]);
  });

  test.each([
    [{ field: "weather", op: "eq", value: "sunny" }, "field"],
    [{ field: "arch", op: "like", value: "upper" }, "op"],
    [{ field: "arch", op: "eq" }, "value"],
    [{ field: "arch", op: "eq", value: true }, "value"],
  ])("refuses the schema of %j", (c, key) => {
    const parsed = Condition.safeParse(c);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0].path).toEqual([key]);
  });

  test("refuses unknown keys", () => {
    expect(Condition.safeParse({ field: "arch", op: "eq", value: "upper", note: "x" }).success).toBe(false);
  });
});
