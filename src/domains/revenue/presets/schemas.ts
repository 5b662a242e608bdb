import { z } from "zod";
import { FilterDefinition } from "@/domains/revenue/filters/schemas";
import { PRESET_KEYS } from "./catalog";

export const Preset = z.object({
  key: z.enum(PRESET_KEYS),
  name: z.string(),
  description: z.string(),
  category: z.string().describe("The registry category the preset is mostly about"),
  filter_definition: FilterDefinition,
});
export const PresetList = z.object({ items: z.array(Preset) });
