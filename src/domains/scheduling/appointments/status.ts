import { InvalidTransition, invalid } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { appointmentRecords, applyStep } from "./records";
import { TRANSITIONS, type Appointment, type AppointmentStatus, type AppointmentStatusChange } from "./schemas";

const STAMP: Partial<Record<AppointmentStatus, "confirmed_at" | "arrived_at" | "completed_at" | "cancelled_at" | "broken_at">> = {
  confirmed: "confirmed_at",
  arrived: "arrived_at",
  completed: "completed_at",
  cancelled: "cancelled_at",
  broken: "broken_at",
};

/** Move along the state machine (schemas.ts TRANSITIONS); a cancelled or broken appointment frees its slot. */
export async function changeAppointmentStatus(ctx: OrgContext, id: string, input: AppointmentStatusChange): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const current = yield* appointmentRecords.requireCurrent(s.tx, id, input.base_version);
    const from = current.status as AppointmentStatus;
    if (!TRANSITIONS[from]?.includes(input.status)) throw new InvalidTransition(from, input.status);
    // a no-show is followed up (ASAP list, broken-appointment fees): the front desk must say why
    if (input.status === "broken" && !input.reason) {
      throw invalid(["body", "reason"], "A reason is required to mark an appointment broken", "missing", "reason_required");
    }
    const stamp = STAMP[input.status];
    return yield* applyStep(
      s,
      current,
      {
        status: input.status,
        status_reason: input.reason ?? null,
        ...(stamp ? { [stamp]: s.now } : {}),
      },
      "status_changed",
      { from, to: input.status },
    );
  });
}
