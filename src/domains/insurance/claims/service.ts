import { and, desc, eq, gte, inArray, isNull, lte, max, ne, sql } from "drizzle-orm";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { claimProcedures, claims } from "@db/tenant/claims";
import { documents } from "@db/tenant/documents";
import { insuranceCarriers, insurancePlans, insuranceSubscriptions, patientPlans, procedureEstimates } from "@db/tenant/insurance";
import { all, get, run, type Work } from "@/platform/db/work";
import { Conflict, InvalidTransition, NotFound, ValidationFailed, invalid, type ValidationIssue } from "@/platform/errors";
import { newId } from "@/platform/ids";
import { centsFromNumber } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { pageFrom } from "@/platform/records/paging";
import { checkDateRange } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { patientForWrite } from "@/domains/patients/record/scope";
import { requireProvider } from "@/domains/providers/record/service";
import { todayAt } from "@/domains/providers/locations/service";
import { setProcedureClaimState } from "@/domains/clinical/charted-procedures/claim-state";
import { claimRecords, proceduresOf, serializeClaims, type ClaimProcedureRow, type ClaimRow } from "./records";
import type { Claim, ClaimCreate, ClaimListQuery, ClaimPatch, ClaimStatus, ClaimStatusChange, ClaimType } from "./schemas";

// Claims (docs/insurance/claims.md, "Claims"): creating one takes the
// procedures on a patient plan, with their estimates as they are now; its
// states move as the table below says; voiding lets the procedures go. The
// rules are judged on the claim as it will be stored; every refusal is one
// 422 naming each bad field or procedure (404 first for what is missing).

type ProcedureRow = typeof chartedProcedures.$inferSelect;

/** Which status may follow which (anything else is 422 invalid_transition). */
const MOVES: Record<ClaimStatus, readonly ClaimStatus[]> = {
  unsent: ["hold", "queued", "sent", "void"],
  hold: ["unsent", "void"],
  queued: ["unsent", "sent", "void"],
  sent: ["received", "rejected", "void"],
  rejected: ["unsent", "void"],
  received: [],
  void: [],
};

/** Statuses whose claims can still change procedures and amounts. */
const EDITABLE: readonly ClaimStatus[] = ["unsent", "hold"];

const CLAIMABLE_STATUSES: Record<"claim" | "preauth", readonly string[]> = {
  claim: ["complete"],
  preauth: ["treatment_planned", "scheduled"],
};

const kindOf = (t: ClaimType) => (t === "preauth" ? "preauth" : "claim");
export const claimNumberOf = (seq: number) => `C${String(seq).padStart(6, "0")}`;

type PlanFacts = {
  patient_plan_id: string;
  patient_id: string;
  ordinal: number;
  subscription_id: string;
  plan_id: string;
  carrier_id: string;
};

function* planFacts(db: TenantDb, patientPlanId: string): Work<PlanFacts | undefined> {
  const pp = patientPlans;
  const sub = insuranceSubscriptions;
  return yield* get<PlanFacts>(
    db
      .select({
        patient_plan_id: pp.id,
        patient_id: pp.patient_id,
        ordinal: pp.ordinal,
        subscription_id: sub.id,
        plan_id: insurancePlans.id,
        carrier_id: insuranceCarriers.id,
      })
      .from(pp)
      .innerJoin(sub, eq(sub.id, pp.subscription_id))
      .innerJoin(insurancePlans, eq(insurancePlans.id, sub.plan_id))
      .innerJoin(insuranceCarriers, eq(insuranceCarriers.id, insurancePlans.carrier_id))
      .where(and(eq(pp.id, patientPlanId), isNull(pp.deleted_at))),
  );
}

/** The procedures asked for, in the order asked: 404 for one missing or another org's. */
function* requireProcedures(db: TenantDb, ids: string[]): Work<ProcedureRow[]> {
  const rows = yield* all<ProcedureRow>(
    db
      .select()
      .from(chartedProcedures)
      .where(and(inArray(chartedProcedures.id, ids), isNull(chartedProcedures.deleted_at))),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => {
    const row = byId.get(id);
    if (!row) throw new NotFound("Charted procedure");
    return row;
  });
}

/** The live claim procedures of these procedures on a plan, of one kind (what `already_claimed` is about). */
function* liveClaimsOf(db: TenantDb, procedureIds: string[], patientPlanId: string | null, kind: string | null, exceptClaimId?: string) {
  if (!procedureIds.length) return [];
  const cp = claimProcedures;
  return yield* all<{ procedure_id: string; claim_id: string; claim_number: string; kind: string; procedure_code: string }>(
    db
      .select({ procedure_id: cp.procedure_id, claim_id: cp.claim_id, claim_number: claims.claim_number, kind: cp.kind, procedure_code: cp.procedure_code })
      .from(cp)
      .innerJoin(claims, eq(claims.id, cp.claim_id))
      .where(
        and(
          inArray(cp.procedure_id, procedureIds),
          eq(cp.live, true),
          patientPlanId ? eq(cp.patient_plan_id, patientPlanId) : undefined,
          kind ? eq(cp.kind, kind) : undefined,
          exceptClaimId ? ne(cp.claim_id, exceptClaimId) : undefined,
        ),
      ),
  );
}

type Judged = {
  procedures: ProcedureRow[];
  primaryClaimId: string | null;
  /** per procedure: what the primary paid and wrote off (a secondary claim) */
  prior: Map<string, number>;
};

/**
 * The rules of a claim's procedures (create and PATCH): the patient's, the
 * status its type takes, not twice, not already on a live claim of the plan
 * (409), and for a secondary claim a received primary claim of each.
 */
function* judgeProcedures(
  db: TenantDb,
  claim: { patient_id: string; patient_plan_id: string; claim_type: ClaimType; ordinal: number },
  procedureIds: string[],
  exceptClaimId?: string,
): Work<Judged> {
  const procedures = yield* requireProcedures(db, procedureIds);
  const issues: ValidationIssue[] = [];
  const kind = kindOf(claim.claim_type);
  const seen = new Set<string>();
  procedures.forEach((p, i) => {
    const loc = ["body", "procedure_uuids", i];
    if (seen.has(p.id)) issues.push({ loc, msg: `Procedure ${p.procedure_code} is listed twice`, type: "value_error" });
    seen.add(p.id);
    if (p.patient_id !== claim.patient_id) issues.push({ loc, msg: `Procedure ${p.procedure_code} is not this patient's`, type: "value_error" });
    else if (!CLAIMABLE_STATUSES[kind].includes(p.status))
      issues.push({
        loc,
        msg:
          kind === "preauth"
            ? `Procedure ${p.procedure_code} is ${p.status}: a pre-authorization takes treatment-planned procedures`
            : `Procedure ${p.procedure_code} is ${p.status}: a claim takes completed procedures`,
        type: "value_error",
      });
    else if (p.do_not_bill_insurance) issues.push({ loc, msg: `Procedure ${p.procedure_code} is marked do_not_bill_insurance`, type: "value_error" });
  });
  if (claim.claim_type === "primary" && claim.ordinal !== 1)
    issues.push({
      loc: ["body", "claim_type"],
      msg: `The patient plan is at ordinal ${claim.ordinal}: a primary claim bills the ordinal 1 plan`,
      type: "value_error",
    });
  if (claim.claim_type === "secondary" && claim.ordinal < 2)
    issues.push({
      loc: ["body", "claim_type"],
      msg: "The patient plan is the primary one: a secondary claim bills a plan at ordinal 2 or more",
      type: "value_error",
    });
  const prior = new Map<string, number>();
  let primaryClaimId: string | null = null;
  if (claim.claim_type === "secondary" && !issues.length) {
    // the primary claim of each procedure: live, a claim (not a preauth), of another plan of the patient
    const primaries = (yield* liveClaimsOf(db, procedureIds, null, "claim")).filter((c) => c.claim_id !== exceptClaimId);
    const claimRows = primaries.length
      ? yield* all<ClaimRow>(
          db
            .select()
            .from(claims)
            .where(inArray(claims.id, [...new Set(primaries.map((c) => c.claim_id))])),
        )
      : [];
    const byId = new Map(claimRows.map((c) => [c.id, c]));
    const cps = yield* proceduresOf(
      db,
      claimRows.map((c) => c.id),
    );
    procedures.forEach((p, i) => {
      const found = primaries
        .map((c) => byId.get(c.claim_id)!)
        .find((c) => c && c.ordinal < claim.ordinal && primaries.some((x) => x.claim_id === c.id && x.procedure_id === p.id));
      if (!found || found.status !== "received") {
        issues.push({
          loc: ["body", "procedure_uuids", i],
          msg: found
            ? `Procedure ${p.procedure_code}'s primary claim ${found.claim_number} is ${found.status}, not received`
            : `Procedure ${p.procedure_code} has no primary claim`,
          type: "value_error",
        });
        return;
      }
      primaryClaimId ??= found.id;
      const cp = cps.find((x) => x.claim_id === found.id && x.procedure_id === p.id)!;
      prior.set(p.id, cp.paid_cents + cp.write_off_cents);
    });
  }
  if (issues.length) throw new ValidationFailed(issues);
  const taken = yield* liveClaimsOf(db, procedureIds, claim.patient_plan_id, kind, exceptClaimId);
  if (taken.length) {
    const names = taken.map((t) => `${t.procedure_code} (${t.procedure_id}) is on claim ${t.claim_number}`).join("; ");
    throw new Conflict(`Already on a live claim of this patient plan: ${names}`, "already_claimed");
  }
  return { procedures, primaryClaimId, prior };
}

/** The patient's documents to attach: 404 when missing, 422 when another's. */
function* judgeAttachments(db: TenantDb, patientId: string, ids: string[]): Work<string[]> {
  if (!ids.length) return [];
  const rows = yield* all<{ id: string; owner_type: string | null; owner_id: string | null }>(
    db
      .select({ id: documents.id, owner_type: documents.owner_type, owner_id: documents.owner_id })
      .from(documents)
      .where(and(inArray(documents.id, ids), isNull(documents.deleted_at))),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const issues: ValidationIssue[] = [];
  ids.forEach((id, i) => {
    const d = byId.get(id);
    if (!d) throw new NotFound("Document");
    if (d.owner_type !== "patient" || d.owner_id !== patientId)
      issues.push({ loc: ["body", "attachment_document_uuids", i], msg: "Not a document of this patient", type: "value_error" });
  });
  if (issues.length) throw new ValidationFailed(issues);
  return [...new Set(ids)];
}

/** The claim procedure rows of a claim: each procedure as charted, its estimate for the plan as it is now. */
function* claimProcedureValues(
  s: TxScope,
  claimId: string,
  patientPlanId: string,
  kind: string,
  judged: Judged,
): Work<(typeof claimProcedures.$inferInsert)[]> {
  const ids = judged.procedures.map((p) => p.id);
  const e = procedureEstimates;
  const estimates = yield* all<{ procedure_id: string; estimate: number; deductible: number; write_off: number }>(
    s.tx
      .select({
        procedure_id: e.charted_procedure_id,
        estimate: sql<number>`coalesce(${e.insurance_estimate_override_cents}, ${e.insurance_estimate_cents})`,
        deductible: sql<number>`coalesce(${e.deductible_override_cents}, ${e.deductible_applied_cents})`,
        write_off: sql<number>`coalesce(${e.write_off_override_cents}, ${e.write_off_cents})`,
      })
      .from(e)
      .where(and(inArray(e.charted_procedure_id, ids), eq(e.patient_plan_id, patientPlanId), isNull(e.deleted_at))),
  );
  const byProc = new Map(estimates.map((x) => [x.procedure_id, x]));
  return judged.procedures.map((p, i) => {
    const est = byProc.get(p.id);
    return {
      id: newId(),
      claim_id: claimId,
      procedure_id: p.id,
      patient_plan_id: patientPlanId,
      kind,
      live: true,
      item_order: i + 1,
      procedure_code: p.procedure_code,
      procedure_code_id: p.procedure_code_id,
      tooth_number: p.tooth_number,
      surfaces: p.surfaces,
      date_service: p.date_service,
      fee_billed_cents: p.fee_override_cents ?? p.office_fee_cents,
      insurance_estimate_cents: est?.estimate ?? 0,
      deductible_estimate_cents: est?.deductible ?? 0,
      write_off_estimate_cents: est?.write_off ?? 0,
      prior_paid_cents: judged.prior.get(p.id) ?? 0,
      status: "estimate",
      created_at: s.now,
      updated_at: s.now,
    };
  });
}

/** has_active_claim and code_sent of these procedures, from their live claim procedures after the write. */
export function* refreshProcedureClaimState(s: TxScope, procedureIds: string[]): Work<void> {
  const live = yield* liveClaimsOf(s.tx, procedureIds, null, null);
  yield* setProcedureClaimState(
    s,
    [...new Set(procedureIds)].map((id) => {
      const on = live.find((l) => l.procedure_id === id);
      return { procedure_id: id, has_active_claim: !!on, code_sent: on?.procedure_code ?? null };
    }),
  );
}

function* replaceProcedures(s: TxScope, claim: ClaimRow, judged: Judged): Work<string[]> {
  const before = yield* proceduresOf(s.tx, [claim.id]);
  yield* run(s.tx.delete(claimProcedures).where(eq(claimProcedures.claim_id, claim.id)));
  const values = yield* claimProcedureValues(s, claim.id, claim.patient_plan_id, kindOf(claim.claim_type as ClaimType), judged);
  yield* run(s.tx.insert(claimProcedures).values(values));
  return [...before.map((p) => p.procedure_id), ...values.map((v) => v.procedure_id)];
}

const serializeOne = function* (db: TenantDb, row: ClaimRow): Work<Claim> {
  return (yield* serializeClaims(db, [row]))[0]!;
};

/** POST {P}/insurance/claims */
export async function createClaim(ctx: OrgContext, input: ClaimCreate): Promise<Claim> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, input.patient_uuid);
    const plan = yield* planFacts(s.tx, input.patient_plan_uuid);
    if (!plan) throw new NotFound("Patient plan");
    if (plan.patient_id !== patient.id) throw invalid(["body", "patient_plan_uuid"], "The patient plan is another patient's");
    const judged = yield* judgeProcedures(
      s.tx,
      { patient_id: patient.id, patient_plan_id: plan.patient_plan_id, claim_type: input.claim_type, ordinal: plan.ordinal },
      input.procedure_uuids,
    );
    const treating = input.treating_provider_uuid ?? judged.procedures.find((p) => p.provider_id)?.provider_id ?? null;
    if (treating) yield* requireProvider(s.tx, treating);
    const billing = input.billing_provider_uuid ?? treating;
    if (billing && billing !== treating) yield* requireProvider(s.tx, billing);
    const attachments = yield* judgeAttachments(s.tx, patient.id, input.attachment_document_uuids ?? []);
    const seq = ((yield* get<{ n: number | null }>(s.tx.select({ n: max(claims.claim_seq) }).from(claims)))?.n ?? 0) + 1;
    const id = newId();
    const row = yield* claimRecords.create(
      s,
      {
        id,
        claim_seq: seq,
        claim_number: claimNumberOf(seq),
        claim_type: input.claim_type,
        status: "unsent",
        patient_id: patient.id,
        patient_plan_id: plan.patient_plan_id,
        subscription_id: plan.subscription_id,
        plan_id: plan.plan_id,
        carrier_id: plan.carrier_id,
        ordinal: plan.ordinal,
        treating_provider_id: treating,
        billing_provider_id: billing,
        location_id: judged.procedures.find((p) => p.location_id)?.location_id ?? patient.location_id,
        place_of_service: input.place_of_service ?? "11",
        prior_authorization_number: input.prior_authorization_number ?? null,
        note: input.note ?? null,
        attachment_document_ids: attachments,
        date_service: judged.procedures.map((p) => p.date_service).sort()[0]!,
        date_sent: null,
        date_received: null,
        primary_claim_id: judged.primaryClaimId,
        secondary_ready: false,
        batch_id: null,
        status_note: null,
      },
      { patient_id: patient.id, claim_type: input.claim_type, status: "unsent", carrier_id: plan.carrier_id },
    );
    const values = yield* claimProcedureValues(s, id, plan.patient_plan_id, kindOf(input.claim_type), judged);
    yield* run(s.tx.insert(claimProcedures).values(values));
    yield* refreshProcedureClaimState(
      s,
      values.map((v) => v.procedure_id),
    );
    return yield* serializeOne(s.tx, row);
  });
}

/** PATCH {P}/insurance/claims/{claim_uuid}: procedures and amounts only while unsent or on hold; the note any time before void. */
export async function updateClaim(ctx: OrgContext, id: string, input: ClaimPatch): Promise<Claim> {
  return withTransaction(ctx, function* (s) {
    const row = yield* claimRecords.requireCurrent(s.tx, id, input.base_version);
    const { base_version: _, ...fields } = input;
    const changesClaim = Object.keys(fields).some((k) => k !== "note");
    if (changesClaim && !EDITABLE.includes(row.status as ClaimStatus))
      throw invalid(["body"], `The claim is ${row.status}: only unsent claims or claims on hold can change`, "value_error", "claim_locked");
    if (row.status === "void") throw invalid(["body"], "The claim is void", "value_error", "claim_locked");
    const patch: Partial<ClaimRow> = {};
    let touched: string[] = [];
    if (fields.procedure_uuids) {
      const judged = yield* judgeProcedures(s.tx, row as ClaimRow & { claim_type: ClaimType }, fields.procedure_uuids, row.id);
      touched = yield* replaceProcedures(s, row, judged);
      patch.date_service = judged.procedures.map((p) => p.date_service).sort()[0]!;
      patch.primary_claim_id = judged.primaryClaimId;
    }
    if (fields.treating_provider_uuid !== undefined) {
      if (fields.treating_provider_uuid) yield* requireProvider(s.tx, fields.treating_provider_uuid);
      patch.treating_provider_id = fields.treating_provider_uuid;
    }
    if (fields.billing_provider_uuid !== undefined) {
      if (fields.billing_provider_uuid) yield* requireProvider(s.tx, fields.billing_provider_uuid);
      patch.billing_provider_id = fields.billing_provider_uuid;
    }
    if (fields.place_of_service !== undefined) patch.place_of_service = fields.place_of_service;
    if (fields.prior_authorization_number !== undefined) patch.prior_authorization_number = fields.prior_authorization_number;
    if (fields.note !== undefined) patch.note = fields.note;
    if (fields.attachment_document_uuids) patch.attachment_document_ids = yield* judgeAttachments(s.tx, row.patient_id, fields.attachment_document_uuids);
    const updated = yield* claimRecords.update(s, row.id, row.version, patch, { eventData: { patient_id: row.patient_id } });
    if (touched.length) yield* refreshProcedureClaimState(s, touched);
    return yield* serializeOne(s.tx, updated);
  });
}

/**
 * Move a claim to another status (the MOVES table); what each move does
 * besides: sent and received set their dates, void lets the procedures go.
 * Called by the route and by the jobs (a batch sends, a posting receives).
 */
export function* moveClaim(
  s: TxScope,
  row: ClaimRow,
  to: ClaimStatus,
  opts: { note?: string | null; date?: string; batchId?: string; secondaryReady?: boolean } = {},
): Work<ClaimRow> {
  const from = row.status as ClaimStatus;
  if (!MOVES[from].includes(to)) throw new InvalidTransition(from, to);
  const today = opts.date ?? (yield* todayAt(s.tx, row.location_id));
  const patch: Partial<ClaimRow> = { status: to, status_note: opts.note ?? null };
  if (to === "sent") patch.date_sent = today;
  if (to === "received") {
    patch.date_received = today;
    patch.secondary_ready = opts.secondaryReady ?? false;
  }
  if (to === "unsent") patch.date_sent = null;
  if (opts.batchId) patch.batch_id = opts.batchId;
  const updated = yield* claimRecords.update(s, row.id, row.version, patch, {
    action: "status_changed",
    eventData: { patient_id: row.patient_id, from_status: from, status: to },
    changedFields: false,
  });
  if (to === "void") {
    const procs = yield* proceduresOf(s.tx, [row.id]);
    yield* run(s.tx.update(claimProcedures).set({ live: false, status: "void", updated_at: s.now }).where(eq(claimProcedures.claim_id, row.id)));
    yield* refreshProcedureClaimState(
      s,
      procs.map((p) => p.procedure_id),
    );
  }
  return updated;
}

/**
 * A pre-authorization's answer: the carrier's estimate per procedure, kept on
 * the claim procedure and shown on the procedure's estimate for the plan
 * (preauth_amount, preauth_date, preauth_number); procedures it gives no
 * figure for keep theirs.
 */
function* recordPreauthAnswer(s: TxScope, claim: ClaimRow, answers: NonNullable<ClaimStatusChange["preauth_estimates"]>): Work<void> {
  const procs = yield* proceduresOf(s.tx, [claim.id]);
  const issues: ValidationIssue[] = [];
  answers.forEach((a, i) => {
    const cp = procs.find((p) => p.procedure_id === a.procedure_uuid);
    if (!cp)
      issues.push({ loc: ["body", "preauth_estimates", i, "procedure_uuid"], msg: "The procedure is not on this pre-authorization", type: "value_error" });
    else if (centsFromNumber(a.insurance_estimate) > cp.fee_billed_cents)
      issues.push({ loc: ["body", "preauth_estimates", i, "insurance_estimate"], msg: `More than ${cp.procedure_code}'s fee`, type: "value_error" });
  });
  if (issues.length) throw new ValidationFailed(issues);
  for (const cp of procs) {
    const answer = answers.find((a) => a.procedure_uuid === cp.procedure_id);
    const cents = answer ? centsFromNumber(answer.insurance_estimate) : null;
    yield* run(s.tx.update(claimProcedures).set({ status: "received", preauth_estimate_cents: cents, updated_at: s.now }).where(eq(claimProcedures.id, cp.id)));
    if (cents === null) continue;
    yield* run(
      s.tx
        .update(procedureEstimates)
        .set({ preauth_amount_cents: cents, preauth_date: claim.date_received, preauth_number: claim.prior_authorization_number ?? claim.claim_number })
        .where(
          and(
            eq(procedureEstimates.charted_procedure_id, cp.procedure_id),
            eq(procedureEstimates.patient_plan_id, claim.patient_plan_id),
            isNull(procedureEstimates.deleted_at),
          ),
        ),
    );
  }
}

/** POST {P}/insurance/claims/{claim_uuid}/status */
export async function changeClaimStatus(ctx: OrgContext, id: string, input: ClaimStatusChange): Promise<Claim> {
  return withTransaction(ctx, function* (s) {
    const row = yield* claimRecords.requireCurrent(s.tx, id, input.base_version);
    if (input.preauth_estimates && (row.claim_type !== "preauth" || input.status !== "received"))
      throw invalid(["body", "preauth_estimates"], "Only a pre-authorization moving to received takes the carrier's estimates");
    const updated = yield* moveClaim(s, row, input.status, { note: input.note, date: input.date });
    if (row.claim_type === "preauth" && input.status === "received") yield* recordPreauthAnswer(s, updated, input.preauth_estimates ?? []);
    return yield* serializeOne(s.tx, updated);
  });
}

export async function getClaim(ctx: OrgContext, id: string): Promise<Claim> {
  return ctx.db.read(function* (db) {
    return yield* serializeOne(db, yield* claimRecords.require(db, id));
  });
}

/** GET {P}/insurance/claims: newest service date first. */
export async function listClaims(ctx: OrgContext, q: ClaimListQuery) {
  checkDateRange(q);
  if (q.sent_from && q.sent_to && q.sent_to < q.sent_from) throw invalid(["query", "sent_to"], "Must not be before sent_from");
  const C = claims;
  const where = and(
    q.status ? inArray(C.status, q.status) : undefined,
    q.claim_type ? eq(C.claim_type, q.claim_type) : undefined,
    q.patient_uuid ? eq(C.patient_id, q.patient_uuid) : undefined,
    q.carrier_uuid ? eq(C.carrier_id, q.carrier_uuid) : undefined,
    q.date_from ? gte(C.date_service, q.date_from) : undefined,
    q.date_to ? lte(C.date_service, q.date_to) : undefined,
    q.sent_from ? gte(C.date_sent, q.sent_from) : undefined,
    q.sent_to ? lte(C.date_sent, q.sent_to) : undefined,
  );
  return ctx.db.read(function* (db) {
    const page = yield* pageFrom<ClaimRow>(
      q,
      db.select({ n: sql<number>`count(*)` }).from(C).where(where),
      db.select().from(C).where(where).orderBy(desc(C.date_service), desc(C.claim_seq)),
    );
    return { ...page, items: yield* serializeClaims(db, page.items) };
  });
}

export type { ClaimProcedureRow };
