import { and, asc, count, eq, gt, gte, inArray, isNull, lt, lte, sql, sum } from "drizzle-orm";
import { appointments } from "@db/tenant/appointments";
import { operatories } from "@db/tenant/practice";
import { definitions } from "@db/tenant/definitions";
import { blockouts, productionGoals } from "@db/tenant/scheduling";
import { all, type Work } from "@/platform/db/work";
import { formatCents } from "@/platform/money";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { OPERATORY_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { namesOfEach, ref } from "@/platform/records/refs";
import { dayBoundsUtc, dayHours } from "@/platform/time/zoned";
import { locationRecords } from "@/domains/providers/locations/service";
import { listAppointments } from "@/domains/scheduling/appointments/reads";
import { APPOINTMENT_STATUSES, SLOT_FREEING_STATUSES, type Appointment } from "@/domains/scheduling/appointments/schemas";
import { MAX_BLOCKOUT_MS, presentBlockouts } from "@/domains/scheduling/blockouts/service";
import type { Blockout } from "@/domains/scheduling/blockouts/schemas";
import { datesBetween, loadSchedule, providerDays } from "@/domains/scheduling/provider-schedules/hours";
import {
  DEFAULT_FIELDS,
  type CalendarDay,
  type DailyCalendar,
  type DailyQuery,
  type DailyProviders,
  type DailyProvidersQuery,
  type DayField,
  type MonthlyCalendar,
  type MonthlyQuery,
  type ProviderDay,
  type WeeklyCalendar,
  type WeeklyQuery,
} from "./schemas";

type Location = { id: string; name: string; timezone: string };

/** Each date's providers and their effective hours, with names. */
function* providerSchedulesFor(db: TenantDb, locationId: string, dates: string[]): Work<Map<string, ProviderDay[]>> {
  const schedule = yield* loadSchedule(db, locationId, dates[0]!, dates.at(-1)!);
  const perDate = dates.map((d) => [d, providerDays(schedule, d)] as const);
  const n = yield* namesOfEach(db, {
    providers: [PROVIDER_NAMES, schedule.providers.map((p) => p.id)],
    operatories: [OPERATORY_NAMES, perDate.flatMap(([, days]) => days.flatMap((x) => x.shifts.map((s) => s.operatory_id)))],
  });
  return new Map(
    perDate.map(([d, days]) => [
      d,
      days.map((x) => ({
        provider: ref(x.provider_id, n.providers),
        is_unavailable: x.is_unavailable,
        override: x.override ? { uuid: x.override.id, override_reason: x.override.override_reason } : null,
        hours: x.shifts.map((s) => ({ start_time: s.start_time, end_time: s.end_time, operatory: ref(s.operatory_id, n.operatories) })),
      })),
    ]),
  );
}

/** Holiday names by date, from the org's definitions (category holidays, item_value = the date); hidden items do not count. */
function* holidaysOn(db: TenantDb, dates: string[]): Work<Map<string, string>> {
  const rows = yield* all(
    db
      .select({ date: definitions.item_value, name: definitions.item_name })
      .from(definitions)
      .where(
        and(eq(definitions.category, "holidays"), isNull(definitions.deleted_at), eq(definitions.is_hidden, false), inArray(definitions.item_value, dates)),
      )
      .orderBy(asc(definitions.item_order), asc(definitions.id)),
  );
  const out = new Map<string, string>();
  for (const r of rows) if (r.date && !out.has(r.date)) out.set(r.date, r.name);
  return out;
}

/** The location's live operatories in column order. */
function* columns(db: TenantDb, locationId: string) {
  const rows = yield* all(
    db
      .select()
      .from(operatories)
      .where(and(eq(operatories.location_id, locationId), isNull(operatories.deleted_at)))
      .orderBy(asc(operatories.item_order), asc(operatories.name), asc(operatories.id)),
  );
  return rows.map((o) => ({ uuid: o.id, name: o.name, abbreviation: o.abbreviation, item_order: o.item_order }));
}

/** Every page of the appointments list (the appointments domain serializes them), except cancelled ones. */
async function appointmentsBetween(ctx: OrgContext, locationId: string, from: string, to: string): Promise<Appointment[]> {
  const out: Appointment[] = [];
  const status = APPOINTMENT_STATUSES.filter((s) => s !== "cancelled");
  for (let page = 1; ; page++) {
    const r = await listAppointments(ctx, { location_uuid: locationId, date_from: from, date_to: to, status, page, page_size: 200 });
    out.push(...r.items);
    if (out.length >= r.total || r.items.length === 0) return out;
  }
}

/**
 * The days of a daily or weekly calendar: what `fields` asks for, read with a
 * few range queries for all the dates at once, then split by local date.
 */
async function calendarDays(ctx: OrgContext, locationUuid: string, dates: string[], fields: Set<DayField>) {
  const data = await ctx.db.read(function* (db) {
    const location: Location = yield* locationRecords.require(db, locationUuid);
    const bounds = dates.map((d) => dayBoundsUtc(d, location.timezone));
    const start = bounds[0]!.start,
      end = bounds.at(-1)!.end;
    let blocks: { row: typeof blockouts.$inferSelect; out: Blockout }[] = [];
    if (fields.has("blockouts")) {
      const rows = yield* all<typeof blockouts.$inferSelect>(
        db
          .select()
          .from(blockouts)
          .where(
            and(
              eq(blockouts.location_id, location.id),
              isNull(blockouts.deleted_at),
              gt(blockouts.start_utc, new Date(Date.parse(start) - MAX_BLOCKOUT_MS).toISOString()),
              lt(blockouts.start_utc, end),
              gt(blockouts.end_utc, start),
            ),
          )
          .orderBy(asc(blockouts.start_utc), asc(blockouts.id)),
      );
      const out = yield* presentBlockouts(db, rows);
      blocks = rows.map((row, i) => ({ row, out: out[i]! }));
    }
    return {
      location,
      bounds,
      blocks,
      schedules: fields.has("provider_schedules") ? yield* providerSchedulesFor(db, location.id, dates) : null,
      holidays: fields.has("holiday") ? yield* holidaysOn(db, dates) : null,
      operatories: fields.has("operatories") ? yield* columns(db, location.id) : null,
    };
  });
  const appts = fields.has("appointments") ? await appointmentsBetween(ctx, data.location.id, dates[0]!, dates.at(-1)!) : null;
  const days: CalendarDay[] = dates.map((date, i) => {
    const { start, end } = data.bounds[i]!;
    return {
      date,
      day_hours: dayHours(date, data.location.timezone),
      ...(appts ? { appointments: appts.filter((a) => a.scheduled_start.startsWith(date)) } : {}),
      ...(fields.has("blockouts") ? { blockouts: data.blocks.filter((b) => b.row.start_utc < end && b.row.end_utc > start).map((b) => b.out) } : {}),
      ...(data.schedules ? { provider_schedules: data.schedules.get(date) ?? [] } : {}),
      ...(data.holidays ? { is_holiday: data.holidays.has(date), holiday_name: data.holidays.get(date) ?? null } : {}),
    };
  });
  return { location: data.location, days, operatories: data.operatories };
}

const fieldsOf = (f: DayField[] | undefined) => new Set<DayField>(f ?? DEFAULT_FIELDS);

export async function dailyCalendar(ctx: OrgContext, q: DailyQuery): Promise<DailyCalendar> {
  const { location, days, operatories: ops } = await calendarDays(ctx, q.location_uuid, [q.target_date], fieldsOf(q.fields));
  return { ...days[0]!, location_timezone: location.timezone, ...(ops ? { operatories: ops } : {}) };
}

export async function weeklyCalendar(ctx: OrgContext, q: WeeklyQuery): Promise<WeeklyCalendar> {
  const first = Temporal.PlainDate.from(q.week_start);
  const dates = datesBetween(q.week_start, first.add({ days: 6 }).toString());
  const { location, days, operatories: ops } = await calendarDays(ctx, q.location_uuid, dates, fieldsOf(q.fields));
  return { week_start: q.week_start, location_timezone: location.timezone, ...(ops ? { operatories: ops } : {}), days };
}

/** Per-day counts, scheduled production, production goals and holidays of a month; no appointment detail. */
export async function monthlyCalendar(ctx: OrgContext, q: MonthlyQuery): Promise<MonthlyCalendar> {
  return ctx.db.read(function* (db) {
    const location = yield* locationRecords.require(db, q.location_uuid);
    const month = Temporal.PlainYearMonth.from(q.month);
    const dates = datesBetween(month.toPlainDate({ day: 1 }).toString(), month.toPlainDate({ day: month.daysInMonth }).toString());
    const start = dayBoundsUtc(dates[0]!, location.timezone).start,
      end = dayBoundsUtc(dates.at(-1)!, location.timezone).end;
    const day = sql<string>`substr(${appointments.scheduled_start}, 1, 10)`;
    // counts and fee totals per local day and status; production keeps the statuses that hold time
    const counted = yield* all<{ day: string; status: string; n: number; cents: string | null }>(
      db
        .select({
          day,
          status: appointments.status,
          n: count(),
          cents: sum(appointments.fee_cents),
        })
        .from(appointments)
        .where(
          and(eq(appointments.location_id, location.id), isNull(appointments.deleted_at), gte(appointments.start_utc, start), lt(appointments.start_utc, end)),
        )
        .groupBy(day, appointments.status),
    );
    const goals = yield* all<{ day: string; cents: string | null }>(
      db
        .select({ day: productionGoals.goal_date, cents: sum(productionGoals.goal_cents) })
        .from(productionGoals)
        .where(and(eq(productionGoals.location_id, location.id), gte(productionGoals.goal_date, dates[0]!), lte(productionGoals.goal_date, dates.at(-1)!)))
        .groupBy(productionGoals.goal_date),
    );
    const holidays = yield* holidaysOn(db, dates);
    const goalOf = new Map(goals.map((g) => [g.day, Number(g.cents ?? 0)]));
    return {
      month: q.month,
      location_timezone: location.timezone,
      days: dates.map((date) => {
        const counts: Record<string, number> = {};
        let holding = 0,
          production = 0;
        for (const c of counted) {
          if (c.day !== date) continue;
          counts[c.status] = c.n;
          if ((SLOT_FREEING_STATUSES as readonly string[]).includes(c.status)) continue;
          holding += c.n;
          production += Number(c.cents ?? 0);
        }
        return {
          date,
          day_hours: dayHours(date, location.timezone),
          appointment_count: holding,
          counts,
          production: formatCents(production)!,
          goal: formatCents(goalOf.get(date) ?? 0)!,
          is_holiday: holidays.has(date),
          holiday_name: holidays.get(date) ?? null,
        };
      }),
    };
  });
}

export async function dailyProviders(ctx: OrgContext, q: DailyProvidersQuery): Promise<DailyProviders> {
  return ctx.db.read(function* (db) {
    const location = yield* locationRecords.require(db, q.location_uuid);
    const days = yield* providerSchedulesFor(db, location.id, [q.date]);
    return { date: q.date, location: { uuid: location.id, name: location.name }, location_timezone: location.timezone, providers: days.get(q.date) ?? [] };
  });
}
