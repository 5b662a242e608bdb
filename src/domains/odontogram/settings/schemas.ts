import { z } from "zod";
import { DateTime } from "@/platform/records/fields";
import { TOOTH_NUMBERINGS } from "@db/tenant/odontogram-tools";

export const ToothNumbering = z.enum(TOOTH_NUMBERINGS).describe("How the chart pictures label teeth: universal (1-32, A-T) or fdi (11-48, 51-85)");

export const OdontogramSettings = z
  .object({
    tooth_numbering: ToothNumbering,
    version: z.number().int().describe("0 until the settings are first changed"),
    updated_at: DateTime.nullable().describe("null until the settings are first changed"),
  })
  .meta({ id: "OdontogramSettings" });
export type OdontogramSettings = z.infer<typeof OdontogramSettings>;

export const OdontogramSettingsPatch = z
  .strictObject({
    base_version: z.number().int().min(0).describe("The version you read (0 when never changed); stale values get 409 version_conflict"),
    tooth_numbering: ToothNumbering.optional(),
  })
  .meta({ readOnly: ["version", "updated_at"] });
export type OdontogramSettingsPatch = z.infer<typeof OdontogramSettingsPatch>;
