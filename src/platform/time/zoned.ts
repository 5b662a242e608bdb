import { invalid } from "@/platform/errors";

// Wall-clock times of a practice's IANA zone and the UTC instants they mean,
// through the runtime's Temporal (DST rules come from the ICU time-zone data).

const LOCAL_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/;
const OFFSET_RE = /(Z|[+-]\d{2}:?\d{2})$/i;

/** "2026-03-08T10:00:00": seconds always present, no fraction, no offset. */
export function formatWallClock(dt: Temporal.PlainDateTime): string {
  return dt.toString({ smallestUnit: "second" });
}

/**
 * A request's date-time in the location's zone. Without an offset it is the
 * zone's wall clock; with one (or Z) it is an instant, converted into the
 * zone. A wall-clock time that does not exist (the spring-forward gap) is 422;
 * an ambiguous one (the repeated fall-back hour) means its first occurrence.
 */
export function toZoned(value: string, timeZone: string, loc: (string | number)[]): Temporal.ZonedDateTime {
  try {
    if (OFFSET_RE.test(value)) return Temporal.Instant.from(value).toZonedDateTimeISO(timeZone);
    if (!LOCAL_RE.test(value)) throw new Error("format");
    const local = Temporal.PlainDateTime.from(value);
    const zoned = local.toZonedDateTime(timeZone, { disambiguation: "earlier" });
    if (!zoned.toPlainDateTime().equals(local)) {
      throw invalid(loc, `This time does not exist in ${timeZone} (clocks move forward)`, "value_error");
    }
    return zoned;
  } catch (err) {
    if (err instanceof Error && err.name !== "RangeError" && err.message !== "format" && !(err instanceof TypeError)) throw err;
    throw invalid(loc, "Must be an ISO 8601 date-time, e.g. 2026-03-08T10:00:00", "format");
  }
}

/** ISO instant in UTC with Z, millisecond precision: sortable as text. */
export function utcIso(z: Temporal.ZonedDateTime): string {
  return new Date(z.epochMilliseconds).toISOString();
}

/** The location's wall clock of a UTC instant. */
export function wallClockOf(utc: string, timeZone: string): string {
  return formatWallClock(Temporal.Instant.from(utc).toZonedDateTimeISO(timeZone).toPlainDateTime());
}

/** Wall-clock hours in a local day: 23 on spring-forward, 25 on fall-back, else 24. */
export function dayHours(date: string, timeZone: string): number {
  const start = Temporal.PlainDate.from(date).toZonedDateTime({ timeZone });
  return start.hoursInDay;
}

/** The UTC instants bounding a local date (start inclusive, end exclusive). */
export function dayBoundsUtc(date: string, timeZone: string): { start: string; end: string } {
  const start = Temporal.PlainDate.from(date).toZonedDateTime({ timeZone });
  return { start: utcIso(start), end: utcIso(start.add({ days: 1 })) };
}
