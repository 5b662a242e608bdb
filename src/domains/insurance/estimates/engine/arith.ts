import { formatCents } from "@/platform/money";
import type { Cents } from "./types";

// Integer-cent arithmetic. Every amount is a non-negative integer; a
// percentage is applied once, rounding half up (12.345 -> 12.35 dollars).

/** amount * percent / 100, rounded half up to a cent. amount >= 0, percent an integer 0-100. */
export function percentOf(amount: Cents, percent: number): Cents {
  // floor((2*a*p + 100) / 200) is a*p/100 rounded half up, exactly, for a*p < 2^52.
  return Math.floor((2 * amount * percent + 100) / 200);
}

export const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), high);

export const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** "1234.50" for warnings and notes. */
export const dollars = (cents: Cents): string => formatCents(cents) as string;
