import { createHash } from "node:crypto";
import { desc, eq, inArray } from "drizzle-orm";
import { documentSignatures } from "@db/tenant/documents";
import { treatmentPlanPresentations } from "@db/tenant/presentations";
import { audit } from "@/platform/audit/audit";
import { all, get, type Work } from "@/platform/db/work";
import { Conflict, invalid } from "@/platform/errors";
import { newId } from "@/platform/ids";
import { formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import type { PlatformRuntime } from "@/platform/runtime";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { patientRecords } from "@/domains/patients/record/service";
import { requirePlan, movePlanStatus } from "@/domains/clinical/treatment-plans/service";
import { treatmentPlanRecords, type PlanRow } from "@/domains/clinical/treatment-plans/records";
import { renderToothChartSvg, toothChartSize } from "@/domains/clinical/chart-pictures/tooth-chart-svg";
import { svgToPng } from "@/domains/clinical/chart-pictures/png";
import { storeGeneratedDocument } from "@/domains/documents/generated";
import { documentRecords } from "@/domains/documents/records";
import { openSignatureRequests } from "@/domains/documents/signatures/service";
import { refreshStaleEstimates } from "@/domains/insurance/estimates/service";
import { presentationData, type Presented } from "./data";
import { renderPresentationPdf } from "./render";
import type { Presentation, PresentationCreate } from "./schemas";

// Treatment-plan presentations (docs/clinical/chart-pictures.md,
// "Presentations"): the plan as a PDF the patient reads, and, when presented,
// that PDF stored as the patient's document with a signature request on it.
// Signing it (the document signature endpoints) accepts the plan, through the
// moment document.signed (insurance/reactions.ts); the stored PDF and the
// figures kept with it never change after, whatever fees do.

type PresentationRow = typeof treatmentPlanPresentations.$inferSelect;
type SignatureState = { id: string; status: string; signed_at: string | null };

const STATUS: Record<string, Presentation["status"]> = { pending: "awaiting_signature", signed: "signed", declined: "declined", canceled: "canceled" };

const serialize = (r: PresentationRow, sig: SignatureState | undefined): Presentation => ({
  id: r.id,
  treatment_plan_uuid: r.treatment_plan_id,
  patient_uuid: r.patient_id,
  document_uuid: r.document_id,
  signature_uuid: r.signature_id,
  status: STATUS[sig?.status ?? "canceled"] ?? "canceled",
  signed_at: sig?.signed_at ?? null,
  procedure_count: r.figures.procedure_count,
  total_fee: formatCents(r.figures.fee_cents)!,
  insurance_estimates: r.figures.insurance_cents.map((c) => formatCents(c)!),
  write_off: formatCents(r.figures.write_off_cents ?? 0)!,
  patient_portion: formatCents(r.figures.patient_cents)!,
  estimate_state: r.figures.estimate_state,
  sha256: r.sha256,
  page_count: r.page_count,
  presented_by: r.presented_by,
  version: r.version,
  created_at: r.created_at,
});

const presentationRecords = defineResource<PresentationRow, PresentationRow>({
  table: treatmentPlanPresentations,
  name: "treatment_plan_presentation",
  label: "Treatment plan presentation",
  serialize: (r) => r,
});

/** Presenting a plan that is rejected or completed is refused: present a plan still to be agreed. */
function assertPresentable(plan: PlanRow) {
  if (plan.status === "rejected" || plan.status === "completed")
    throw invalid(
      ["path", "plan_uuid"],
      `The treatment plan is ${plan.status}; only a draft, proposed or accepted plan is presented`,
      "value_error",
      "plan_not_presentable",
    );
}

async function renderPresented(p: Presented) {
  const svg = renderToothChartSvg(p.picture);
  const chart_png = await svgToPng(svg, toothChartSize(p.picture).width, 1600);
  return renderPresentationPdf({ ...p.data, chart_png });
}

const fileName = (chart: string) => `treatment-plan-${chart}.pdf`;

/** The presentation PDF as the plan and its estimates are now; each print audited as treatment_plan.presentation_printed. */
export async function printPresentation(ctx: OrgContext, patientId: string, planId: string): Promise<{ bytes: Uint8Array<ArrayBuffer>; file_name: string }> {
  const { presented, chart } = await withTransaction(ctx, function* (s) {
    const patient = yield* patientForRead(s.tx, patientId);
    const plan = yield* requirePlan(s.tx, patient, planId);
    const presented = yield* presentationData(s.tx, ctx, patient, plan);
    yield* audit(s, {
      action: "treatment_plan.presentation_printed",
      resource_type: "treatment_plan",
      resource_id: plan.id,
      before: null,
      after: { patient_id: patient.id, ...presented.figures },
    });
    return { presented, chart: patient.chart_number ?? patient.id };
  });
  const pdf = await renderPresented(presented);
  return { bytes: pdf.bytes as Uint8Array<ArrayBuffer>, file_name: fileName(chart) };
}

function* signatureStates(db: TenantDb, ids: string[]): Work<Map<string, SignatureState>> {
  if (!ids.length) return new Map();
  const rows = yield* all(
    db
      .select({ id: documentSignatures.id, status: documentSignatures.status, signed_at: documentSignatures.signed_at })
      .from(documentSignatures)
      .where(inArray(documentSignatures.id, ids)),
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Present the plan: stale estimates are recomputed first, the PDF is drawn
 * from the plan as it then is, stored as a document of the patient
 * (treatment_plan_unsigned) with a signature request for the patient, and a
 * draft plan becomes proposed, all in one write. 409 plan_changed when the plan
 * changed while the PDF was drawn (nothing is stored).
 */
export async function presentPlan(rt: PlatformRuntime, ctx: OrgContext, patientId: string, planId: string, input: PresentationCreate): Promise<Presentation> {
  await ctx.db.read(function* (db) {
    const patient = yield* patientForWrite(db, patientId);
    assertPresentable(yield* requirePlan(db, patient, planId));
  });
  await refreshStaleEstimates(ctx, patientId, planId);
  const { presented, patient, plan } = await ctx.db.read(function* (db) {
    const patient = yield* patientForWrite(db, patientId);
    const plan = yield* requirePlan(db, patient, planId);
    return { presented: yield* presentationData(db, ctx, patient, plan), patient, plan };
  });
  const pdf = await renderPresented(presented);
  const sha256 = createHash("sha256").update(pdf.bytes).digest("hex");
  const documentId = newId();
  return storeGeneratedDocument(
    rt,
    ctx,
    {
      id: documentId,
      owner: { type: "patient", id: patient.id },
      document_type: "treatment_plan_unsigned",
      title: `Treatment plan: ${plan.name} (presented ${presented.data.prepared_on})`,
      file_name: fileName(patient.chart_number ?? patient.id),
      mime_type: "application/pdf",
      bytes: pdf.bytes,
      document_date: presented.data.prepared_on,
      text: pdf.text,
      page_count: pdf.pages,
    },
    function* (s) {
      const now = yield* requirePlan(s.tx, patient, plan.id);
      if (now.version !== plan.version) throw new Conflict("The treatment plan changed while it was being presented; present it again", "plan_changed");
      const signer = input?.signer_name ?? presented.data.signer_name;
      const { items } = yield* openSignatureRequests(s, documentId, {
        signers: [
          {
            signer_name: signer,
            signer_role: input?.signer_role ?? "patient",
            signer_email: input?.signer_email ?? null,
            // a guardian signs for the patient and is not the patient
            signer_patient_uuid: (input?.signer_role ?? "patient") === "patient" ? patient.id : null,
          },
        ],
      });
      const proposed = now.status === "draft" ? yield* movePlanStatus(s, patient, now, "proposed") : now;
      const row = yield* presentationRecords.create(
        s,
        {
          patient_id: patient.id,
          treatment_plan_id: plan.id,
          document_id: documentId,
          signature_id: items[0]!.id,
          figures: { ...presented.figures, plan_version: proposed.version },
          sha256,
          page_count: pdf.pages,
          presented_by: s.actor.type === "user" ? s.actor.id : null,
        },
        { treatment_plan_uuid: plan.id, document_uuid: documentId },
      );
      return serialize(row, { id: items[0]!.id, status: "pending", signed_at: null });
    },
  );
}

/** The plan's presentations, newest first. 404 patient or plan. */
export async function listPresentations(ctx: OrgContext, patientId: string, planId: string): Promise<{ items: Presentation[]; total: number }> {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const plan = yield* requirePlan(db, patient, planId);
    const rows = yield* all(
      db
        .select()
        .from(treatmentPlanPresentations)
        .where(eq(treatmentPlanPresentations.treatment_plan_id, plan.id))
        .orderBy(desc(treatmentPlanPresentations.created_at), desc(treatmentPlanPresentations.id)),
    );
    const sigs = yield* signatureStates(
      db,
      rows.map((r) => r.signature_id),
    );
    const items = rows.map((r) => serialize(r, sigs.get(r.signature_id)));
    return { items, total: items.length };
  });
}

/**
 * A presentation's document was signed (moment document.signed, in the
 * signing write): the plan becomes accepted and the document
 * treatment_plan_signed. A plan changed since it was presented (its version
 * moved: procedures, phases, status) or deleted refuses the signature with
 * 422 presentation_outdated, so no one signs what the plan no longer is.
 */
export function* acceptPresentedPlan(s: TxScope, documentId: string): Work<void> {
  const row = yield* get(s.tx.select().from(treatmentPlanPresentations).where(eq(treatmentPlanPresentations.document_id, documentId)));
  if (!row) return;
  const plan = yield* treatmentPlanRecords.find(s.tx, row.treatment_plan_id, true);
  if (!plan || plan.deleted_at || plan.version !== row.figures.plan_version)
    throw invalid(
      ["path", "document_uuid"],
      "The treatment plan changed after this presentation was made; present it again and sign the new one",
      "value_error",
      "presentation_outdated",
    );
  const patient = yield* patientRecords.require(s.tx, row.patient_id, true);
  if (plan.status !== "accepted") yield* movePlanStatus(s, patient, plan, "accepted");
  yield* documentRecords.update(s, documentId, undefined, { document_type: "treatment_plan_signed" }, { action: "updated" });
  yield* presentationRecords.update(s, row.id, row.version, {}, { action: "signed", changedFields: false, eventData: { treatment_plan_uuid: plan.id } });
}
