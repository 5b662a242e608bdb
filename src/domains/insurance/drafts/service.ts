import { eq, inArray, sql } from "drizzle-orm";
import { queueJob } from "@/platform/queue/enqueue";
import { insuranceDrafts, type DraftCandidates as StoredCandidates } from "@db/tenant/insurance";
import { all, allPrepared, prepared, type PreparedDef, type Work } from "@/platform/db/work";
import { audit } from "@/platform/audit/audit";
import { Conflict, invalid } from "@/platform/errors";
import { newId } from "@/platform/ids";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { emit } from "@/platform/records/events";
import { pageOf } from "@/platform/records/paging";
import { withTransaction } from "@/platform/records/transaction";
import { patientRecords, type PatientRow } from "@/domains/patients/record/service";
import { inPatientContext } from "@/domains/insurance/patient-plans/records";
import { getPatientPlan } from "@/domains/insurance/patient-plans/service";
import { getSubscription } from "@/domains/insurance/subscriptions/service";
import { draftsMatch } from "./drafts-match.job";
import { convertMatched } from "./convert";
import { matchDraft } from "./match";
import { sourceRefOf } from "./row";
import { draftRecords, presentDraft, refNames, reviewerOf, serializeDraft, type DraftRow } from "./records";
import type { DraftConversion, DraftDetail, DraftImport, DraftImportResult, DraftListQuery, DraftReject } from "./schemas";

const t = insuranceDrafts;

/**
 * Rows per INSERT of an import, largest first: each size is one statement prepared once per
 * connection (500 rows of 3 bound values each plus 4 shared ones stay far below SQLite's 32,766),
 * so 10,000 rows are 20 runs of one statement, and any remainder at most 4 + 9 + 9 runs more.
 */
const INSERT_SIZES = [500, 100, 10, 1] as const;
const insertDefs = new Map<number, PreparedDef<unknown>>();

/** INSERT of `n` new drafts: each its id, raw row and source_ref; patient, import, source system and time shared. */
function insertDrafts(n: number): PreparedDef<unknown> {
  let def = insertDefs.get(n);
  if (!def) {
    def = prepared((db) =>
      db
        .insert(t)
        .values(
          Array.from({ length: n }, (_, j) => ({
            id: sql.placeholder(`id${j}`),
            raw_data_json: sql.placeholder(`raw${j}`),
            source_ref: sql.placeholder(`ref${j}`),
            patient_id: sql.placeholder("patient_id"),
            import_id: sql.placeholder("import_id"),
            source_system: sql.placeholder("source_system"),
            review_status: "pending",
            match_attempted: false,
            version: 1,
            created_at: sql.placeholder("now"),
            updated_at: sql.placeholder("now"),
          })),
        )
        .prepare(),
    );
    insertDefs.set(n, def);
  }
  return def;
}

/** The first page an import answers with (GET /drafts?import_id= gives the rest). */
const FIRST_PAGE = { page: 1, page_size: 50 };

// ---- rules -----------------------------------------------------------------------------------

/** The patient of an import: 404 when missing; archived patients are read-only (422 patient_archived). */
function* importPatient(db: TenantDb, id: string): Work<PatientRow> {
  const row = yield* patientRecords.require(db, id, true);
  if (row.deleted_at) throw invalid(["body", "patient_uuid"], "Patient is archived; restore it first", "value_error", "patient_archived");
  return row;
}

/** A converted draft is final: its subscription and patient plan exist (409 draft_converted). */
function assertNotConverted(row: DraftRow, what: string): void {
  if (row.review_status === "converted") throw new Conflict(`The draft has been converted; it cannot be ${what}`, "draft_converted");
}

// ---- reads ---------------------------------------------------------------------------------

export async function listDrafts(ctx: OrgContext, q: DraftListQuery) {
  return ctx.db.read(function* (db) {
    if (q.patient_uuid) yield* patientRecords.require(db, q.patient_uuid, true);
    const page = yield* draftRecords.list(db, q, {
      where: [
        q.patient_uuid ? eq(t.patient_id, q.patient_uuid) : undefined,
        q.review_status ? eq(t.review_status, q.review_status) : undefined,
        q.import_id ? eq(t.import_id, q.import_id) : undefined,
      ],
      orderBy: [t.id],
    });
    const names = yield* refNames(db, page.items);
    return { ...page, items: page.items.map((r) => serializeDraft(r, names)) };
  });
}

export async function getDraft(ctx: OrgContext, id: string): Promise<DraftDetail> {
  return ctx.db.read(function* (db) {
    const row = yield* draftRecords.require(db, id);
    const stored = row.candidates;
    const names = yield* refNames(db, [row], stored);
    const named = (list: StoredCandidates["carriers"], from: ReadonlyMap<string, string>) =>
      list.map((c) => ({ uuid: c.id, name: from.get(c.id) ?? (c.name || null), reason: c.reason }));
    return {
      candidates: {
        carriers: named(stored?.carriers ?? [], names.carriers),
        plans: named(stored?.plans ?? [], names.plans),
        patients: named(stored?.patients ?? [], names.patients),
      },
      draft: serializeDraft(row, names),
    };
  });
}

// ---- import --------------------------------------------------------------------------------

/**
 * One draft per row, all in one write (multi-row inserts), then the matching job after commit.
 * The import is one audit entry and one event (resource insurance_draft_import); each draft
 * carries its import_id. Answers the first page of the drafts in row order.
 */
export async function importDrafts(ctx: OrgContext, input: DraftImport): Promise<DraftImportResult> {
  const importId = newId();
  return withTransaction(ctx, function* (s) {
    const patient = yield* importPatient(s.tx, input.patient_uuid);
    const source = input.source_system ?? null;
    const ids = input.rows.map(() => newId());
    const shared = { patient_id: patient.id, import_id: importId, source_system: source, now: s.now };
    for (let i = 0; i < ids.length; ) {
      const n = INSERT_SIZES.find((size) => size <= ids.length - i)!;
      const args: Record<string, unknown> = { ...shared };
      for (let j = 0; j < n; j++) {
        const raw = input.rows[i + j]!;
        args[`id${j}`] = ids[i + j];
        args[`raw${j}`] = raw;
        args[`ref${j}`] = sourceRefOf(raw);
      }
      yield* allPrepared(s.tx, insertDrafts(n), args); // an INSERT: answers no rows
      i += n;
    }
    const summary = { import_id: importId, patient_id: patient.id, source_system: source, draft_count: ids.length };
    yield* audit(s, { action: "insurance_draft_import.created", resource_type: "insurance_draft_import", resource_id: importId, before: null, after: summary });
    yield* inPatientContext(s, patient.id, announceImport(s, importId, ids.length));
    queueJob(s, draftsMatch, { import_id: importId, patient_id: patient.id }, { singletonKey: importId });
    const first = yield* all<DraftRow>(
      s.tx
        .select()
        .from(t)
        .where(inArray(t.id, ids.slice(0, FIRST_PAGE.page_size)))
        .orderBy(t.id),
    );
    const names = yield* refNames(s.tx, first.slice(0, 1));
    return {
      import_id: importId,
      draft_count: ids.length,
      drafts: pageOf(
        first.map((r) => serializeDraft(r, names)),
        ids.length,
        FIRST_PAGE,
      ),
    };
  });
}

function* announceImport(s: TxScope, importId: string, draftCount: number): Work<void> {
  emit(s, {
    type: "insurance_draft_import.created",
    resource_type: "insurance_draft_import",
    resource_id: importId,
    data: { import_id: importId, draft_count: draftCount },
  });
}

// ---- review --------------------------------------------------------------------------------

/** Any draft but a converted one; rejecting again replaces the reason. */
export async function rejectDraft(ctx: OrgContext, id: string, input: DraftReject) {
  return withTransaction(ctx, function* (s) {
    const current = yield* draftRecords.require(s.tx, id);
    assertNotConverted(current, "rejected");
    const row = yield* inPatientContext(
      s,
      current.patient_id,
      draftRecords.update(
        s,
        id,
        current.version,
        { review_status: "rejected", reject_reason: input.reason, reviewed_at: s.now, reviewed_by_user_uuid: reviewerOf(s) },
        { action: "rejected", eventData: { review_status: "rejected" } },
      ),
    );
    return yield* presentDraft(s.tx, row);
  });
}

/**
 * Match the draft again, now and in this write (one draft: no job): carrier, plan and subscriber
 * are found afresh, the candidates replaced, and a rejected draft reopened (reason and review cleared).
 */
export async function rematchDraft(ctx: OrgContext, id: string) {
  return withTransaction(ctx, function* (s) {
    const current = yield* draftRecords.require(s.tx, id);
    assertNotConverted(current, "matched again");
    const outcome = yield* matchDraft(s.tx, current);
    const row = yield* inPatientContext(
      s,
      current.patient_id,
      draftRecords.update(
        s,
        id,
        current.version,
        { ...outcome, match_attempted: true, reject_reason: null, reviewed_at: null, reviewed_by_user_uuid: null },
        { action: "rematched", eventData: { review_status: outcome.review_status } },
      ),
    );
    return yield* presentDraft(s.tx, row);
  });
}

/**
 * A matched draft becomes a subscription (the subscriber's card for the matched plan, reused when
 * the subscriber already holds a live one with the same member id) and a patient plan for the
 * draft's patient at the next free ordinal, in one write. 409 draft_converted when already
 * converted; 422 draft_not_matched in any other status.
 */
export async function convertDraft(ctx: OrgContext, id: string): Promise<DraftConversion> {
  const done = await withTransaction(ctx, function* (s) {
    const current = yield* draftRecords.require(s.tx, id);
    assertNotConverted(current, "converted again");
    if (current.review_status !== "matched")
      throw invalid(["path", "draft_uuid"], `Only a matched draft can be converted; this one is ${current.review_status}`, "value_error", "draft_not_matched");
    const made = yield* convertMatched(s, current);
    const row = yield* inPatientContext(
      s,
      current.patient_id,
      draftRecords.update(
        s,
        id,
        current.version,
        {
          review_status: "converted",
          converted_subscription_id: made.subscriptionId,
          converted_patient_plan_id: made.patientPlanId,
          reviewed_at: s.now,
          reviewed_by_user_uuid: reviewerOf(s),
        },
        { action: "converted", eventData: { review_status: "converted", subscription_id: made.subscriptionId, patient_plan_id: made.patientPlanId } },
      ),
    );
    return { draft: yield* presentDraft(s.tx, row), ...made };
  });
  // the subscription and patient plan as their own features answer them (read after commit)
  const [subscription, patient_plan] = await Promise.all([getSubscription(ctx, done.subscriptionId), getPatientPlan(ctx, done.patientPlanId)]);
  return { draft: done.draft, subscription, patient_plan };
}
