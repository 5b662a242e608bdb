import { z } from "zod";
import { BaseVersion, DateTime, RecordMeta, Ref, TimeZone, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

const editable = {
  name: z.string().trim().min(1).max(200),
  timezone: TimeZone.describe("IANA time zone of the practice, e.g. America/Chicago"),
  address_line1: z.string().max(200).nullable(),
  address_line2: z.string().max(200).nullable(),
  city: z.string().max(100).nullable(),
  state: z.string().max(100).nullable(),
  postal_code: z.string().max(20).nullable(),
  country: z.string().max(2).nullable().describe("ISO 3166-1 alpha-2"),
  phone: z.string().max(40).nullable(),
  email: z.email().max(320).nullable(),
  fee_schedule_uuid: Uuid.nullable().describe(
    "The fee schedule of work done here when neither the patient nor the provider names one (fee resolution); 404 when it does not exist or is archived",
  ),
};

export const LocationCreate = z
  .strictObject({
    ...editable,
    address_line1: editable.address_line1.optional(),
    address_line2: editable.address_line2.optional(),
    city: editable.city.optional(),
    state: editable.state.optional(),
    postal_code: editable.postal_code.optional(),
    country: editable.country.optional(),
    phone: editable.phone.optional(),
    email: editable.email.optional(),
    fee_schedule_uuid: editable.fee_schedule_uuid.optional(),
  })
  .meta({ readOnly: ["fee_schedule"] });
export type LocationCreate = z.infer<typeof LocationCreate>;

export const LocationPatch = z.strictObject({ base_version: BaseVersion, ...z.object(editable).partial().shape }).meta({ readOnly: ["fee_schedule"] });
export type LocationPatch = z.infer<typeof LocationPatch>;

const { fee_schedule_uuid: _written, ...shown } = editable;
export const Location = z
  .object({
    ...RecordMeta,
    ...shown,
    fee_schedule: Ref.nullable().describe("The location's fee schedule (name: the schedule's)"),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "Location" });
export type Location = z.infer<typeof Location>;

export const LocationListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  search: z.string().max(200).optional().describe("Case-insensitive substring of the name"),
});
