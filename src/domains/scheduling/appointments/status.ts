import { InvalidTransition, invalid } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { announce, type Moment } from "@/platform/records/moments";
import { appointmentRecords, applyStep } from "./records";
import { appointmentBroken, appointmentCancelled, appointmentCompleted, appointmentMoment, type AppointmentMoment } from "./moments";
import { TRANSITIONS, type Appointment, type AppointmentStatus, type AppointmentStatusChange } from "./schemas";

const STAMP: Partial<Record<AppointmentStatus, "confirmed_at" | "arrived_at" | "completed_at" | "cancelled_at" | "broken_at">> = {
  confirmed: "confirmed_at",
  arrived: "arrived_at",
  completed: "completed_at",
  cancelled: "cancelled_at",
  broken: "broken_at",
};

/** The statuses other domains react to (docs/architecture.md, "Moments"). */
const STATUS_MOMENTS: Partial<Record<AppointmentStatus, Moment<AppointmentMoment>>> = {
  broken: appointmentBroken,
  cancelled: appointmentCancelled,
  completed: appointmentCompleted,
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
    const moment = STATUS_MOMENTS[input.status];
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
      moment ? (updated) => announce(s, moment, appointmentMoment(updated)) : undefined,
    );
  });
}
