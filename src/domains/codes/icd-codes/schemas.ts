import { z } from "zod";
import { DateTime } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { ICD_CATEGORIES } from "@db/tenant/codes";

export const IcdCode = z
  .object({
    id: z.string(),
    code: z.string().describe("ICD-10-CM code with its dot, e.g. K02.52"),
    description: z.string(),
    category: z.enum(ICD_CATEGORIES),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: "IcdCode" });
export type IcdCode = z.infer<typeof IcdCode>;

export const IcdCodeListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  search: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe("Case-insensitive: a prefix of the code (the dot may be left out: K0252 finds K02.52), or a substring of the description"),
  category: z.enum(ICD_CATEGORIES).optional(),
});
export type IcdCodeListQuery = z.infer<typeof IcdCodeListQuery>;
