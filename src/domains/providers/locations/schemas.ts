import { z } from "zod";
import { BaseVersion, DateTime, RecordMeta, TimeZone } from "@/platform/records/fields";
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
};

export const LocationCreate = z.strictObject({
  ...editable,
  address_line1: editable.address_line1.optional(),
  address_line2: editable.address_line2.optional(),
  city: editable.city.optional(),
  state: editable.state.optional(),
  postal_code: editable.postal_code.optional(),
  country: editable.country.optional(),
  phone: editable.phone.optional(),
  email: editable.email.optional(),
});
export type LocationCreate = z.infer<typeof LocationCreate>;

export const LocationPatch = z.strictObject({ base_version: BaseVersion, ...z.object(editable).partial().shape });
export type LocationPatch = z.infer<typeof LocationPatch>;

export const Location = z.object({ ...RecordMeta, ...editable, deleted_at: DateTime.nullable() }).meta({ id: "Location" });
export type Location = z.infer<typeof Location>;

export const LocationListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  search: z.string().max(200).optional().describe("Case-insensitive substring of the name"),
});
