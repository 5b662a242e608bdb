import { and, asc, eq, gte, inArray, isNull, lte, or } from "drizzle-orm";
import { providerSchedules, scheduleOverrides } from "@db/tenant/scheduling";
import { providers } from "@db/tenant/practice";
import { all, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";

// A provider's working hours on a date at a location: the weekly templates in
// effect that date, replaced by that date's override when there is one.
// Calendars, daily-providers and availability all read hours through here.

type Template = typeof providerSchedules.$inferSelect;
type OverrideRow = typeof scheduleOverrides.$inferSelect;

export type Shift = { start_time: string; end_time: string; operatory_id: string | null };
export type ProviderDay = {
  provider_id: string;
  is_unavailable: boolean;
  override: { id: string; override_reason: string } | null;
  shifts: Shift[];
};
export type ScheduleData = {
  /** live providers with a template or override in the range, by last name, first name */
  providers: { id: string; first_name: string; last_name: string }[];
  templates: Template[];
  overrides: OverrideRow[];
};

/**
 * Every template and override of the location that can touch [from, to]
 * (local dates, inclusive): two indexed queries, whatever the range.
 */
export function* loadSchedule(db: TenantDb, locationId: string, from: string, to: string, providerId?: string): Work<ScheduleData> {
  const live = and(eq(providers.id, providerSchedules.provider_id), isNull(providers.deleted_at));
  const templates = yield* all<{ t: Template }>(
    db
      .select({ t: providerSchedules })
      .from(providerSchedules)
      .innerJoin(providers, live)
      .where(
        and(
          eq(providerSchedules.location_id, locationId),
          isNull(providerSchedules.deleted_at),
          providerId ? eq(providerSchedules.provider_id, providerId) : undefined,
          or(isNull(providerSchedules.effective_from), lte(providerSchedules.effective_from, to)),
          or(isNull(providerSchedules.effective_to), gte(providerSchedules.effective_to, from)),
        ),
      )
      .orderBy(asc(providerSchedules.start_time)),
  );
  const overrides = yield* all<OverrideRow>(
    db
      .select()
      .from(scheduleOverrides)
      .where(
        and(
          eq(scheduleOverrides.location_id, locationId),
          isNull(scheduleOverrides.deleted_at),
          gte(scheduleOverrides.override_date, from),
          lte(scheduleOverrides.override_date, to),
          providerId ? eq(scheduleOverrides.provider_id, providerId) : undefined,
        ),
      ),
  );
  const ids = [...new Set([...templates.map((x) => x.t.provider_id), ...overrides.map((o) => o.provider_id)])];
  const people = ids.length
    ? yield* all(
        db
          .select({ id: providers.id, first_name: providers.first_name, last_name: providers.last_name })
          .from(providers)
          .where(and(inArray(providers.id, ids), isNull(providers.deleted_at)))
          .orderBy(providers.last_name, providers.first_name, providers.id),
      )
    : [];
  const liveIds = new Set(people.map((p) => p.id));
  return { providers: people, templates: templates.map((x) => x.t), overrides: overrides.filter((o) => liveIds.has(o.provider_id)) };
}

/** 0 = Sunday ... 6 = Saturday (Temporal counts Monday 1 ... Sunday 7). */
export const weekdayOf = (date: string) => Temporal.PlainDate.from(date).dayOfWeek % 7;

/** The local dates from..to, inclusive. */
export function datesBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = Temporal.PlainDate.from(from); Temporal.PlainDate.compare(d, Temporal.PlainDate.from(to)) <= 0; d = d.add({ days: 1 })) out.push(d.toString());
  return out;
}

/**
 * Each provider's day on `date`, in the order of `data.providers`: providers
 * with no template that weekday and no override are left out; an unavailable
 * override gives an empty day that still shows (the front desk sees why).
 */
export function providerDays(data: ScheduleData, date: string): ProviderDay[] {
  const weekday = weekdayOf(date);
  const out: ProviderDay[] = [];
  for (const p of data.providers) {
    const override = data.overrides.find((o) => o.provider_id === p.id && o.override_date === date);
    if (override) {
      out.push({
        provider_id: p.id,
        is_unavailable: override.is_unavailable,
        override: { id: override.id, override_reason: override.override_reason },
        shifts: override.is_unavailable ? [] : [{ start_time: override.start_time!, end_time: override.end_time!, operatory_id: override.operatory_id }],
      });
      continue;
    }
    const shifts = data.templates
      .filter(
        (t) =>
          t.provider_id === p.id && t.weekday === weekday && (!t.effective_from || t.effective_from <= date) && (!t.effective_to || t.effective_to >= date),
      )
      .map((t) => ({ start_time: t.start_time, end_time: t.end_time, operatory_id: t.operatory_id }));
    if (shifts.length) out.push({ provider_id: p.id, is_unavailable: false, override: null, shifts });
  }
  return out;
}

/**
 * The instant (epoch minutes) a wall-clock time of `date` means in `timeZone`.
 * A time skipped by spring-forward moves forward by the gap (02:30 -> 03:30);
 * a repeated one means its first occurrence (Temporal's "compatible").
 */
export function epochMinuteOf(date: string, time: string, timeZone: string): number {
  const z = Temporal.PlainDate.from(date).toPlainDateTime(Temporal.PlainTime.from(time)).toZonedDateTime(timeZone, { disambiguation: "compatible" });
  return z.epochMilliseconds / 60_000;
}
