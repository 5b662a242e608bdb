import { and, eq, gt, isNull, lt, ne, notInArray, sql } from "drizzle-orm";
import { appointments } from "@db/tenant/appointments";
import { allPrepared, prepared, type Work } from "@/platform/db/work";
import { Conflict, invalid } from "@/platform/errors";
import type { TenantDb } from "@/platform/records/context";
import { formatWallClock, toZoned, utcIso } from "@/platform/time/zoned";
import { overlapAllowed } from "@/domains/scheduling/appointment-types/service";
import { SLOT_FREEING_STATUSES } from "./schemas";

/** Longest appointment accepted; also what bounds the overlap query's index range. */
export const MAX_APPOINTMENT_MS = 24 * 60 * 60 * 1000;

/** A booking window: the location's wall clock (what clients see) and the UTC instants (what overlap compares). */
export type Window = { scheduled_start: string; scheduled_end: string; start_utc: string; end_utc: string };

/** A request date-time in the location's zone, to whole seconds (both forms then agree). */
export function zonedSecond(value: string, timeZone: string, field: string): Temporal.ZonedDateTime {
  return toZoned(value, timeZone, ["body", field]).round({ smallestUnit: "second", roundingMode: "trunc" });
}

export function windowOf(start: Temporal.ZonedDateTime, end: Temporal.ZonedDateTime): Window {
  return {
    scheduled_start: formatWallClock(start.toPlainDateTime()),
    scheduled_end: formatWallClock(end.toPlainDateTime()),
    start_utc: utcIso(start),
    end_utc: utcIso(end),
  };
}

/**
 * The window's own rules: end after start, at least the type's duration and at
 * most 24 hours, all in real elapsed time (a 01:00–03:00 booking on a
 * spring-forward day lasts one hour).
 */
export function checkWindow(w: Window, durationMinutes: number): void {
  const ms = Date.parse(w.end_utc) - Date.parse(w.start_utc);
  if (ms <= 0) throw invalid(["body", "scheduled_end"], "Must be after scheduled_start", "value_error", "invalid_window");
  if (ms < durationMinutes * 60_000) {
    throw invalid(["body", "scheduled_end"], `The appointment type needs at least ${durationMinutes} minutes`, "value_error", "shorter_than_type_duration");
  }
  if (ms > MAX_APPOINTMENT_MS) throw invalid(["body", "scheduled_end"], "An appointment lasts at most 24 hours", "value_error", "invalid_window");
}

export type Slot = {
  window: Window;
  providerId: string;
  operatoryId: string | null;
  typeId: string;
  locationId: string;
  /** the appointment being rescheduled: it never conflicts with itself */
  exceptId?: string;
};

type Overlap = { id: string; appointment_type_id: string; location_id: string };

// On the booking path: compiled once per connection, one statement per column.
const overlapQuery = (column: typeof appointments.provider_id | typeof appointments.operatory_id) =>
  prepared<Overlap>((db: TenantDb) =>
    db
      .select({ id: appointments.id, appointment_type_id: appointments.appointment_type_id, location_id: appointments.location_id })
      .from(appointments)
      .where(
        and(
          eq(column, sql.placeholder("who")),
          // lower bound from the maximum length: keeps the (provider|operatory, start_utc) index range short
          gt(appointments.start_utc, sql.placeholder("earliest")),
          lt(appointments.start_utc, sql.placeholder("end")),
          gt(appointments.end_utc, sql.placeholder("start")), // touching ends do not overlap
          notInArray(appointments.status, [...SLOT_FREEING_STATUSES]), // cancelled and broken free the slot
          isNull(appointments.deleted_at),
          ne(appointments.id, sql.placeholder("except")),
        ),
      )
      .prepare(),
  );
const byProvider = overlapQuery(appointments.provider_id);
const byOperatory = overlapQuery(appointments.operatory_id);

/**
 * 409 booking_conflict when the provider or the operatory already has a
 * non-cancelled, non-broken appointment overlapping the window, unless an appointment rule
 * lets the two types overlap at this location. Runs inside the same write
 * transaction as the insert or update (BEGIN IMMEDIATE): no booking can slip in between.
 */
export function* assertSlotFree(db: TenantDb, slot: Slot): Work<void> {
  const window = {
    earliest: new Date(Date.parse(slot.window.start_utc) - MAX_APPOINTMENT_MS).toISOString(),
    start: slot.window.start_utc,
    end: slot.window.end_utc,
    except: slot.exceptId ?? "",
  };
  const checks: [string, typeof byProvider, string | null][] = [
    ["provider", byProvider, slot.providerId],
    ["operatory", byOperatory, slot.operatoryId],
  ];
  for (const [what, query, who] of checks) {
    if (!who) continue;
    for (const other of yield* allPrepared(db, query, { who, ...window })) {
      // a provider is never in two locations at once, whatever the rules of either
      const allowed = other.location_id === slot.locationId && (yield* overlapAllowed(db, other.appointment_type_id, slot.typeId, slot.locationId));
      if (!allowed) throw new Conflict(`The ${what} already has an appointment in this window`, "booking_conflict");
    }
  }
}
