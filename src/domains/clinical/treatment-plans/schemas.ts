import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { ChartedProcedure } from "@/domains/clinical/charted-procedures/schemas";

export const PLAN_STATUSES = ["draft", "proposed", "accepted", "rejected", "completed"] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

const PhaseNumber = z.number().int().min(1).max(20).describe("1-20; 1 is done first");
const PlanPhase = z.strictObject({ phase: PhaseNumber, name: z.string().trim().min(1).max(100) });
const Phases = z
  .array(PlanPhase)
  .max(20)
  .refine((ps) => new Set(ps.map((p) => p.phase)).size === ps.length, "Each phase number may appear once")
  .describe('Names of the plan\'s phases, e.g. [{phase: 1, name: "Urgent"}]; items may use any phase 1-20');

const editable = {
  name: z.string().trim().min(1).max(200),
  note: z.string().max(5000).nullable(),
  phases: Phases,
};
const READ_ONLY = ["id", "version", "created_at", "updated_at", "deleted_at", "patient", "procedures", "total_fee", "phase_totals", "status_changed_at"];

export const PlanCreate = z
  .strictObject({
    ...editable,
    note: editable.note.optional(),
    phases: editable.phases.optional(),
    status: z.enum(["draft", "proposed", "accepted"]).optional().describe("Default draft; accepted records a plan the patient already agreed to"),
  })
  .meta({ readOnly: READ_ONLY });
export type PlanCreate = z.infer<typeof PlanCreate>;

export const PlanPatch = z.strictObject({ base_version: BaseVersion, ...z.object(editable).partial().shape }).meta({ readOnly: [...READ_ONLY, "status"] });
export type PlanPatch = z.infer<typeof PlanPatch>;

export const PlanStatusChange = z.strictObject({ base_version: BaseVersion, status: z.enum(PLAN_STATUSES) });
export type PlanStatusChange = z.infer<typeof PlanStatusChange>;

const OptionalVersion = BaseVersion.optional().describe("Optional: when given and stale, 409 version_conflict");

export const PlanItemAdd = z.strictObject({
  procedure_uuid: Uuid.describe("A charted procedure of the same patient, still to be done"),
  phase: PhaseNumber.optional().describe("Default 1"),
  base_version: OptionalVersion,
});
export type PlanItemAdd = z.infer<typeof PlanItemAdd>;

export const PlanItemPatch = z.strictObject({ phase: PhaseNumber, base_version: OptionalVersion });
export type PlanItemPatch = z.infer<typeof PlanItemPatch>;

export const PlanReorder = z.strictObject({
  procedure_uuids: z.array(Uuid).min(1).max(500).describe("Every procedure of the plan, each once, in the new order"),
  base_version: OptionalVersion,
});
export type PlanReorder = z.infer<typeof PlanReorder>;

export const PlanVersionQuery = z.strictObject({ base_version: BaseVersionQuery.optional().describe("Optional: when given and stale, 409 version_conflict") });
export const PlanDeleteQuery = z.strictObject({ base_version: BaseVersionQuery });

export const PlanItem = z.object({
  position: z.number().int().describe("1-based place in the plan's order"),
  phase: z.number().int(),
  procedure: ChartedProcedure,
});

export const TreatmentPlan = z
  .object({
    ...RecordMeta,
    patient: Ref,
    name: z.string(),
    note: z.string().nullable(),
    status: z.enum(PLAN_STATUSES),
    status_changed_at: DateTime.nullable(),
    phases: z.array(z.object({ phase: z.number().int(), name: z.string() })),
    procedures: z.array(PlanItem),
    procedure_count: z.number().int(),
    total_fee: z.string().describe("Sum of the procedures' effective fees, dollars"),
    phase_totals: z
      .array(
        z.object({
          phase: z.number().int(),
          name: z.string().nullable(),
          procedure_count: z.number().int(),
          total_fee: z.string(),
        }),
      )
      .describe("One entry per phase that has procedures, ascending"),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "TreatmentPlan" });
export type TreatmentPlan = z.infer<typeof TreatmentPlan>;

export const PlanListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: z.enum(PLAN_STATUSES).optional(),
});
export type PlanListQuery = z.infer<typeof PlanListQuery>;
