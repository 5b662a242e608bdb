import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { fileAnswer } from "@/platform/http/file-answer";
import { orgErrors } from "@/platform/http/openapi";
import { PdfFile, Presentation, PresentationCreate, PresentationList } from "./schemas";
import { listPresentations, presentPlan, printPresentation } from "./service";

// Treatment-plan presentations (docs/clinical/chart-pictures.md, "Presentations"):
// paths under the clinical chart, as the plan's estimates are.

const CONTENT =
  "Practice header, patient, the tooth chart of the plan's procedures, the procedures in the plan's order (grouped by phase when the plan has phases) with fee, each insurance's estimate and the patient portion from the current estimates, totals, the estimates' notes (frequency or annual-maximum warnings), and a signature block.";
const NOT_FOUND = "404 when the patient or the treatment plan is missing, or the plan is not the patient's.";

export const presentationRoutes = (rt: Runtime) =>
  new Elysia({
    name: "cusp.presentations",
    prefix: "/api/v1/:org_id/clinical/patients/:patient_uuid/treatment-plans/:plan_uuid",
    tags: ["Treatment-plan presentations"],
  })
    .use(guard(rt))
    .get(
      "/presentation.pdf",
      async ({ ctx, params }) => {
        const pdf = await printPresentation(ctx, params.patient_uuid, params.plan_uuid);
        return fileAnswer(pdf.bytes, { type: "application/pdf", fileName: pdf.file_name });
      },
      {
        permission: "clinical.read",
        response: { 200: PdfFile, ...orgErrors() },
        detail: {
          operationId: "getClinicalTreatmentPlanPresentationPdf",
          summary: "A treatment plan as the patient reads it (PDF)",
          description: `${CONTENT} The figures are the estimates as stored: when any is stale the PDF says so (POST .../presentations recomputes them first). A plan without procedures renders with a note. Each print is audited as treatment_plan.presentation_printed. ${NOT_FOUND}`,
        },
      },
    )
    .post(
      "/presentations",
      ({ ctx, params, body, set }) => {
        set.status = 201;
        return presentPlan(rt, ctx, params.patient_uuid, params.plan_uuid, body);
      },
      {
        permission: "documents.sign",
        body: PresentationCreate,
        response: { 201: Presentation, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Present a treatment plan for signature",
          description: `Recomputes the plan's stale estimates, draws the presentation PDF (${CONTENT}) and stores it as a document of the patient (document_type treatment_plan_unsigned) with a signature request for signer_name (default the patient). A draft plan becomes proposed. When the request is signed (POST {P}/documents/{document_uuid}/signatures/{signature_uuid}/sign) the plan becomes accepted and the document treatment_plan_signed; the signed PDF and the figures kept here never change, even when fees do. Signing is refused (422 presentation_outdated) when the plan changed since it was presented. ${NOT_FOUND} 422 patient_archived; 422 plan_not_presentable for a rejected or completed plan; 409 plan_changed when the plan changed while the PDF was drawn (nothing stored).`,
        },
      },
    )
    .get("/presentations", ({ ctx, params }) => listPresentations(ctx, params.patient_uuid, params.plan_uuid), {
      permission: "clinical.read",
      response: { 200: PresentationList, ...orgErrors() },
      detail: {
        summary: "A treatment plan's presentations",
        description: `Newest first, each with its document, its signature's status and the figures it showed. ${NOT_FOUND}`,
      },
    });
