import { and, eq, isNull } from "drizzle-orm";
import { flowStatuses } from "@db/tenant/schedule-config";
import { get } from "@/platform/db/work";
import { NotFound, invalid } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { appointmentRecords, applyStep } from "./records";
import { SLOT_FREEING_STATUSES, type Appointment, type AppointmentFlowStatusChange, type AppointmentStatus } from "./schemas";

// Where the patient is in the office today (waiting, in chair, checking out):
// a flow status of the org's list (flow-statuses/) set on the appointment
// (docs/scheduling/front-desk-lists.md, "Flow status").

/**
 * Set or clear the flow status. Checks, in order: 404 appointment, 409 stale
 * base_version, 404 flow status (unknown, archived), 422 flow_status_inactive,
 * 422 invalid_transition when setting one on a cancelled or broken appointment
 * (the patient is not in the office); clearing is allowed in every status.
 */
export async function setFlowStatus(ctx: OrgContext, id: string, input: AppointmentFlowStatusChange): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const row = yield* appointmentRecords.requireCurrent(s.tx, id, input.base_version);
    const to = input.flow_status_uuid;
    if (to !== null) {
      const status = yield* get(
        s.tx
          .select({ id: flowStatuses.id, is_active: flowStatuses.is_active })
          .from(flowStatuses)
          .where(and(eq(flowStatuses.id, to), isNull(flowStatuses.deleted_at))),
      );
      if (!status) throw new NotFound("Flow status");
      if (!status.is_active) throw invalid(["body", "flow_status_uuid"], "This flow status is inactive", "value_error", "flow_status_inactive");
      if (SLOT_FREEING_STATUSES.includes(row.status as AppointmentStatus)) {
        throw invalid(["body"], `Cannot set a flow status: the appointment is ${row.status}`, "invalid_transition", "invalid_transition");
      }
    }
    return yield* applyStep(s, row, { flow_status_id: to, flow_status_set_at: to === null ? null : s.now }, "flow_status_changed", {
      from: row.flow_status_id,
      to,
    });
  });
}
