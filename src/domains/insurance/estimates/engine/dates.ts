import type { IsoDate } from "./types";

// Calendar arithmetic on "YYYY-MM-DD" strings: plain integers, no time zone and
// no clock, so the engine stays pure (tests compare it with Temporal.PlainDate).
// ISO dates compare correctly as strings.

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface Ymd {
  y: number;
  m: number;
  d: number;
}

export const isLeapYear = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

export function daysInMonth(y: number, m: number): number {
  if (m === 2) return isLeapYear(y) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** The parts of a real calendar date, or null ("2026-02-30" is null). */
export function parseDate(value: string): Ymd | null {
  const m = DATE_RE.exec(value);
  if (!m) return null;
  const ymd = { y: Number(m[1]), m: Number(m[2]), d: Number(m[3]) };
  if (ymd.m < 1 || ymd.m > 12 || ymd.d < 1 || ymd.d > daysInMonth(ymd.y, ymd.m)) return null;
  return ymd;
}

function ymd(value: IsoDate): Ymd {
  const parts = parseDate(value);
  if (!parts) throw new RangeError(`Not a YYYY-MM-DD date: ${value}`);
  return parts;
}

export const formatDate = ({ y, m, d }: Ymd): IsoDate => `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;

/** date + n months; a day past the end of the target month becomes its last day (Jan 31 + 1 month = Feb 28 or 29). */
export function addMonths(date: IsoDate, n: number): IsoDate {
  const { y, m, d } = ymd(date);
  const index = y * 12 + (m - 1) + n;
  const ty = Math.floor(index / 12);
  const tm = index - ty * 12 + 1;
  return formatDate({ y: ty, m: tm, d: Math.min(d, daysInMonth(ty, tm)) });
}

/** The benefit year containing `date`: [start, end), starting on the 1st of startMonth. */
export function benefitYearOf(date: IsoDate, startMonth: number): { start: IsoDate; end: IsoDate } {
  const { y, m } = ymd(date);
  const startYear = m >= startMonth ? y : y - 1;
  const start = formatDate({ y: startYear, m: startMonth, d: 1 });
  return { start, end: formatDate({ y: startYear + 1, m: startMonth, d: 1 }) };
}

/** The benefit year holding `date` with its last day (inclusive): how the API shows it. */
export function benefitYearShown(date: IsoDate, startMonth: number): { start: IsoDate; end: IsoDate } {
  const { y, m } = ymd(date);
  const startYear = m >= startMonth ? y : y - 1;
  // the last day computed directly: the exclusive end of a year starting in 9999 would be year 10000, not a YYYY date
  const last = startMonth === 1 ? { y: startYear, m: 12, d: 31 } : { y: startYear + 1, m: startMonth - 1, d: daysInMonth(startYear + 1, startMonth - 1) };
  return { start: formatDate({ y: startYear, m: startMonth, d: 1 }), end: formatDate(last) };
}

/** The day before a date. */
export function dayBefore(date: IsoDate): IsoDate {
  const { y, m, d } = ymd(date);
  if (d > 1) return formatDate({ y, m, d: d - 1 });
  const py = m === 1 ? y - 1 : y;
  const pm = m === 1 ? 12 : m - 1;
  return formatDate({ y: py, m: pm, d: daysInMonth(py, pm) });
}

/**
 * Age in whole years on `date`. The birthday has to be reached: someone born
 * on Feb 29 turns a year older on Mar 1 in a common year.
 */
export function ageOn(dateOfBirth: IsoDate, date: IsoDate): number {
  const b = ymd(dateOfBirth);
  const t = ymd(date);
  const reached = t.m > b.m || (t.m === b.m && t.d >= b.d);
  return t.y - b.y - (reached ? 0 : 1);
}
