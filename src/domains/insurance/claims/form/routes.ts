import { Elysia } from "elysia";
import { z } from "zod";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { fileAnswer } from "@/platform/http/file-answer";
import { orgErrors } from "@/platform/http/openapi";
import { printClaimForm } from "@/domains/insurance/claims/form";

// The printable claim (docs/insurance/claims.md, "The printable claim"): the
// claim laid out as the ADA Dental Claim Form's numbered fields, as a PDF.

export const claimFormRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.claim-form", prefix: "/api/v1/:org_id/insurance", tags: ["Claims"] }).use(guard(rt)).get(
    "/claims/:claim_uuid/form.pdf",
    async ({ ctx, params }) => {
      const form = await printClaimForm(ctx, params.claim_uuid);
      return fileAnswer(form.bytes, { type: "application/pdf", fileName: `claim-${form.claim_number}.pdf` });
    },
    {
      permission: "insurance.claims.read",
      response: {
        200: z
          .string()
          .meta({ contentMediaType: "application/pdf", format: "binary" })
          .describe("The claim form as a PDF (application/pdf, inline; filename claim-<claim_number>.pdf)"),
        ...orgErrors(),
      },
      detail: {
        // named as the path would be without its file extension (the derived id would keep the ".")
        operationId: "getInsuranceClaimFormPdf",
        summary: "Print a claim form",
        description:
          "The claim laid out after the ADA Dental Claim Form's numbered fields (1-58), as a PDF shown inline (`claim-<claim_number>.pdf`): payer, other coverage (a secondary claim's primary carrier; else the patient's other plan), subscriber and patient, ten service lines a page with the totals on the last, missing teeth, billing and treating dentist, dated today at the claim's location. Any status prints, as the records are now. Each print is audited as claim.form_printed. 404 when the claim is missing.",
      },
    },
  );
