import { z } from "zod";
import { toothOf } from "@/domains/odontogram/auto-codes/teeth";

// Tooth numbers as the chart accepts them: Universal 1-32 and A-T (src/domains/auto-codes/teeth.ts),
// plus supernumerary teeth by the ADA convention: 51-82 is the extra tooth next to
// permanent tooth n-50 (51 beside 1), AS-TS the extra tooth next to primary tooth A-T.

const SUPERNUMERARY = /^(?:5[1-9]|[67][0-9]|8[0-2]|[A-T]S)$/;

/** The canonical form (letters upper case) of a chart tooth number, or null. */
export function chartTooth(input: string): string | null {
  const s = input.trim().toUpperCase();
  return toothOf(s)?.tooth ?? (SUPERNUMERARY.test(s) ? s : null);
}

export const isPrimary = (t: string) => /^[A-T]$/.test(t);
export const isPermanent = (t: string) => /^(?:[1-9]|[12][0-9]|3[0-2])$/.test(t);

/** Chart order: 1-32, then A-T, then 51-82, then AS-TS. */
export function toothOrder(t: string): number {
  if (/^\d+$/.test(t)) return Number(t) + (Number(t) > 50 ? 100 : 0);
  return (t.length === 1 ? 100 : 200) + t.charCodeAt(0) - 65;
}
export const byTooth = <T extends { tooth_number: string }>(a: T, b: T) => toothOrder(a.tooth_number) - toothOrder(b.tooth_number);

const TOOTH_MESSAGES = {
  any: "Must be a Universal tooth number: 1-32, A-T, or supernumerary 51-82 / AS-TS",
  primary: "Must be a primary tooth letter A-T",
  permanent: "Must be a permanent tooth number 1-32",
} as const;

/** A tooth number field in a request; case-insensitive, answered in canonical form. */
export function ToothField(kind: keyof typeof TOOTH_MESSAGES = "any") {
  const ok = (t: string | null) => !!t && (kind === "any" || (kind === "primary" ? isPrimary(t) : isPermanent(t)));
  return z
    .string()
    .max(3)
    .refine((v) => ok(chartTooth(v)), TOOTH_MESSAGES[kind])
    .transform((v) => chartTooth(v)!)
    .describe(`${TOOTH_MESSAGES[kind].slice(8)} (case-insensitive)`);
}

/**
 * Each primary tooth's permanent successor (Universal numbering). Same arch and
 * side, same position from the midline: incisors by incisors, canines by canines,
 * primary first and second molars by the first and second premolars.
 */
export const SUCCESSOR: Readonly<Record<string, string>> = {
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
};
