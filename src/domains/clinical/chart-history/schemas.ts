import { z } from "zod";
import { DateOnly } from "@/platform/records/fields";
import { ChartedProcedure } from "@/domains/clinical/charted-procedures/schemas";
import { Condition } from "@/domains/clinical/conditions/schemas";
import { ToothStatus } from "@/domains/clinical/tooth-chart/schemas";

export const AtDateQuery = z.strictObject({ date: DateOnly.describe("The day to show the chart as of (YYYY-MM-DD)") });
export type AtDateQuery = z.infer<typeof AtDateQuery>;

export const ChartAtDate = z
  .object({
    snapshot_date: z.string().describe("The date asked for"),
    tooth_statuses: z
      .array(ToothStatus)
      .describe("Per tooth, the record in effect on the date (docs/clinical/chart-history.md); chart order 1-32, A-T, supernumerary"),
    charted_procedures: z.array(ChartedProcedure).describe("Not deleted, date_service on or before the date, with their current status; by date_service"),
    patient_conditions: z.array(Condition).describe("Not deleted, identified on or before the date and not resolved by then (date_resolved null or after it)"),
  })
  .meta({ id: "ChartAtDate" });
export type ChartAtDate = z.infer<typeof ChartAtDate>;

export const TimelineQuery = z.strictObject({});

export const TIMELINE_SOURCES = ["tooth_statuses", "procedures", "conditions", "conditions_resolved"] as const;
export type TimelineSource = (typeof TIMELINE_SOURCES)[number];

export const TimelineEvent = z
  .object({
    date: z.string().describe("YYYY-MM-DD"),
    counts: z.object({
      tooth_statuses: z.number().int().describe("Tooth-status records taking effect that day (superseded and deleted ones included: they shape the history)"),
      procedures: z.number().int().describe("Charted procedures (not deleted) with that date_service"),
      conditions: z.number().int().describe("Conditions (not deleted) identified that day"),
      conditions_resolved: z.number().int().describe("Conditions (not deleted) resolved that day"),
    }),
  })
  .meta({ id: "ChartTimelineEvent" });
export type TimelineEvent = z.infer<typeof TimelineEvent>;

export const ChartTimeline = z
  .object({
    events: z.array(TimelineEvent).describe("Dates with chart activity, oldest first"),
    total: z.number().int().describe("Number of events (dates)"),
  })
  .meta({ id: "ChartTimeline" });
