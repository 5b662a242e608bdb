import { insuranceDrafts, type DraftCandidates as StoredCandidates } from "@db/tenant/insurance";
import type { Work } from "@/platform/db/work";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { PATIENT_NAMES } from "@/platform/records/names";
import { idsOf, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { CARRIER_NAMES } from "@/domains/insurance/carriers/service";
import { PLAN_NAMES } from "@/domains/insurance/estimate-books/references";
import { SUBSCRIPTION_NAMES } from "@/domains/insurance/subscriptions/service";
import type { Draft, ReviewStatus } from "./schemas";

export type DraftRow = typeof insuranceDrafts.$inferSelect;

/** A draft in the audit trail: the stored columns but the raw row, which never changes after the import (the draft keeps it). */
const auditSnapshot = ({ raw_data_json: _raw, ...rest }: DraftRow) => rest;

// Events name changed columns as the API does.
export const draftRecords = defineResource<DraftRow, ReturnType<typeof auditSnapshot>>({
  table: insuranceDrafts,
  name: "insurance_draft",
  label: "Insurance draft",
  serialize: auditSnapshot,
  eventFields: {
    rename: {
      subscriber_patient_id: "subscriber_patient",
      matched_carrier_id: "matched_carrier",
      matched_plan_id: "matched_plan",
      converted_subscription_id: "converted_subscription",
      converted_patient_plan_id: "converted_patient_plan",
      patient_id: "patient",
    },
  },
});

type RefNames = Record<"patients" | "carriers" | "plans" | "subscriptions", Names>;

/** The names of everything the rows (and candidate lists) refer to: one query per kind. */
export function* refNames(db: TenantDb, rows: DraftRow[], candidates?: StoredCandidates | null): Work<RefNames> {
  return yield* namesOfEach(db, {
    patients: [
      PATIENT_NAMES,
      [
        ...idsOf(
          rows,
          (r) => r.patient_id,
          (r) => r.subscriber_patient_id,
        ),
        ...(candidates?.patients ?? []).map((c) => c.id),
      ],
    ],
    carriers: [CARRIER_NAMES, [...idsOf(rows, (r) => r.matched_carrier_id), ...(candidates?.carriers ?? []).map((c) => c.id)]],
    plans: [PLAN_NAMES, [...idsOf(rows, (r) => r.matched_plan_id), ...(candidates?.plans ?? []).map((c) => c.id)]],
    subscriptions: [SUBSCRIPTION_NAMES, idsOf(rows, (r) => r.converted_subscription_id)],
  });
}

export function serializeDraft(r: DraftRow, n: RefNames): Draft {
  return {
    id: r.id,
    patient: ref(r.patient_id, n.patients),
    subscriber_patient: ref(r.subscriber_patient_id, n.patients),
    matched_carrier: ref(r.matched_carrier_id, n.carriers),
    matched_plan: ref(r.matched_plan_id, n.plans),
    converted_subscription: ref(r.converted_subscription_id, n.subscriptions),
    converted_patient_plan: ref(r.converted_patient_plan_id),
    raw_data_json: r.raw_data_json,
    review_status: r.review_status as ReviewStatus,
    match_attempted: r.match_attempted,
    conversion_error: r.conversion_error,
    reject_reason: r.reject_reason,
    reviewed_at: r.reviewed_at,
    reviewed_by_user_uuid: r.reviewed_by_user_uuid,
    source_ref: r.source_ref,
    source_system: r.source_system,
    import_id: r.import_id,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export function* presentDraft(db: TenantDb, row: DraftRow): Work<Draft> {
  return serializeDraft(row, yield* refNames(db, [row]));
}

/** The reviewer of a convert or reject: the calling user (null for a system actor). */
export const reviewerOf = (ctx: Pick<OrgContext, "actor">) => (ctx.actor.type === "user" ? ctx.actor.id : null);
