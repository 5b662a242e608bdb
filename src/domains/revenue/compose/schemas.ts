import { z } from "zod";
import { FilterDefinition } from "@/domains/revenue/filters/schemas";

export const ComposeRequest = z.strictObject({
  query: z
    .string()
    .trim()
    .min(3)
    .max(500)
    .describe('A plain-English description, e.g. "patients with unscheduled treatment and no appointment" (at least 3 characters once trimmed)'),
  context: z.record(z.string(), z.unknown()).optional().describe("Accepted for later use (e.g. the screen the request comes from); the stub ignores it"),
});
export type ComposeRequest = z.infer<typeof ComposeRequest>;

export const ComposeResult = z.object({
  confidence: z.number().min(0).max(1).describe("Share of the query's meaningful words the parser understood (0 when nothing matched)"),
  explanation: z.string(),
  field_keys_used: z.array(z.string()),
  filter_definition: FilterDefinition.nullable().describe("One group of AND-joined conditions; null when nothing was recognised"),
  warnings: z.array(z.string()),
});
export type ComposeResult = z.infer<typeof ComposeResult>;
