import { z } from "zod";
import { BaseVersion, DateTime, QueryBool, RecordMeta, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

/**
 * A recall interval: months, weeks and days added in that order (a month
 * added to the 31st lands on the month's last day). Each a whole number, at
 * least one above zero (422 invalid_interval).
 */
export const Interval = z
  .strictObject({
    months: z.number().int().min(0).max(120).default(0).describe("0-120"),
    weeks: z.number().int().min(0).max(520).default(0).describe("0-520"),
    days: z.number().int().min(0).max(3650).default(0).describe("0-3650"),
  })
  .meta({ id: "RecallInterval" });
export type Interval = z.infer<typeof Interval>;

export const IntervalOut = z.object({ months: z.number().int(), weeks: z.number().int(), days: z.number().int() });

/** One character per 10 minutes of the appointment: X the provider, / the assistant (Open Dental's time pattern). */
export const TimePattern = z
  .string()
  .min(1)
  .max(72)
  .regex(/^[X/]+$/, "Must be made of X (provider) and / (assistant), one per 10 minutes")
  .describe("One character per 10 minutes: X the provider's time, / the assistant's (at most 72: 12 hours)");

const fields = {
  name: z.string().trim().min(1).max(100).describe('Shown on the recall list, e.g. "Prophy"'),
  interval: Interval.describe("How long after the last completed trigger the recall falls due; at least one part above zero"),
  trigger_procedure_code_uuids: z
    .array(Uuid)
    .min(1)
    .max(20)
    .refine((ids) => new Set(ids).size === ids.length, "Must not repeat a procedure code")
    .describe("Procedure codes of this org whose completion resets the recall (404 naming an unknown one)"),
  default_appointment_type_uuid: Uuid.nullable().describe("The appointment type a recall of this type is booked as (404 when unknown)"),
  time_pattern: TimePattern.nullable(),
  is_perio: z.boolean().describe("A perio recall replaces the prophy and child prophy recalls while it is live and not disabled"),
};

export const RecallTypeCreate = z
  .strictObject({
    name: fields.name,
    interval: fields.interval,
    trigger_procedure_code_uuids: fields.trigger_procedure_code_uuids,
    default_appointment_type_uuid: fields.default_appointment_type_uuid.optional(),
    time_pattern: fields.time_pattern.optional(),
    is_perio: fields.is_perio.optional().describe("Default false"),
  })
  .meta({ readOnly: ["default_length_minutes", "seed_key", "archived_at", "trigger_procedure_codes", "default_appointment_type"] });
export type RecallTypeCreate = z.infer<typeof RecallTypeCreate>;

export const RecallTypePatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(fields).partial().shape })
  .meta({ readOnly: ["default_length_minutes", "seed_key", "archived_at", "trigger_procedure_codes", "default_appointment_type"] });
export type RecallTypePatch = z.infer<typeof RecallTypePatch>;

export const TriggerCode = z
  .object({ uuid: z.string(), code: z.string(), name: z.string().nullable().describe("The code's short name") })
  .meta({ id: "RecallTriggerCode" });

export const RecallType = z
  .object({
    ...RecordMeta,
    name: z.string(),
    interval: IntervalOut,
    trigger_procedure_codes: z.array(TriggerCode).describe("The codes whose completion resets the recall, in the order given"),
    default_appointment_type: z.object({ uuid: z.string(), name: z.string().nullable() }).nullable(),
    time_pattern: z.string().nullable(),
    default_length_minutes: z
      .number()
      .int()
      .nullable()
      .describe("Read-only: 10 minutes per character of time_pattern; without one the default appointment type's duration; else null"),
    is_perio: z.boolean(),
    seed_key: z.string().nullable().describe("The seeded kind it started as (prophy, perio, child_prophy, bitewings, pano); null for the practice's own"),
    archived_at: DateTime.nullable().describe("Set when archived: the type leaves lists (include_archived shows it) and takes no new recalls"),
  })
  .meta({ id: "RecallType" });
export type RecallType = z.infer<typeof RecallType>;

export const RecallTypeListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  include_archived: QueryBool.optional().describe("Default false"),
});
export type RecallTypeListQuery = z.infer<typeof RecallTypeListQuery>;
