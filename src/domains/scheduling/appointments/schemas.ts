import { z } from "zod";
import { BaseVersion, DateOnly, DateTime, QueryList, RecordMeta, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { Fee } from "@/domains/scheduling/appointment-types/schemas";
import { ProcedureStatus } from "@/domains/codes/dental-vocabulary";

export const APPOINTMENT_STATUSES = ["scheduled", "confirmed", "arrived", "completed", "cancelled", "broken"] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

/** Which status may follow which (docs/scheduling/appointments.md); completed, cancelled and broken are final. */
export const TRANSITIONS: Record<AppointmentStatus, readonly AppointmentStatus[]> = {
  scheduled: ["confirmed", "arrived", "cancelled", "broken"],
  confirmed: ["arrived", "cancelled", "broken"],
  arrived: ["completed", "cancelled"],
  completed: [],
  cancelled: [],
  broken: [],
};

/** Statuses that free the slot: the overlap check and the ASAP list ignore / collect them. */
export const SLOT_FREEING_STATUSES: readonly AppointmentStatus[] = ["cancelled", "broken"];

// Confirmation is tracked apart from status (docs/scheduling/appointments.md).
export const CONFIRMATION_STATUSES = ["unconfirmed", "sent", "left_message", "no_answer", "confirmed", "declined"] as const;
export const CONFIRMATION_METHODS = ["email", "phone", "text", "in_person", "portal"] as const;

/** Only these statuses may be rescheduled or edited with PATCH. */
export const EDITABLE_STATUSES: readonly AppointmentStatus[] = ["scheduled", "confirmed"];

const isoDateTime = z.iso.datetime({ local: true, offset: true });
const yearInRange = (v: string) => {
  const y = Number(v.slice(0, 4));
  return y >= 1900 && y <= 2999;
};

/** A request date-time: the location's wall clock, or an instant with Z / ±HH:MM. */
const WhenField = isoDateTime
  .refine(yearInRange, "Year must be between 1900 and 2999")
  .describe(
    "ISO 8601. Without an offset (2026-03-09T09:00 or 2026-03-09T09:00:00) it is the wall clock of the location's time zone; " +
      "with Z or ±HH:MM it is converted into that zone. A wall-clock time skipped by a DST change is 422; " +
      "a repeated one (fall-back hour) means its first occurrence",
  );

// Fields a client reads but never writes: 422 read_only when sent.
const DERIVED = [
  "status",
  "status_reason",
  "confirmed_at",
  "arrived_at",
  "completed_at",
  "cancelled_at",
  "broken_at",
  "confirmation_status",
  "confirmation_method",
  "confirmation_recorded_at",
  "seated_at",
  "dismissed_at",
  "procedures",
  "production",
  "flow_status",
  "flow_status_uuid",
  "flow_status_set_at",
  "patient",
  "appointment_type",
  "location",
  "provider",
  "operatory",
];
// On PATCH the booking's patient, type and location are fixed: book a new appointment instead.
// procedure_uuids: POST / DELETE .../procedures
const FIXED_ON_PATCH = [...DERIVED, "patient_uuid", "appointment_type_uuid", "location_uuid", "override_scheduling_restriction", "procedure_uuids"];

// Request examples for the OpenAPI document (the booking pipeline, README.md): one set of ids throughout.
const EXAMPLE = {
  patient: "0193a4b2-6c1e-7d3f-8a9b-1c2d3e4f5a6b",
  type: "0193a4b2-6c1e-7d3f-8a9b-2b3c4d5e6f70",
  location: "0193a4b2-6c1e-7d3f-8a9b-3c4d5e6f7081",
  provider: "0193a4b2-6c1e-7d3f-8a9b-4d5e6f708192",
  otherProvider: "0193a4b2-6c1e-7d3f-8a9b-6f708192a3b4",
  operatory: "0193a4b2-6c1e-7d3f-8a9b-5e6f708192a3",
};

const Notes = z.string().max(4000).nullable().describe("Free text for the front desk; never sent on the event stream");
const FeeField = Fee.nullable().describe("Dollars (number, at most two decimals) of scheduled production; null: no fee");
const IsAsap = z.boolean().describe("The patient wants an earlier slot: the appointment is on the ASAP list while scheduled or confirmed and still ahead");

export const AppointmentCreate = z
  .strictObject({
    patient_uuid: Uuid.describe("Required (spec.md marks only the times, but a booking needs a patient); unknown is 404"),
    appointment_type_uuid: Uuid.describe("Required; unknown or archived is 404, inactive is 422 appointment_type_inactive"),
    location_uuid: Uuid.describe("Required; its time zone gives scheduled_start/scheduled_end their meaning; unknown is 404"),
    provider_uuid: Uuid.describe("Required; unknown is 404"),
    operatory_uuid: Uuid.nullable().optional().describe("Optional chair; must belong to location_uuid (422 operatory_location_mismatch); unknown is 404"),
    scheduled_start: WhenField,
    scheduled_end: WhenField.describe(
      "Same format as scheduled_start. Must be after it (real elapsed time, across DST changes), at least the type's duration_minutes, at most 24 hours",
    ),
    notes: Notes.optional(),
    is_asap: IsAsap.optional().describe("Default false. The patient wants an earlier slot (ASAP list)"),
    fee: FeeField.optional().describe(
      "Omitted: the appointment type's default_fee at booking time (a copy: later changes to the type do not move it). " +
        "A number sets it; null books without a fee",
    ),
    override_scheduling_restriction: z
      .boolean()
      .optional()
      .describe("true books a patient whose scheduling_restricted is true (otherwise 422 scheduling_restricted); the override is audited"),
    procedure_uuids: z
      .array(Uuid)
      .max(50)
      .optional()
      .describe(
        "Charted procedures of this patient to put on the appointment, as POST .../procedures does (treatment_planned, or scheduled on no live appointment); " +
          "a refusal refuses the booking: 404 unknown, 422 procedure_patient_mismatch / procedure_not_plannable, 409 procedure_on_appointment",
      ),
  })
  .meta({
    readOnly: DERIVED,
    examples: [
      {
        patient_uuid: EXAMPLE.patient,
        appointment_type_uuid: EXAMPLE.type,
        location_uuid: EXAMPLE.location,
        provider_uuid: EXAMPLE.provider,
        operatory_uuid: EXAMPLE.operatory,
        scheduled_start: "2030-01-07T09:00:00",
        scheduled_end: "2030-01-07T09:30:00",
        notes: "New patient, prefers morning visits",
      },
      {
        patient_uuid: EXAMPLE.patient,
        appointment_type_uuid: EXAMPLE.type,
        location_uuid: EXAMPLE.location,
        provider_uuid: EXAMPLE.provider,
        scheduled_start: "2030-01-07T14:00:00Z",
        scheduled_end: "2030-01-07T14:45:00Z",
        fee: 95,
        is_asap: true,
        override_scheduling_restriction: true,
      },
    ],
  });
export type AppointmentCreate = z.infer<typeof AppointmentCreate>;

export const AppointmentPatch = z
  .strictObject({
    base_version: BaseVersion,
    scheduled_start: WhenField.optional().describe("New start; omitted keeps the current one"),
    scheduled_end: WhenField.optional().describe("New end; omitted keeps the current one"),
    provider_uuid: Uuid.optional(),
    operatory_uuid: Uuid.nullable().optional().describe("null removes the operatory; must belong to the appointment's location"),
    notes: Notes.optional(),
    is_asap: IsAsap.optional(),
    fee: FeeField.optional().describe("New fee; null clears it; omitted keeps it (the fee is never re-priced from the type)"),
  })
  .meta({
    readOnly: FIXED_ON_PATCH,
    examples: [
      { base_version: 1, scheduled_start: "2030-01-08T10:00:00", scheduled_end: "2030-01-08T10:30:00", provider_uuid: EXAMPLE.otherProvider },
      { base_version: 2, notes: "Bring previous X-rays", is_asap: false },
    ],
  });
export type AppointmentPatch = z.infer<typeof AppointmentPatch>;

export const AppointmentStatusChange = z
  .strictObject({
    status: z
      .enum(APPOINTMENT_STATUSES)
      .describe(
        "scheduled → confirmed | arrived | cancelled | broken; confirmed → arrived | cancelled | broken; arrived → completed | cancelled; " +
          "completed, cancelled and broken are final (422 invalid_transition). broken is a no-show and needs a reason (422 reason_required)",
      ),
    base_version: BaseVersion,
    reason: z
      .string()
      .trim()
      .max(500)
      .nullable()
      .optional()
      .describe("Why (e.g. a cancellation reason); required for broken; stored as status_reason, replaced on every status change"),
  })
  .meta({
    examples: [
      { status: "cancelled", base_version: 2, reason: "Patient called to cancel" },
      { status: "broken", base_version: 2, reason: "No-show, no call" },
      { status: "completed", base_version: 5 },
    ],
  });
export type AppointmentStatusChange = z.infer<typeof AppointmentStatusChange>;

export const AppointmentConfirmation = z
  .strictObject({
    confirmation_status: z.enum(CONFIRMATION_STATUSES).describe("The outcome of this confirmation attempt; unconfirmed resets it. Does not change status"),
    method: z
      .enum(CONFIRMATION_METHODS)
      .nullable()
      .optional()
      .describe("How the patient was reached; required unless confirmation_status is unconfirmed (then it must be absent or null)"),
    base_version: BaseVersion,
  })
  .meta({
    examples: [
      { confirmation_status: "confirmed", method: "text", base_version: 1 },
      { confirmation_status: "left_message", method: "phone", base_version: 1 },
    ],
  });
export type AppointmentConfirmation = z.infer<typeof AppointmentConfirmation>;

/** Body of check-in, seat and dismiss: the version the front desk is looking at. */
export const AppointmentStep = z.strictObject({ base_version: BaseVersion }).meta({ examples: [{ base_version: 3 }] });
export type AppointmentStep = z.infer<typeof AppointmentStep>;

/** A charted procedure as an appointment shows it (docs/scheduling/appointments.md, "Procedures on appointments"). */
export const AppointmentProcedure = z
  .object({
    uuid: z.string(),
    name: z.string().describe('The code and where, e.g. "D2391 #3 MO"'),
    procedure_code: z.string(),
    description: z.string().nullable().describe("The code's short name"),
    status: ProcedureStatus,
    fee: z.string().describe("Its effective fee (the override when set, else the office fee), dollars with two decimals"),
  })
  .meta({ id: "AppointmentProcedure" });

const Wall = z.string().describe("Wall clock of the location's time zone, no offset, seconds included: 2026-03-09T09:00:00");
const Stamp = DateTime.nullable();

export const Appointment = z
  .object({
    ...RecordMeta,
    uuid: z.string().describe("Same value as id (the booking pipeline reads uuid)"),
    status: z.enum(APPOINTMENT_STATUSES),
    patient: z.object({ uuid: z.string(), first_name: z.string(), last_name: z.string() }),
    appointment_type: z.object({ uuid: z.string(), name: z.string(), duration_minutes: z.number().int(), color: z.string() }),
    fee: z.string().nullable().describe('Scheduled production, dollars with two decimals ("95.00"); null: no fee'),
    scheduled_start: Wall,
    scheduled_end: Wall,
    location: z.object({ uuid: z.string(), name: z.string() }),
    provider: z.object({ uuid: z.string(), first_name: z.string(), last_name: z.string(), title: z.string().nullable().describe('e.g. "Dr."') }),
    operatory: z.object({ uuid: z.string(), name: z.string() }).nullable(),
    notes: z.string().nullable(),
    status_reason: z.string().nullable().describe("The reason given with the latest status change"),
    confirmed_at: Stamp,
    arrived_at: Stamp,
    completed_at: Stamp,
    cancelled_at: Stamp,
    broken_at: Stamp.describe("When it was marked broken (no-show)"),
    is_asap: z.boolean(),
    confirmation_status: z.enum(CONFIRMATION_STATUSES).describe("Latest confirmation outcome, separate from status; unconfirmed until recorded"),
    confirmation_method: z.enum(CONFIRMATION_METHODS).nullable(),
    confirmation_recorded_at: Stamp.describe("When the latest confirmation outcome was recorded"),
    seated_at: Stamp,
    dismissed_at: Stamp,
    procedures: z
      .array(AppointmentProcedure)
      .describe("The charted procedures on the appointment, in charting order (put on and taken off with {P}/appointments/{id}/procedures)"),
    production: z.string().describe('The procedures\' effective fees summed, dollars with two decimals; "0.00" when there are none'),
    flow_status: z
      .object({ uuid: z.string(), name: z.string(), color: z.string().describe("#RRGGBB or #RGB, as the flow status stores it") })
      .nullable()
      .describe("Where the patient is in the office (POST .../flow-status); shown even if the flow status was archived since; null: none set"),
    flow_status_set_at: Stamp.describe("When the current flow status was set; null when none is set"),
  })
  .meta({ id: "Appointment" });
export type Appointment = z.infer<typeof Appointment>;

/** A date (the whole day, in each appointment's location zone) or a date-time. */
const RangeBound = z
  .string()
  .refine((v) => DateOnly.safeParse(v).success || (isoDateTime.safeParse(v).success && yearInRange(v)), "Must be a date (YYYY-MM-DD) or an ISO 8601 date-time");

const StatusList = QueryList(z.enum(APPOINTMENT_STATUSES));

// Unknown query parameters are 422 (decisions.md).
export const AppointmentListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  date_from: RangeBound.optional().describe(
    "Appointments starting on or after: a date (YYYY-MM-DD, the location's wall clock), a local date-time (wall clock) or a date-time with offset (instant)",
  ),
  date_to: RangeBound.optional().describe("Appointments starting on or before (inclusive): a date means the whole day; same formats as date_from"),
  location_uuid: Uuid.optional(),
  provider_uuid: Uuid.optional(),
  operatory_uuid: Uuid.optional(),
  patient_uuid: Uuid.optional(),
  status: StatusList.optional().describe("One status or several separated by commas, e.g. scheduled,confirmed; omitted: every status"),
});
export type AppointmentListQuery = z.infer<typeof AppointmentListQuery>;

export const PatientAppointmentsQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: StatusList.optional().describe("One status or several (repeated or comma separated); omitted: every status"),
});
export type PatientAppointmentsQuery = z.infer<typeof PatientAppointmentsQuery>;

export const ASAP_KINDS = ["asap", "cancelled", "broken"] as const;

export const AsapListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  location_uuid: Uuid.optional().describe("Only this location's appointments (an unknown id gives an empty page)"),
  provider_uuid: Uuid.optional(),
  kind: QueryList(z.enum(ASAP_KINDS))
    .optional()
    .describe("asap: flagged is_asap, scheduled or confirmed, still ahead; cancelled / broken: not yet rebooked. Omitted: all three"),
});
export type AsapListQuery = z.infer<typeof AsapListQuery>;

export const AppointmentFlowStatusChange = z
  .strictObject({
    flow_status_uuid: Uuid.nullable().describe(
      "Required: a live, active flow status of this org (unknown or archived: 404; inactive: 422 flow_status_inactive), or null to clear",
    ),
    base_version: BaseVersion,
  })
  .meta({
    examples: [
      { flow_status_uuid: "0193a4b2-6c1e-7d3f-8a9b-7a8b9c0d1e2f", base_version: 3 },
      { flow_status_uuid: null, base_version: 4 },
    ],
  });
export type AppointmentFlowStatusChange = z.infer<typeof AppointmentFlowStatusChange>;

/** GET .../history: one page of the appointment's audit trail. */
export const AppointmentHistoryQuery = z.strictObject({ ...pagingQuery(50, 200) });
export type AppointmentHistoryQuery = z.infer<typeof AppointmentHistoryQuery>;

const HistoryValue = z.unknown().describe("The value as the audit snapshot holds it (API names; money as strings; ids as uuids); null when absent");

export const AppointmentHistoryEntry = z
  .object({
    id: z.string().describe("The audit entry's id"),
    kind: z
      .string()
      .describe(
        "What happened: created, rescheduled (times, provider or operatory changed), updated (other edits), status_changed, " +
          "confirmation_recorded, checked_in, seated, dismissed, flow_status_changed, scheduling_restriction_overridden, " +
          "procedures_attached, procedures_detached, or the verb of any other action recorded on the appointment",
      ),
    action: z.string().describe('The audit action as recorded, e.g. "appointment.status_changed"'),
    occurred_at: DateTime,
    actor: z.object({
      id: z.string(),
      type: z.enum(["user", "system", "api_key"]),
      display_name: z.string().nullable(),
    }),
    changes: z
      .array(
        z.object({
          field: z.string().describe("API name, e.g. status, scheduled_start, provider_uuid, flow_status_uuid"),
          from: HistoryValue,
          to: HistoryValue,
          from_name: z.string().nullable().describe("For a *_uuid field: the name of the record it pointed to before (current name), else null"),
          to_name: z.string().nullable().describe("For a *_uuid field: the name of the record it points to after, else null"),
        }),
      )
      .describe("Every field whose value differs between the entry's before and after snapshots (a creation: every field set); bookkeeping fields left out"),
  })
  .meta({ id: "AppointmentHistoryEntry" });
export type AppointmentHistoryEntry = z.infer<typeof AppointmentHistoryEntry>;
