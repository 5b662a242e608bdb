// The dental vocabulary (src/domains/codes/dental-vocabulary.ts): the
// published patterns say what the value lists say, and each endpoint's variant
// of the tooth-number and surface fields keeps what that endpoint has always
// accepted, answered and said (docs/clinical/charting.md, "One dental vocabulary").
import { describe, expect, test } from "bun:test";
import type { z } from "zod";
import { PERMANENT_TEETH, PRIMARY_TEETH, SUPERNUMERARY_TEETH, UNIVERSAL_TEETH } from "@db/tenant/dental-vocabulary";
import { chartTooth, Surfaces, toothOf, ToothNumber, UNIVERSAL_TOOTH_PATTERN } from "@/domains/codes/dental-vocabulary";

/** What a schema answers: the parsed value, or its messages. */
function answer(schema: z.ZodType, value: unknown) {
  const r = schema.safeParse(value);
  return r.success ? { ok: r.data } : { refused: r.error.issues.map((i) => i.message) };
}

// every one- and two-character string of digits and letters, and a few more
const CANDIDATES = (() => {
  const chars = [..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"];
  return ["", " 1", "1 ", "08", "100", "1.5", "-1", ...chars, ...chars.flatMap((a) => chars.map((b) => a + b))];
})();

describe("tooth numbers", () => {
  test("the lists: 32 permanent, 20 primary, 52 Universal, 52 supernumerary, no overlap", () => {
    expect([PERMANENT_TEETH.length, PRIMARY_TEETH.length, UNIVERSAL_TEETH.length, SUPERNUMERARY_TEETH.length]).toEqual([32, 20, 52, 52]);
    expect(new Set([...UNIVERSAL_TEETH, ...SUPERNUMERARY_TEETH]).size).toBe(104);
    expect([SUPERNUMERARY_TEETH[0], SUPERNUMERARY_TEETH[31], SUPERNUMERARY_TEETH[32], SUPERNUMERARY_TEETH[51]]).toEqual(["51", "82", "AS", "TS"]);
  });

  test("the published pattern, toothOf and chartTooth accept exactly the listed teeth", () => {
    const pattern = new RegExp(`^${UNIVERSAL_TOOTH_PATTERN}$`);
    const upper = (s: string) => s.toUpperCase();
    expect(CANDIDATES.filter((s) => pattern.test(s))).toEqual(CANDIDATES.filter((s) => UNIVERSAL_TEETH.includes(upper(s))));
    expect(CANDIDATES.filter((s) => toothOf(s) !== null)).toEqual(CANDIDATES.filter((s) => UNIVERSAL_TEETH.includes(upper(s.trim()))));
    const chart = [...UNIVERSAL_TEETH, ...SUPERNUMERARY_TEETH];
    expect(CANDIDATES.filter((s) => chartTooth(s) !== null)).toEqual(CANDIDATES.filter((s) => chart.includes(upper(s.trim()))));
  });

  test.each([
    // [variant, input, answer]
    ["condition", "b", { ok: "B" }],
    ["condition", " 8", { refused: ["Universal tooth number: 1-32 (permanent) or A-T (primary)"] }],
    ["procedure", " 8 ", { ok: "8" }],
    ["procedure", "33", { refused: ["Must be a Universal tooth number: 1-32 or A-T"] }],
    ["macro", "t", { ok: "T" }],
    ["macro", "51", { refused: ["Must be a universal tooth number: 1-32 or A-T"] }],
    ["explosion", "A", { ok: "A" }],
    ["explosion", "a", { refused: [expect.stringContaining("Invalid option")] }],
    ["autoCode", 30, { ok: 30 }],
    ["autoCode", " k ", { ok: " k " }],
    ["autoCode", "U", { refused: ["Must be a Universal tooth number 1-32 or a primary tooth letter A-T"] }],
  ] as const)("ToothNumber.%s: %p", (variant, input, expected) => {
    expect(answer(ToothNumber[variant], input)).toEqual(expected as never);
  });

  test.each([
    ["any", "as", { ok: "AS" }],
    ["any", " 82", { ok: "82" }],
    ["any", "83", { refused: ["Must be a Universal tooth number: 1-32, A-T, or supernumerary 51-82 / AS-TS"] }],
    ["primary", "c", { ok: "C" }],
    ["primary", "4", { refused: ["Must be a primary tooth letter A-T"] }],
    ["permanent", "AS", { refused: ["Must be a permanent tooth number 1-32"] }],
  ] as const)("ToothNumber.chart(%p): %p", (kind, input, expected) => {
    expect(answer(ToothNumber.chart(kind), input)).toEqual(expected as never);
  });
});

describe("surfaces", () => {
  test.each([
    ["condition", "om", { ok: "MO" }],
    ["condition", " mo", { refused: ["Surface letters M, O, D, B, L, I, F, V"] }],
    ["condition", "MoM", { refused: ["Each surface letter at most once"] }],
    ["procedure", " lbdom ", { ok: "MODBL" }],
    ["procedure", "MX", { refused: ["Surfaces are letters of M, O, D, B, L, I, F, V"] }],
    ["procedure", "mm", { refused: ["Each surface may appear once"] }],
    ["macro", "dm", { ok: "DM" }],
    ["macro", "MV", { refused: ["Must be 1-5 distinct surface letters from M, O, D, B, L, I, F"] }],
    ["macro", "MODBLI", { refused: ["Must be 1-5 distinct surface letters from M, O, D, B, L, I, F"] }],
    ["explosion", " dom ", { ok: "DOM" }],
    ["explosion", "MODBLI", { ok: "MODBLI" }],
    ["explosion", "MODBLIF", { refused: ["Must be surface letters M, O, D, B, L, I, F or V, e.g. MOD"] }],
    ["explosion", "mom", { refused: ["Must not repeat a surface"] }],
    ["autoCode", " mOd ", { ok: "mOd" }],
    ["autoCode", "MODBLI", { refused: ["Must be 1-5 surface letters among M, O, D, B, L, I, F, V"] }],
    ["autoCode", "Mm", { refused: ["Must not repeat a surface"] }],
  ] as const)("Surfaces.%s: %p", (variant, input, expected) => {
    expect(answer(Surfaces[variant], input)).toEqual(expected as never);
  });
});
