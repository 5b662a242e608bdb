import { describe, expect, test } from "bun:test";
import { ageDentition, ageInMonths } from "@/domains/clinical/tooth-chart/eruption";
import { chartTooth } from "@/domains/codes/dental-vocabulary";
import { SUCCESSOR, toothOrder } from "@/domains/clinical/tooth-chart/teeth";
import { toothOf } from "@/domains/codes/dental-vocabulary";

const permanent = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
/** tooth -> "status" or "status:pct" */
const chartAt = (months: number) =>
  Object.fromEntries(ageDentition(months).map((t) => [t.tooth_number, t.eruption_pct === null ? t.status : `${t.status}:${t.eruption_pct}`]));
const all = (teeth: string[], v: string) => Object.fromEntries(teeth.map((t) => [t, v]));

describe("ageInMonths", () => {
  test.each([
    ["2020-05-15", "2020-05-15", 0],
    ["2020-05-15", "2020-06-14", 0],
    ["2020-05-15", "2020-06-15", 1],
    ["2020-05-15", "2021-05-14", 11],
    ["2020-05-15", "2021-05-15", 12],
    ["2000-01-31", "2030-01-30", 359],
    ["2030-01-01", "2020-01-01", 0], // not born yet: 0
  ])("%s to %s is %i completed months", (dob, on, months) => {
    expect(ageInMonths(dob, on)).toBe(months);
  });
});

describe("age-based dentition (ADA eruption charts)", () => {
  test("newborn: every primary and permanent tooth unerupted (52)", () => {
    expect(chartAt(0)).toEqual(all([...permanent(1, 32), ..."ABCDEFGHIJKLMNOPQRST"], "unerupted"));
  });

  test("1 year: lower central incisors in, upper incisors and lower laterals erupting, the rest unerupted", () => {
    expect(chartAt(12)).toEqual({
      ...all(permanent(1, 32), "unerupted"),
      ...all([..."ABCHIJKLMRST"], "unerupted"),
      E: "partially_erupted:90",
      F: "partially_erupted:90", // upper centrals 8-12 months
      D: "partially_erupted:70",
      G: "partially_erupted:70", // upper laterals 9-13 months
      N: "partially_erupted:36",
      Q: "partially_erupted:36", // lower laterals 10-16 months
      O: "primary",
      P: "primary", // lower centrals 6-10 months
    });
  });

  test("4 years: the full primary dentition; every permanent tooth unerupted", () => {
    expect(chartAt(48)).toEqual({ ...all(permanent(1, 32), "unerupted"), ...all([..."ABCDEFGHIJKLMNOPQRST"], "primary") });
  });

  test("8 years: mixed dentition", () => {
    expect(chartAt(96)).toEqual({
      ...all(permanent(1, 32), "unerupted"),
      3: "present",
      14: "present",
      19: "present",
      30: "present", // first molars 6-7 y
      24: "present",
      25: "present", // lower centrals 6-7 y
      8: "partially_erupted:52",
      9: "partially_erupted:52", // upper centrals 7-8 y
      7: "partially_erupted:2",
      10: "partially_erupted:2", // upper laterals 8-9 y
      23: "partially_erupted:52",
      26: "partially_erupted:52", // lower laterals 7-8 y
      D: "exfoliating",
      G: "exfoliating",
      N: "exfoliating",
      Q: "exfoliating", // laterals shed 7-8 y
      ...all([..."ABCHIJKLMRST"], "primary"), // centrals (E F O P) shed 6-7 y: gone
    });
  });

  test("12 years: late mixed dentition", () => {
    expect(chartAt(144)).toEqual({
      ...all([...permanent(7, 10), ...permanent(23, 26)], "present"), // incisors
      3: "present",
      14: "present",
      19: "present",
      30: "present", // first molars
      5: "present",
      12: "present", // upper first premolars 10-11 y
      22: "present",
      27: "present", // lower canines 9-10 y
      6: "partially_erupted:52",
      11: "partially_erupted:52", // upper canines 11-12 y
      4: "partially_erupted:68",
      13: "partially_erupted:68", // upper second premolars 10-12 y
      21: "partially_erupted:68",
      28: "partially_erupted:68", // lower first premolars 10-12 y
      20: "partially_erupted:52",
      29: "partially_erupted:52", // lower second premolars 11-12 y
      2: "partially_erupted:2",
      15: "partially_erupted:2", // upper second molars 12-13 y
      18: "partially_erupted:35",
      31: "partially_erupted:35", // lower second molars 11-13 y
      1: "unerupted",
      16: "unerupted",
      17: "unerupted",
      32: "unerupted", // third molars 17-21 y
      // upper canines and second molars, lower second molars: shedding 10-12 y;
      // lower canines (M R) gone: their successors 22 and 27 are in; first molars shed 9-11 y
      A: "exfoliating",
      C: "exfoliating",
      H: "exfoliating",
      J: "exfoliating",
      K: "exfoliating",
      T: "exfoliating",
    });
  });

  test("30 years: the 32 permanent teeth present, no primary teeth", () => {
    expect(chartAt(360)).toEqual(all(permanent(1, 32), "present"));
  });

  test("third molars erupt from 17 to the end of 21 years", () => {
    expect(chartAt(17 * 12 - 1)["1"]).toBe("unerupted");
    expect(chartAt(17 * 12)["1"]).toBe("partially_erupted:1");
    expect(chartAt(22 * 12 - 1)["32"]).toBe("partially_erupted:99");
    expect(chartAt(22 * 12)["32"]).toBe("present");
  });
});

describe("succession map", () => {
  test("exactly the 20 primary teeth, each to a distinct permanent tooth", () => {
    expect(Object.keys(SUCCESSOR)).toEqual([..."ABCDEFGHIJKLMNOPQRST"]);
    expect(new Set(Object.values(SUCCESSOR)).size).toBe(20);
  });

  test.each(Object.entries(SUCCESSOR))("%s is succeeded by %s: same arch and side, incisor->incisor, canine->canine, molar->premolar", (primary, successor) => {
    const p = toothOf(primary)!;
    const s = toothOf(successor)!;
    expect(p.dentition).toBe("primary");
    expect(s.dentition).toBe("permanent");
    expect(s.arch).toBe(p.arch);
    expect(s.tooth_type).toBe(p.tooth_type === "molar" ? "premolar" : p.tooth_type);
    // side: A-E and K-O are the patient's right upper / left lower, as 1-8 and 17-24
    const primaryRightUpperOrLeftLower = (primary.charCodeAt(0) - 65) % 10 < 5;
    const permanentSame = (Number(successor) - 1) % 16 < 8;
    expect(permanentSame).toBe(primaryRightUpperOrLeftLower);
  });

  test("the published pairs", () => {
    expect(SUCCESSOR).toMatchObject({
      A: "4",
      B: "5",
      C: "6",
      D: "7",
      E: "8",
      F: "9",
      G: "10",
      H: "11",
      I: "12",
      J: "13",
      K: "20",
      L: "21",
      M: "22",
      N: "23",
      O: "24",
      P: "25",
      Q: "26",
      R: "27",
      S: "28",
      T: "29",
    });
  });
});

describe("chart tooth numbers", () => {
  test.each([
    ["1", "1"],
    ["32", "32"],
    ["a", "A"],
    ["T", "T"],
    ["51", "51"],
    ["82", "82"],
    ["as", "AS"],
    ["TS", "TS"],
    [" 8 ", "8"],
  ])("%p is %p", (input, out) => expect(chartTooth(input)).toBe(out));

  test.each(["0", "33", "03", "50", "83", "U", "US", "AA", "", "1.5", "A1"])("%p is not a tooth", (input) => expect(chartTooth(input)).toBeNull());

  test("chart order: 1-32, A-T, 51-82, AS-TS", () => {
    expect(["AS", "51", "T", "A", "32", "1", "9"].sort((a, b) => toothOrder(a) - toothOrder(b))).toEqual(["1", "9", "32", "A", "T", "51", "AS"]);
  });
});
