import type { appointments } from "@db/tenant/appointments";
import { defineMoment } from "@/platform/records/moments";

// What happens to an appointment that other domains react to
// (platform/records/moments.ts; who listens: docs/architecture.md, "Moments").
// Announced inside the write that makes it happen (booking.ts, status.ts).

/** What every appointment moment tells: the appointment as it is after the write. */
export type AppointmentMoment = {
  appointment_id: string;
  patient_id: string;
  appointment_type_id: string;
  location_id: string;
  provider_id: string;
  operatory_id: string | null;
  status: string;
  start_utc: string;
  end_utc: string;
};

export const appointmentBooked = defineMoment<AppointmentMoment & { procedure_ids: string[] }>(
  "appointment.booked",
  "An appointment was booked (procedure_ids: the charted procedures the booking asks to put on it; clinical puts them there or refuses)",
);

export const appointmentMoved = defineMoment<
  AppointmentMoment & { previous_start_utc: string; previous_provider_id: string; previous_operatory_id: string | null }
>("appointment.moved", "A booked appointment got another time, provider or operatory");

export const appointmentBroken = defineMoment<AppointmentMoment>(
  "appointment.broken",
  "The patient did not come or cancelled too late: the appointment is broken",
);

export const appointmentCancelled = defineMoment<AppointmentMoment>("appointment.cancelled", "An appointment was cancelled");

export const appointmentCompleted = defineMoment<AppointmentMoment>("appointment.completed", "A seen appointment was completed");

/** The moment's view of an appointment row. */
export const appointmentMoment = (r: typeof appointments.$inferSelect): AppointmentMoment => ({
  appointment_id: r.id,
  patient_id: r.patient_id,
  appointment_type_id: r.appointment_type_id,
  location_id: r.location_id,
  provider_id: r.provider_id,
  operatory_id: r.operatory_id,
  status: r.status,
  start_utc: r.start_utc,
  end_utc: r.end_utc,
});
