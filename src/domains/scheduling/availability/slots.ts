import { formatWallClock } from "@/platform/time/zoned";
import { epochMinuteOf } from "@/domains/scheduling/provider-schedules/hours";

// Interval arithmetic on epoch minutes (real elapsed time), so DST changes cost
// nothing special: a working shift is converted to instants once, and busy
// time is subtracted from it. Intervals are half-open [start, end).

export type Interval = [number, number];

/** Sort and merge overlapping or touching intervals. */
export function merge(list: Interval[]): Interval[] {
  const sorted = [...list].sort((a, b) => a[0] - b[0]);
  const out: Interval[] = [];
  for (const [s, e] of sorted) {
    const last = out.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** `from` minus the merged, sorted `busy`. */
export function subtract(from: Interval, busy: Interval[]): Interval[] {
  const out: Interval[] = [];
  let cursor = from[0];
  for (const [s, e] of busy) {
    if (e <= cursor) continue;
    if (s >= from[1]) break;
    if (s > cursor) out.push([cursor, s]);
    cursor = Math.max(cursor, e);
  }
  if (cursor < from[1]) out.push([cursor, from[1]]);
  return out;
}

/** True when [s, e) overlaps nothing in the merged, sorted `busy` (binary search). */
export function isFree(busy: Interval[] | undefined, s: number, e: number): boolean {
  if (!busy?.length) return true;
  let lo = 0,
    hi = busy.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (busy[mid]![1] <= s) lo = mid + 1;
    else hi = mid;
  }
  return lo === busy.length || busy[lo]![0] >= e;
}

/**
 * The wall clock of an epoch minute, or null when writing it back would mean
 * another instant: the second pass through a repeated fall-back hour (a wall
 * clock sent to /appointments means the first pass).
 */
export function bookableWallClock(minute: number, timeZone: string): string | null {
  const zoned = Temporal.Instant.fromEpochMilliseconds(minute * 60_000).toZonedDateTimeISO(timeZone);
  const wall = zoned.toPlainDateTime();
  const back = wall.toZonedDateTime(timeZone, { disambiguation: "earlier" });
  return back.epochMilliseconds === zoned.epochMilliseconds ? formatWallClock(wall) : null;
}

/** Epoch minutes and wall clocks of one local date of a zone. */
export type DayClock = { minuteOf(time: string): number; wallOf(minute: number): string | null };

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Temporal costs ~10 µs a conversion, and a 14-day search makes thousands.
 * On a date with no offset transition within a day on either side (all but a
 * few dates a year), every wall-clock time of the date exists once and lies a
 * fixed number of minutes after local midnight: plain string building is then
 * exact. Otherwise every conversion goes through Temporal.
 */
export function dayClock(date: string, timeZone: string): DayClock {
  const midnight = Temporal.PlainDate.from(date).toZonedDateTime({ timeZone });
  const transition = midnight.subtract({ days: 1 }).getTimeZoneTransition("next");
  const slow: DayClock = {
    minuteOf: (time) => epochMinuteOf(date, time, timeZone),
    wallOf: (minute) => bookableWallClock(minute, timeZone),
  };
  if (transition && Temporal.ZonedDateTime.compare(transition, midnight.add({ days: 2 })) < 0) return slow;
  const base = midnight.epochMilliseconds / 60_000;
  return {
    minuteOf: (time) => base + Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5)),
    wallOf: (minute) => {
      const k = minute - base;
      return k >= 0 && k < 1440 ? `${date}T${pad(Math.floor(k / 60))}:${pad(k % 60)}:00` : slow.wallOf(minute);
    },
  };
}
