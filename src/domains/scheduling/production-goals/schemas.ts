import { z } from "zod";
import { DateOnly, DateTime, Ref, Uuid } from "@/platform/records/fields";
import { hasAtMostTwoDecimals } from "@/platform/money";
import { pagingQuery } from "@/platform/records/paging";

export const ProductionGoalUpsert = z
  .strictObject({
    provider_uuid: Uuid.describe("A live provider (404 otherwise)"),
    location_uuid: Uuid.describe("A live location (404 otherwise)"),
    goal_date: DateOnly,
    goal_amount: z
      .number()
      .min(0)
      .max(10_000_000)
      .refine(hasAtMostTwoDecimals, "Must have at most two decimals")
      .describe("Dollars (number, at most two decimals); answered as a two-decimal string"),
  })
  .meta({ readOnly: ["provider", "location"] });
export type ProductionGoalUpsert = z.infer<typeof ProductionGoalUpsert>;

export const ProductionGoal = z
  .object({
    id: z.string(),
    provider: Ref,
    location: Ref,
    goal_date: z.string(),
    goal_amount: z.string().describe("Dollars, two decimals"),
    version: z.number().int(),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: "ProductionGoal" });
export type ProductionGoal = z.infer<typeof ProductionGoal>;

export const ProductionGoalListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  provider_uuid: Uuid.optional().describe("Unknown is 404"),
  location_uuid: Uuid.optional().describe("Unknown is 404"),
  date_from: DateOnly.optional().describe("goal_date on or after"),
  date_to: DateOnly.optional().describe("goal_date on or before (inclusive)"),
});
export type ProductionGoalListQuery = z.infer<typeof ProductionGoalListQuery>;
