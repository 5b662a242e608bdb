import { z } from "zod";

// A filter definition as clients send it (docs/revenue/revenue.md): groups joined by
// OR, conditions inside a group joined by AND. The shape is checked here; what
// each condition means (field, operator, value) is checked against the
// registry by validate.ts, which names the offending condition.

export const MAX_GROUPS = 20;
export const MAX_CONDITIONS = 20;

export const Condition = z.strictObject({
  field: z.string().min(1).max(100).describe("A field key of GET /fields"),
  operator: z.string().min(1).max(40).describe("One of the field's operators"),
  value: z
    .unknown()
    .optional()
    .describe(
      "By operator: one value; a list for in / not_in; [from, to] for between; a whole number for the relative date operators; none for is_null / is_not_null",
    ),
});
export const ConditionGroup = z.strictObject({ conditions: z.array(Condition).min(1).max(MAX_CONDITIONS) });
export const FilterDefinition = z
  .strictObject({ groups: z.array(ConditionGroup).min(1).max(MAX_GROUPS).describe("Joined by OR; the conditions of a group are joined by AND") })
  .meta({ id: "FilterDefinition" });
export type FilterDefinition = z.infer<typeof FilterDefinition>;
