import { SUCCESSOR } from "./teeth";

// The age-appropriate dentition, from the American Dental Association's eruption
// charts ("Tooth Eruption Charts", MouthHealthy / JADA 2005;136:1619 (primary)
// and 2006;137:127 (permanent)). Ranges are as published; "8-12 months" covers
// the 8th through the 12th month of life, so a window ends one unit after its upper bound.

/** [erupt from, erupt to] in months, [shed from, shed to] in years; index 0 = central incisor .. 4 = second molar. */
const PRIMARY: Record<"upper" | "lower", [number, number, number, number][]> = {
  upper: [
    [8, 12, 6, 7],
    [9, 13, 7, 8],
    [16, 22, 10, 12],
    [13, 19, 9, 11],
    [25, 33, 10, 12],
  ],
  lower: [
    [6, 10, 6, 7],
    [10, 16, 7, 8],
    [17, 23, 9, 12],
    [14, 18, 9, 11],
    [23, 31, 10, 12],
  ],
};
/** [erupt from, erupt to] in years; index 0 = central incisor .. 7 = third molar. */
const PERMANENT: Record<"upper" | "lower", [number, number][]> = {
  upper: [
    [7, 8],
    [8, 9],
    [11, 12],
    [10, 11],
    [10, 12],
    [6, 7],
    [12, 13],
    [17, 21],
  ],
  lower: [
    [6, 7],
    [7, 8],
    [9, 10],
    [10, 12],
    [11, 12],
    [6, 7],
    [11, 13],
    [17, 21],
  ],
};

export type SeededTooth = {
  tooth_number: string;
  status: "unerupted" | "partially_erupted" | "present" | "primary" | "exfoliating";
  eruption_pct: number | null;
};

/** Completed months between a date of birth and a day (both YYYY-MM-DD); 0 if born later. */
export function ageInMonths(dob: string, on: string): number {
  const [y1, m1, d1] = dob.split("-").map(Number);
  const [y2, m2, d2] = on.split("-").map(Number);
  return Math.max(0, (y2! - y1!) * 12 + (m2! - m1!) - (d2! < d1! ? 1 : 0));
}

/** Position of a tooth inside an erupt window, as a percentage kept inside 1-99. */
const pctIn = (age: number, from: number, end: number) => Math.min(99, Math.max(1, Math.round((100 * (age - from + 0.5)) / (end - from))));

function permanentStatus(age: number, [from, to]: [number, number]): Omit<SeededTooth, "tooth_number"> {
  const start = from * 12,
    end = (to + 1) * 12;
  if (age < start) return { status: "unerupted", eruption_pct: null };
  if (age < end) return { status: "partially_erupted", eruption_pct: pctIn(age, start, end) };
  return { status: "present", eruption_pct: null };
}

/** null once the tooth has been shed: it is no longer part of the chart. */
function primaryStatus(age: number, [from, to, shedFrom, shedTo]: [number, number, number, number]): Omit<SeededTooth, "tooth_number"> | null {
  if (age < from) return { status: "unerupted", eruption_pct: null };
  if (age < to + 1) return { status: "partially_erupted", eruption_pct: pctIn(age, from, to + 1) };
  if (age < shedFrom * 12) return { status: "primary", eruption_pct: null };
  if (age < (shedTo + 1) * 12) return { status: "exfoliating", eruption_pct: null };
  return null;
}

/**
 * Every tooth of the age-appropriate dentition at `ageMonths`: all 32 permanent
 * teeth (unerupted, partially erupted or present) and the primary teeth not yet
 * shed (unerupted, partially erupted, primary or exfoliating) whose successor
 * has not fully erupted.
 */
export function ageDentition(ageMonths: number): SeededTooth[] {
  const out: SeededTooth[] = [];
  for (let n = 1; n <= 32; n++) {
    const inArch = n <= 16 ? n : n - 16;
    const fromMidline = inArch <= 8 ? 9 - inArch : inArch - 8; // 1 central incisor .. 8 third molar
    out.push({ tooth_number: String(n), ...permanentStatus(ageMonths, PERMANENT[n <= 16 ? "upper" : "lower"][fromMidline - 1]!) });
  }
  for (let i = 0; i < 20; i++) {
    const inArch = i % 10;
    const fromMidline = inArch < 5 ? 5 - inArch : inArch - 4; // 1 central incisor .. 5 second molar
    const letter = String.fromCharCode(65 + i);
    const s = primaryStatus(ageMonths, PRIMARY[i < 10 ? "upper" : "lower"][fromMidline - 1]!);
    // the two tables overlap: once the successor is fully erupted the primary tooth is gone
    if (s && out[Number(SUCCESSOR[letter]) - 1]!.status !== "present") out.push({ tooth_number: letter, ...s });
  }
  return out;
}
