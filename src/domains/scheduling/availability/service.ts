import { and, asc, eq, gt, inArray, isNull, lt, ne, notInArray } from "drizzle-orm";
import { appointments } from "@db/tenant/appointments";
import { operatories } from "@db/tenant/practice";
import { blockouts } from "@db/tenant/scheduling";
import { all, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { dayBoundsUtc } from "@/platform/time/zoned";
import { locationRecords } from "@/domains/providers/locations/service";
import { requireProvider } from "@/domains/providers/record/service";
import { overlapAllowed, requireAppointmentType } from "@/domains/scheduling/appointment-types/service";
import { MAX_APPOINTMENT_MS } from "@/domains/scheduling/appointments/conflicts";
import { SLOT_FREEING_STATUSES } from "@/domains/scheduling/appointments/schemas";
import { MAX_BLOCKOUT_MS } from "@/domains/scheduling/blockouts/service";
import { requireOperatoryAt } from "@/domains/scheduling/provider-schedules/common";
import { datesBetween, loadSchedule, providerDays } from "@/domains/scheduling/provider-schedules/hours";
import { MAX_RANGE_DAYS, SLOT_STEP_MINUTES, type Availability, type AvailabilityQuery } from "./schemas";
import { dayClock, isFree, merge, subtract, type Interval } from "./slots";

const minutes = (iso: string, round: (x: number) => number) => round(Date.parse(iso) / 60_000);
const shiftIso = (iso: string, ms: number) => new Date(Date.parse(iso) - ms).toISOString();

/** 422 unless date_from <= date_to and the range spans at most MAX_RANGE_DAYS days. */
export function checkRange(from: string, to: string) {
  const days = Temporal.PlainDate.from(from).until(Temporal.PlainDate.from(to), { largestUnit: "days" }).days + 1;
  if (days < 1) throw invalid(["query", "date_to"], "Must not be before date_from", "value_error");
  if (days > MAX_RANGE_DAYS) throw invalid(["query", "date_to"], `At most ${MAX_RANGE_DAYS} days from date_from`, "out_of_range");
}

/**
 * Free slots for one appointment type at one location. Everything the range
 * needs is read at once (templates, overrides, blockouts, appointments,
 * operatories: a handful of indexed queries), then computed in memory.
 */
export async function findAvailability(ctx: OrgContext, q: AvailabilityQuery): Promise<Availability> {
  checkRange(q.date_from, q.date_to);
  return ctx.db.read(function* (db) {
    const location = yield* locationRecords.require(db, q.location_uuid);
    const type = yield* requireAppointmentType(db, q.appointment_type_uuid);
    if (q.provider_uuid) yield* requireProvider(db, q.provider_uuid);
    const onlyOperatory = q.operatory_uuid ? (yield* requireOperatoryAt(db, q.operatory_uuid, location.id, ["query", "operatory_uuid"])).id : null;
    if (!type.is_active) throw invalid(["query", "appointment_type_uuid"], "This appointment type is inactive", "value_error", "appointment_type_inactive");

    const tz = location.timezone;
    const range = { start: dayBoundsUtc(q.date_from, tz).start, end: dayBoundsUtc(q.date_to, tz).end };
    const schedule = yield* loadSchedule(db, location.id, q.date_from, q.date_to, q.provider_uuid);
    const providerIds = schedule.providers.map((p) => p.id);
    const ops = (yield* all<{ id: string }>(
      db
        .select({ id: operatories.id })
        .from(operatories)
        .where(and(eq(operatories.location_id, location.id), isNull(operatories.deleted_at)))
        .orderBy(asc(operatories.item_order), asc(operatories.name), asc(operatories.id)),
    )).map((o) => o.id);
    const busy = yield* busyTime(db, location.id, type.id, providerIds, range);

    const dur = type.duration_minutes;
    const providerRank = new Map(providerIds.map((id, i) => [id, i]));
    const found: { at: number; rank: number; slot: Availability["slots"][number] }[] = [];
    for (const date of datesBetween(q.date_from, q.date_to)) {
      const clock = dayClock(date, tz);
      for (const day of providerDays(schedule, date)) {
        const providerBusy = busy.provider.get(day.provider_id) ?? busy.location;
        for (const shift of day.shifts) {
          if (shift.operatory_id && (!ops.includes(shift.operatory_id) || (onlyOperatory && onlyOperatory !== shift.operatory_id))) continue;
          const chairs: (string | null)[] = shift.operatory_id ? [shift.operatory_id] : onlyOperatory ? [onlyOperatory] : ops.length ? ops : [null];
          const ws = clock.minuteOf(shift.start_time);
          const we = clock.minuteOf(shift.end_time);
          for (const [fs, fe] of subtract([ws, we], providerBusy)) {
            // the grid runs from the shift's start, whatever was subtracted
            for (let c = ws + Math.ceil((fs - ws) / SLOT_STEP_MINUTES) * SLOT_STEP_MINUTES; c + dur <= fe; c += SLOT_STEP_MINUTES) {
              const chair = chairs.find((o) => o === null || isFree(busy.operatory.get(o), c, c + dur));
              if (chair === undefined) continue;
              const start = clock.wallOf(c);
              const end = start && clock.wallOf(c + dur);
              if (!start || !end) continue;
              found.push({ at: c, rank: providerRank.get(day.provider_id)!, slot: { start, end, provider_uuid: day.provider_id, operatory_uuid: chair } });
            }
          }
        }
      }
    }
    found.sort((a, b) => a.at - b.at || a.rank - b.rank);
    return {
      location_timezone: tz,
      date_from: q.date_from,
      date_to: q.date_to,
      duration_minutes: dur,
      slot_step_minutes: SLOT_STEP_MINUTES,
      slots: found.map((f) => f.slot),
    };
  });
}

type Busy = { location: Interval[]; provider: Map<string, Interval[]>; operatory: Map<string, Interval[]> };

/**
 * Time taken in the range, as merged interval lists: location-wide blockouts;
 * per provider (its blockouts here, its appointments anywhere); per operatory.
 * Appointments that free their slot (cancelled, broken) are not read; one the
 * appointment rules let overlap the requested type at this location is ignored,
 * exactly as the booking conflict check decides.
 */
function* busyTime(db: TenantDb, locationId: string, typeId: string, providerIds: string[], range: { start: string; end: string }): Work<Busy> {
  const location: Interval[] = [];
  const provider = new Map<string, Interval[]>();
  const operatory = new Map<string, Interval[]>();
  const add = (map: Map<string, Interval[]>, key: string, iv: Interval) => (map.get(key) ?? map.set(key, []).get(key)!).push(iv);

  const blocks = yield* all(
    db
      .select({ p: blockouts.provider_id, o: blockouts.operatory_id, s: blockouts.start_utc, e: blockouts.end_utc })
      .from(blockouts)
      .where(
        and(
          eq(blockouts.location_id, locationId),
          isNull(blockouts.deleted_at),
          gt(blockouts.start_utc, shiftIso(range.start, MAX_BLOCKOUT_MS)),
          lt(blockouts.start_utc, range.end),
          gt(blockouts.end_utc, range.start),
        ),
      ),
  );
  for (const b of blocks) {
    const iv: Interval = [minutes(b.s, Math.floor), minutes(b.e, Math.ceil)];
    if (!b.p && !b.o) location.push(iv);
    if (b.p) add(provider, b.p, iv);
    if (b.o) add(operatory, b.o, iv);
  }

  const cols = {
    p: appointments.provider_id,
    o: appointments.operatory_id,
    l: appointments.location_id,
    t: appointments.appointment_type_id,
    s: appointments.start_utc,
    e: appointments.end_utc,
  };
  const when = and(
    isNull(appointments.deleted_at),
    notInArray(appointments.status, [...SLOT_FREEING_STATUSES]),
    gt(appointments.start_utc, shiftIso(range.start, MAX_APPOINTMENT_MS)),
    lt(appointments.start_utc, range.end),
    gt(appointments.end_utc, range.start),
  );
  // this location's appointments (operatories and providers), and the providers' appointments elsewhere
  const here = yield* all(
    db
      .select(cols)
      .from(appointments)
      .where(and(eq(appointments.location_id, locationId), when)),
  );
  const away = providerIds.length
    ? yield* all(
        db
          .select(cols)
          .from(appointments)
          .where(and(inArray(appointments.provider_id, providerIds), ne(appointments.location_id, locationId), when)),
      )
    : [];
  const overlapOk = new Map<string, boolean>();
  for (const t of new Set(here.map((a) => a.t))) overlapOk.set(t, yield* overlapAllowed(db, t, typeId, locationId));
  for (const a of [...here, ...away]) {
    if (a.l === locationId && overlapOk.get(a.t)) continue;
    const iv: Interval = [minutes(a.s, Math.floor), minutes(a.e, Math.ceil)];
    add(provider, a.p, iv);
    if (a.o) add(operatory, a.o, iv);
  }

  // a provider's busy time includes the location-wide blockouts
  for (const id of providerIds) provider.set(id, merge([...(provider.get(id) ?? []), ...location]));
  for (const [id, list] of operatory) operatory.set(id, merge(list));
  return { location: merge(location), provider, operatory };
}
