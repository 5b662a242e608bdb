import { defineMoment } from "@/platform/records/moments";
import type { ProcedureStatus } from "@/domains/codes/dental-vocabulary";

// What happens to a charted procedure that other domains react to
// (platform/records/moments.ts; who listens: docs/architecture.md, "Moments").
// Announced by service.ts inside the write that makes it happen.

/** What every procedure moment tells: the procedure as it is after the write. */
export type ProcedureMoment = {
  procedure_id: string;
  patient_id: string;
  procedure_code_id: string;
  procedure_code: string;
  status: ProcedureStatus;
  provider_id: string | null;
  location_id: string | null;
  appointment_id: string | null;
  /** YYYY-MM-DD */
  date_service: string;
  /** What it is billed at: the fee override, else the office fee. */
  fee_cents: number;
};

export const procedureCompleted = defineMoment<ProcedureMoment & { from_status: ProcedureStatus | null }>(
  "procedure.completed",
  "A procedure became complete or complete_referred: charted so (from_status null) or by a status change",
);

export const procedureFeeChanged = defineMoment<ProcedureMoment & { previous_fee_cents: number; previous_procedure_code_id: string }>(
  "procedure.fee_changed",
  "What a procedure is billed at changed: its code (a re-charting, which brings the code's fee) or its fee override",
);

export const procedureDeleted = defineMoment<ProcedureMoment>("procedure.deleted", "A procedure not yet done was deleted (alone, or with its span)");

type MomentSource = {
  id: string;
  patient_id: string;
  procedure_code_id: string;
  procedure_code: string;
  status: string;
  provider_id: string | null;
  location_id: string | null;
  appointment_id: string | null;
  date_service: string;
  fee_override_cents: number | null;
  office_fee_cents: number;
};

/** The moment's view of a procedure row. */
export const procedureMoment = (r: MomentSource): ProcedureMoment => ({
  procedure_id: r.id,
  patient_id: r.patient_id,
  procedure_code_id: r.procedure_code_id,
  procedure_code: r.procedure_code,
  status: r.status as ProcedureStatus,
  provider_id: r.provider_id,
  location_id: r.location_id,
  appointment_id: r.appointment_id,
  date_service: r.date_service,
  fee_cents: r.fee_override_cents ?? r.office_fee_cents,
});

export const procedureScheduled = defineMoment<ProcedureMoment & { previous_appointment_id: string | null }>(
  "procedure.scheduled",
  "A procedure was put on an appointment or taken off one (appointment_id is where it is now, null when freed)",
);
