import { z } from "zod";
import { BaseVersion, BaseVersionQuery, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

/** A time of day, 24-hour "HH:MM" (00:00-23:59); also used by scheduling preferences. */
export const TimeOfDay = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, "Must be a time HH:MM (00:00-23:59)");

export const VIEW_TYPES = ["daily", "weekly"] as const;
export const VISIBILITIES = ["shared", "personal"] as const;
export const TIME_INCREMENTS = [5, 10, 15, 20, 30, 60] as const;

const uniqueIds = (what: string) =>
  z
    .array(Uuid)
    .max(100)
    .refine((ids) => new Set(ids).size === ids.length, "Must not repeat an id")
    .describe(`${what}; empty means all of them`);

const fields = {
  name: z.string().trim().min(1).max(100),
  view_type: z.enum(VIEW_TYPES),
  visibility: z.enum(VISIBILITIES).describe("personal: visible only to its creator (others get 404); shared: every schedule.read member"),
  min_operatory_width_px: z.number().int().min(0).max(2000).describe("Minimum column width in pixels; 0 means auto"),
  operatory_uuids: uniqueIds("Operatory columns shown, in order; each must be a live operatory of the view's location (404 unknown, 422 other location)"),
  provider_uuids: uniqueIds("Providers shown; each must be a live provider of this org (404 otherwise)"),
  privacy_mode: z.boolean().describe("Hide patient names on the schedule"),
  show_business_days_only: z.boolean(),
  show_missed_appointments: z.boolean(),
  show_production: z.boolean(),
  show_provider_bars: z.boolean(),
  start_time: TimeOfDay.describe("First time of day shown, HH:MM"),
  time_increment: z.literal(TIME_INCREMENTS).describe("Minutes per row: 5, 10, 15, 20, 30 or 60"),
};

// is_default and keyboard_shortcut belong to each user: set-default and set-shortcut change them.
const derived = ["is_default", "keyboard_shortcut", "location"];

export const ScheduleViewCreate = z
  .strictObject({
    location_uuid: Uuid.describe("A non-archived location of this org (404 otherwise); fixed once created"),
    name: fields.name,
    view_type: fields.view_type,
    visibility: fields.visibility,
    min_operatory_width_px: fields.min_operatory_width_px.default(0),
    operatory_uuids: fields.operatory_uuids.default([]),
    provider_uuids: fields.provider_uuids.default([]),
    privacy_mode: fields.privacy_mode.default(false),
    show_business_days_only: fields.show_business_days_only.default(false),
    show_missed_appointments: fields.show_missed_appointments.default(false),
    show_production: fields.show_production.default(false),
    show_provider_bars: fields.show_provider_bars.default(true),
    start_time: fields.start_time.default("07:00"),
    time_increment: fields.time_increment.default(10),
  })
  .meta({ readOnly: derived });
export type ScheduleViewCreate = z.infer<typeof ScheduleViewCreate>;

export const ScheduleViewPatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(fields).partial().shape })
  .meta({ readOnly: [...derived, "location_uuid"] });
export type ScheduleViewPatch = z.infer<typeof ScheduleViewPatch>;

export const ScheduleViewShortcut = z.strictObject({
  keyboard_shortcut: z
    .number()
    .int()
    .min(1)
    .max(9)
    .nullable()
    .describe("1-9 for the calling user, or null to clear; a key moves off the user's other view that had it"),
});
export type ScheduleViewShortcut = z.infer<typeof ScheduleViewShortcut>;

export const ScheduleViewDefault = z.strictObject({
  is_default: z.boolean().describe("true: the calling user's default view for its location (replacing the previous one); false: clear it"),
});
export type ScheduleViewDefault = z.infer<typeof ScheduleViewDefault>;

export const ScheduleView = z
  .object({
    ...RecordMeta,
    location: Ref,
    name: z.string(),
    view_type: z.enum(VIEW_TYPES),
    visibility: z.enum(VISIBILITIES),
    is_default: z.boolean().describe("Derived per user: true for the view the calling user chose as default for this location"),
    keyboard_shortcut: z.number().int().nullable().describe("Derived per user: the calling user's key 1-9 for this view"),
    min_operatory_width_px: z.number().int(),
    operatory_uuids: z.array(z.string()),
    provider_uuids: z.array(z.string()),
    privacy_mode: z.boolean(),
    show_business_days_only: z.boolean(),
    show_missed_appointments: z.boolean(),
    show_production: z.boolean(),
    show_provider_bars: z.boolean(),
    start_time: z.string().describe("HH:MM"),
    time_increment: z.number().int().describe("Minutes"),
  })
  .meta({ id: "ScheduleView" });
export type ScheduleView = z.infer<typeof ScheduleView>;

export const ScheduleViewListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  location_uuid: Uuid.optional().describe("Only this location's views; an unknown or archived location is 404"),
  visibility: z.enum(VISIBILITIES).optional(),
});
export type ScheduleViewListQuery = z.infer<typeof ScheduleViewListQuery>;

export const ScheduleViewDeleteQuery = z.strictObject({
  base_version: BaseVersionQuery.optional().describe("Optional: when given and stale, 409 version_conflict"),
});
export type ScheduleViewDeleteQuery = z.infer<typeof ScheduleViewDeleteQuery>;
