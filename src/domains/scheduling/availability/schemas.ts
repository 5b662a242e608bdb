import { z } from "zod";
import { DateOnly, Uuid } from "@/platform/records/fields";

export const MAX_RANGE_DAYS = 31;
export const SLOT_STEP_MINUTES = 15;

export const AvailabilityQuery = z.strictObject({
  location_uuid: Uuid.describe("Unknown or archived is 404; its zone gives the slots their wall clock"),
  appointment_type_uuid: Uuid.describe("Slots last its duration_minutes; unknown 404, inactive 422 appointment_type_inactive"),
  date_from: DateOnly.describe("First local date searched"),
  date_to: DateOnly.describe(`Last local date searched (inclusive); at most ${MAX_RANGE_DAYS} days in all, not before date_from`),
  provider_uuid: Uuid.optional().describe("Only this provider (404 unknown)"),
  operatory_uuid: Uuid.optional().describe("Only this operatory (404 unknown, 422 operatory_location_mismatch)"),
});
export type AvailabilityQuery = z.infer<typeof AvailabilityQuery>;

const Wall = z.string().describe("Wall clock of the location's zone, no offset: 2026-03-09T09:00:00; POST it as is to /appointments");

export const Slot = z.object({
  start: Wall,
  end: Wall,
  provider_uuid: z.string(),
  operatory_uuid: z.string().nullable().describe("The operatory to book; null only when the location has no operatories"),
});

export const Availability = z
  .object({
    location_timezone: z.string(),
    date_from: z.string(),
    date_to: z.string(),
    duration_minutes: z.number().int().describe("The appointment type's duration: every slot lasts this many real minutes"),
    slot_step_minutes: z.number().int().describe(`Candidate starts are every ${SLOT_STEP_MINUTES} minutes from the start of each working shift`),
    slots: z.array(Slot).describe("Ordered by start, then provider (last, first name), then operatory"),
  })
  .meta({ id: "Availability" });
export type Availability = z.infer<typeof Availability>;
