import { z } from "zod";
import { BaseVersion, BaseVersionQuery, Uuid } from "@/platform/records/fields";
import { ChartedProcedure } from "@/domains/clinical/charted-procedures/schemas";

const EXAMPLE_PROCEDURES = ["0193a4b2-6c1e-7d3f-8a9b-8b9c0d1e2f30", "0193a4b2-6c1e-7d3f-8a9b-9c0d1e2f3041"];

export const ProceduresAttach = z
  .strictObject({
    procedure_uuids: z
      .array(Uuid)
      .min(1)
      .max(50)
      .describe(
        "Charted procedures of the appointment's patient, each treatment_planned (or scheduled on no live appointment); one already on this appointment is left as it is",
      ),
    base_version: BaseVersion.describe("The appointment's version you read; stale values get 409 version_conflict"),
  })
  .meta({ examples: [{ procedure_uuids: EXAMPLE_PROCEDURES, base_version: 2 }] });
export type ProceduresAttach = z.infer<typeof ProceduresAttach>;

export const ProcedureDetachQuery = z.strictObject({
  base_version: BaseVersionQuery.describe("The appointment's version you read; stale values get 409 version_conflict"),
});

export const AppointmentProcedureList = z
  .object({
    items: z.array(ChartedProcedure).describe("In charting order"),
    total: z.number().int(),
    production: z.string().describe('Their effective fees summed, dollars with two decimals ("0.00" when none)'),
  })
  .meta({ id: "AppointmentProcedureList" });
export type AppointmentProcedureList = z.infer<typeof AppointmentProcedureList>;
