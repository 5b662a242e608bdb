import { audit } from "@/platform/audit/audit";
import { invalid } from "@/platform/errors";
import { centsFromNumber } from "@/platform/money";
import type { OrgContext } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import { appointmentTypeRecords, requireAppointmentType } from "@/domains/scheduling/appointment-types/service";
import { requirePatient } from "@/domains/patients/record/service";
import { requireProvider } from "@/domains/providers/record/service";
import { requireOperatoryAt } from "@/domains/scheduling/provider-schedules/common";
import { assertSlotFree, checkWindow, windowOf, zonedSecond, type Window } from "./conflicts";
import { announce } from "@/platform/records/moments";
import { appointmentRecords, readOne, serializeAppointment } from "./records";
import { proceduresOn } from "./procedures";
import { appointmentBooked, appointmentMoment, appointmentMoved } from "./moments";
import { EDITABLE_STATUSES, type Appointment, type AppointmentCreate, type AppointmentPatch, type AppointmentStatus } from "./schemas";

const feeCents = (fee: number | null) => (fee === null ? null : centsFromNumber(fee));

/**
 * Book an appointment. Every check and the insert run in one write transaction
 * (BEGIN IMMEDIATE on local files, with no await inside): of N simultaneous
 * requests for one slot exactly one commits, the others see its row and get 409.
 */
export async function createAppointment(ctx: OrgContext, input: AppointmentCreate): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    // 404s first, then the 422 rules, then 409
    const patient = yield* requirePatient(s.tx, input.patient_uuid);
    const type = yield* requireAppointmentType(s.tx, input.appointment_type_uuid);
    const location = yield* locationRecords.require(s.tx, input.location_uuid);
    const provider = yield* requireProvider(s.tx, input.provider_uuid);
    const operatory = input.operatory_uuid ? yield* requireOperatoryAt(s.tx, input.operatory_uuid, location.id) : null;

    // archived patients are 404 (requirePatient); a deceased one is never booked, override or not
    if (patient.status === "deceased" || patient.status === "archived") {
      throw invalid(["body", "patient_uuid"], "This patient cannot be booked (deceased or archived)", "value_error", "patient_not_schedulable");
    }
    if (!type.is_active) throw invalid(["body", "appointment_type_uuid"], "This appointment type is inactive", "value_error", "appointment_type_inactive");
    const window = windowOf(
      zonedSecond(input.scheduled_start, location.timezone, "scheduled_start"),
      zonedSecond(input.scheduled_end, location.timezone, "scheduled_end"),
    );
    checkWindow(window, type.duration_minutes);
    const overriding = patient.scheduling_restricted;
    if (overriding && input.override_scheduling_restriction !== true) {
      throw invalid(
        ["body", "patient_uuid"],
        "The patient's scheduling is restricted (inactive, or balance over 500.00); set override_scheduling_restriction to book anyway",
        "value_error",
        "scheduling_restricted",
      );
    }

    yield* assertSlotFree(s.tx, { window, providerId: provider.id, operatoryId: operatory?.id ?? null, typeId: type.id, locationId: location.id });

    const row = yield* appointmentRecords.create(
      s,
      {
        patient_id: patient.id,
        appointment_type_id: type.id,
        location_id: location.id,
        provider_id: provider.id,
        operatory_id: operatory?.id ?? null,
        status: "scheduled",
        ...window,
        notes: input.notes ?? null,
        is_asap: input.is_asap ?? false,
        // the type's default is copied, not referenced: editing the type later does not re-price this booking
        fee_cents: input.fee === undefined ? type.default_fee_cents : feeCents(input.fee),
      },
      { patient_id: patient.id, provider_id: provider.id, operatory_id: operatory?.id ?? null, appointment_type_id: type.id, status: "scheduled" },
    );
    // the procedures asked for are put on it by clinical's reaction, or the booking is refused
    const procedureIds = [...new Set(input.procedure_uuids ?? [])];
    yield* announce(s, appointmentBooked, { ...appointmentMoment(row), procedure_ids: procedureIds });
    if (overriding) {
      yield* audit(s, {
        action: "appointment.scheduling_restriction_overridden",
        resource_type: "appointment",
        resource_id: row.id,
        before: null,
        after: { patient_uuid: patient.id },
      });
    }
    const procedures = procedureIds.length ? (yield* proceduresOn(s.tx, [row.id])).get(row.id) : undefined;
    return serializeAppointment(row, { patient, type, location, provider, operatory, procedures });
  });
}

/** Reschedule or edit: only while scheduled or confirmed; the same conflict rules, ignoring itself. */
export async function updateAppointment(ctx: OrgContext, id: string, input: AppointmentPatch): Promise<Appointment> {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const current = yield* appointmentRecords.requireCurrent(s.tx, id, base_version);
    if (!EDITABLE_STATUSES.includes(current.status as AppointmentStatus)) {
      throw invalid(["body"], `A ${current.status} appointment cannot be changed`, "invalid_transition", "invalid_transition");
    }
    const providerId = patch.provider_uuid !== undefined ? (yield* requireProvider(s.tx, patch.provider_uuid)).id : current.provider_id;
    const operatoryId =
      patch.operatory_uuid === undefined
        ? current.operatory_id
        : patch.operatory_uuid === null
          ? null
          : (yield* requireOperatoryAt(s.tx, patch.operatory_uuid, current.location_id)).id;

    let window: Window = {
      scheduled_start: current.scheduled_start,
      scheduled_end: current.scheduled_end,
      start_utc: current.start_utc,
      end_utc: current.end_utc,
    };
    if (patch.scheduled_start !== undefined || patch.scheduled_end !== undefined) {
      // the location's zone as it is now; the type's duration even if it was archived since
      const location = yield* locationRecords.require(s.tx, current.location_id, true);
      const type = yield* appointmentTypeRecords.require(s.tx, current.appointment_type_id, true);
      const zoned = (value: string | undefined, utc: string, field: string) =>
        value !== undefined ? zonedSecond(value, location.timezone, field) : Temporal.Instant.from(utc).toZonedDateTimeISO(location.timezone);
      window = windowOf(zoned(patch.scheduled_start, current.start_utc, "scheduled_start"), zoned(patch.scheduled_end, current.end_utc, "scheduled_end"));
      // an unchanged side keeps its stored wall clock (the zone may have been edited since)
      if (patch.scheduled_start === undefined) window.scheduled_start = current.scheduled_start;
      if (patch.scheduled_end === undefined) window.scheduled_end = current.scheduled_end;
      checkWindow(window, type.duration_minutes);
    }
    const slotChanged =
      patch.scheduled_start !== undefined || patch.scheduled_end !== undefined || patch.provider_uuid !== undefined || patch.operatory_uuid !== undefined;
    if (slotChanged) {
      yield* assertSlotFree(s.tx, {
        window,
        providerId,
        operatoryId,
        typeId: current.appointment_type_id,
        locationId: current.location_id,
        exceptId: current.id,
      });
    }
    const updated = yield* appointmentRecords.update(s, id, base_version, {
      ...window,
      provider_id: providerId,
      operatory_id: operatoryId,
      ...(patch.notes !== undefined ? { notes: patch.notes } : {}),
      ...(patch.is_asap !== undefined ? { is_asap: patch.is_asap } : {}),
      ...(patch.fee !== undefined ? { fee_cents: feeCents(patch.fee) } : {}),
    });
    if (
      updated.start_utc !== current.start_utc ||
      updated.end_utc !== current.end_utc ||
      updated.provider_id !== current.provider_id ||
      updated.operatory_id !== current.operatory_id
    ) {
      const previous = { previous_start_utc: current.start_utc, previous_provider_id: current.provider_id, previous_operatory_id: current.operatory_id };
      yield* announce(s, appointmentMoved, { ...appointmentMoment(updated), ...previous });
    }
    return yield* readOne(s.tx, id);
  });
}
