import { z } from "zod";
import { BaseVersion, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { CONTACT_METHODS } from "@/domains/patients/record/schemas";
import { TimeOfDay } from "@/domains/scheduling/views/schemas";

const fields = {
  preferred_provider_uuid: Uuid.nullable().describe("A live provider of this org (404 otherwise); null clears"),
  preferred_operatory_uuid: Uuid.nullable().describe("A live operatory of this org (404 otherwise); null clears"),
  preferred_days: z
    .array(z.number().int().min(0).max(6))
    .max(7)
    .refine((d) => new Set(d).size === d.length, "Must not repeat a day")
    .transform((d) => [...d].sort((a, b) => a - b))
    .describe("Weekdays 0-6 with 0 = Sunday (as JavaScript's getDay); returned ascending; [] means any day"),
  preferred_time_start: TimeOfDay.nullable().describe("HH:MM; must be before preferred_time_end when both are set"),
  preferred_time_end: TimeOfDay.nullable().describe("HH:MM"),
  preferred_contact_method: z.enum(CONTACT_METHODS).nullable(),
  notes: z.string().max(2000).describe('Free text for the front desk (never sent on the event stream); default ""'),
  learned_from_history: z.boolean().describe("True when the preference was inferred from past appointments rather than stated; default false"),
};

// The patient is fixed: the by-patient path names it, and PATCH may not move a preference to another patient.
const readOnly = ["patient_uuid", "patient", "preferred_provider", "preferred_operatory"];

export const PreferenceUpsert = z
  .strictObject({
    base_version: BaseVersion.optional().describe("Required when the patient already has a preference (422 if omitted, 409 if stale); omit to create"),
    ...z.object(fields).partial().shape,
  })
  .meta({ readOnly });
export type PreferenceUpsert = z.infer<typeof PreferenceUpsert>;

export const PreferencePatch = z.strictObject({ base_version: BaseVersion, ...z.object(fields).partial().shape }).meta({ readOnly });
export type PreferencePatch = z.infer<typeof PreferencePatch>;

export const SchedulingPreference = z
  .object({
    ...RecordMeta,
    patient: Ref.describe('name is "First Last"'),
    preferred_provider: Ref.nullable(),
    preferred_operatory: Ref.nullable(),
    preferred_days: z.array(z.number().int()),
    preferred_time_start: z.string().nullable(),
    preferred_time_end: z.string().nullable(),
    preferred_contact_method: z.enum(CONTACT_METHODS).nullable(),
    notes: z.string(),
    learned_from_history: z.boolean(),
  })
  .meta({ id: "PatientSchedulingPreference" });
export type SchedulingPreference = z.infer<typeof SchedulingPreference>;

export const PreferenceListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  patient_uuid: Uuid.optional().describe("Only this patient's preference; an unknown patient is 404"),
});
export type PreferenceListQuery = z.infer<typeof PreferenceListQuery>;
