import { z } from "zod";
import { DateOnly, QueryList, Ref, Uuid } from "@/platform/records/fields";
import { Appointment } from "@/domains/scheduling/appointments/schemas";
import { Blockout } from "@/domains/scheduling/blockouts/schemas";

/** Keys of `fields`: the first three are sent when `fields` is omitted. */
export const DAY_FIELDS = ["appointments", "blockouts", "provider_schedules", "operatories", "holiday"] as const;
export const DEFAULT_FIELDS: readonly (typeof DAY_FIELDS)[number][] = ["appointments", "blockouts", "provider_schedules"];
export type DayField = (typeof DAY_FIELDS)[number];

const Fields = QueryList(z.enum(DAY_FIELDS), DAY_FIELDS.length)
  .optional()
  .describe(
    "Comma-separated keys to send: appointments, blockouts, provider_schedules (these three by default), operatories (the location's chairs, " +
      "for columns), holiday (is_holiday, holiday_name). date, day_hours and location_timezone are always sent",
  );

export const DailyQuery = z.strictObject({ location_uuid: Uuid, target_date: DateOnly, fields: Fields });
export type DailyQuery = z.infer<typeof DailyQuery>;
export const WeeklyQuery = z.strictObject({ location_uuid: Uuid, week_start: DateOnly.describe("First of the 7 days (any weekday)"), fields: Fields });
export type WeeklyQuery = z.infer<typeof WeeklyQuery>;
export const MonthlyQuery = z.strictObject({ location_uuid: Uuid, month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, "Must be a month YYYY-MM") });
export type MonthlyQuery = z.infer<typeof MonthlyQuery>;
export const DailyProvidersQuery = z.strictObject({ location_uuid: Uuid, date: DateOnly });
export type DailyProvidersQuery = z.infer<typeof DailyProvidersQuery>;

/** A provider's effective hours on a date at the location: templates, or the override that replaces them. */
export const ProviderDay = z
  .object({
    provider: Ref,
    is_unavailable: z.boolean().describe("An override takes the provider off that day"),
    override: z.object({ uuid: z.string(), override_reason: z.string() }).nullable().describe("The override that decided the day, if any"),
    hours: z.array(
      z.object({
        start_time: z.string().describe("HH:MM wall clock"),
        end_time: z.string(),
        operatory: Ref.nullable().describe("null: any free operatory"),
      }),
    ),
  })
  .meta({ id: "ProviderDay" });
export type ProviderDay = z.infer<typeof ProviderDay>;

const OperatoryColumn = z.object({ uuid: z.string(), name: z.string(), abbreviation: z.string().nullable(), item_order: z.number().int() });

const dayShape = {
  date: z.string(),
  day_hours: z.number().int().describe("Hours in this local day: 23 on spring-forward, 25 on fall-back, else 24"),
  appointments: z
    .array(Appointment)
    .optional()
    .describe("Starting that day, every status except cancelled (broken ones show, as missed appointments), by start"),
  blockouts: z.array(Blockout).optional().describe("Touching that day, by start"),
  provider_schedules: z.array(ProviderDay).optional().describe("Providers working (or marked unavailable) that day, by last name"),
  is_holiday: z.boolean().optional(),
  holiday_name: z.string().nullable().optional(),
};

export const DailyCalendar = z
  .object({
    ...dayShape,
    location_timezone: z.string(),
    operatories: z.array(OperatoryColumn).optional(),
  })
  .meta({ id: "DailyCalendar" });
export type DailyCalendar = z.infer<typeof DailyCalendar>;
export type CalendarDay = z.infer<z.ZodObject<typeof dayShape>>;

export const WeeklyCalendar = z
  .object({
    week_start: z.string(),
    location_timezone: z.string(),
    operatories: z.array(OperatoryColumn).optional(),
    days: z.array(z.object(dayShape)).describe("7 days from week_start"),
  })
  .meta({ id: "WeeklyCalendar" });
export type WeeklyCalendar = z.infer<typeof WeeklyCalendar>;

export const MonthlyCalendar = z
  .object({
    month: z.string(),
    location_timezone: z.string(),
    days: z.array(
      z.object({
        date: z.string(),
        day_hours: z.number().int(),
        appointment_count: z.number().int().describe("Appointments starting that day that hold time (not cancelled, not broken)"),
        counts: z.record(z.string(), z.number().int()).describe("Appointments starting that day by status (every status, cancelled and broken included)"),
        production: z
          .string()
          .describe(
            'Scheduled production, dollars: the sum of the fees of that day\'s appointments that hold time (not cancelled, not broken); "0.00" when none',
          ),
        goal: z.string().describe("Sum of the providers' production goals at this location that day, dollars"),
        is_holiday: z.boolean(),
        holiday_name: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: "MonthlyCalendar" });
export type MonthlyCalendar = z.infer<typeof MonthlyCalendar>;

export const DailyProviders = z
  .object({
    date: z.string(),
    location: Ref,
    location_timezone: z.string(),
    providers: z.array(ProviderDay),
  })
  .meta({ id: "DailyProviders" });
export type DailyProviders = z.infer<typeof DailyProviders>;
