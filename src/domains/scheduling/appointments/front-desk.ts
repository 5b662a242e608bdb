import { invalid } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { appointmentRecords, applyStep } from "./records";
import { EDITABLE_STATUSES, TRANSITIONS, type Appointment, type AppointmentConfirmation, type AppointmentStatus } from "./schemas";

// The front desk's steps: confirmation, check-in, seat, dismiss. Each answers
// 404, then 409 on a stale base_version, before judging its own rules.

const outOfOrder = (msg: string) => invalid(["body"], msg, "invalid_transition", "invalid_transition");

/** Record a confirmation attempt; status is left alone. A confirmed outcome stamps confirmed_at. */
export async function recordConfirmation(ctx: OrgContext, id: string, input: AppointmentConfirmation): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const row = yield* appointmentRecords.requireCurrent(s.tx, id, input.base_version);
    if (!EDITABLE_STATUSES.includes(row.status as AppointmentStatus)) throw outOfOrder(`Cannot record a confirmation: the appointment is ${row.status}`);
    const reset = input.confirmation_status === "unconfirmed";
    if (reset && input.method) throw invalid(["body", "method"], "A reset to unconfirmed takes no method", "value_error", "method_not_allowed");
    if (!reset && !input.method) throw invalid(["body", "method"], "Say how the patient was reached", "missing", "method_required");
    return yield* applyStep(
      s,
      row,
      {
        confirmation_status: input.confirmation_status,
        confirmation_method: input.method ?? null,
        confirmation_recorded_at: s.now,
        ...(input.confirmation_status === "confirmed" ? { confirmed_at: s.now } : {}),
      },
      "confirmation_recorded",
      { confirmation_status: input.confirmation_status, method: input.method ?? null },
    );
  });
}

/** Check-in: scheduled or confirmed -> arrived (arrived_at), like the status change, plus its own event. */
export async function checkInAppointment(ctx: OrgContext, id: string, baseVersion: number): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const row = yield* appointmentRecords.requireCurrent(s.tx, id, baseVersion);
    const from = row.status as AppointmentStatus;
    if (!TRANSITIONS[from].includes("arrived")) throw outOfOrder(`Cannot check in: the appointment is ${from}`);
    // the event is also appointment.status_changed (records.ts eventAliases)
    return yield* applyStep(s, row, { status: "arrived", status_reason: null, arrived_at: s.now }, "checked_in", { from, to: "arrived" });
  });
}

/** Seat: only an arrived appointment, once. */
export async function seatAppointment(ctx: OrgContext, id: string, baseVersion: number): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const row = yield* appointmentRecords.requireCurrent(s.tx, id, baseVersion);
    if (row.status !== "arrived") throw outOfOrder(`Cannot seat: the appointment is ${row.status} (only a checked-in patient is seated)`);
    if (row.seated_at) throw outOfOrder("The patient is already seated");
    return yield* applyStep(s, row, { seated_at: s.now }, "seated", {});
  });
}

/** Dismiss: after seating, while arrived or completed, once. Status is left alone (completion is a status change). */
export async function dismissAppointment(ctx: OrgContext, id: string, baseVersion: number): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const row = yield* appointmentRecords.requireCurrent(s.tx, id, baseVersion);
    if (row.status !== "arrived" && row.status !== "completed") throw outOfOrder(`Cannot dismiss: the appointment is ${row.status}`);
    if (!row.seated_at) throw outOfOrder("The patient must be seated before being dismissed");
    if (row.dismissed_at) throw outOfOrder("The patient was already dismissed");
    return yield* applyStep(s, row, { dismissed_at: s.now }, "dismissed", {});
  });
}
