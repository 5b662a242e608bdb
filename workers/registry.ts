import { jobList, jobType } from "@/platform/queue/handlers";
import { auditRetention } from "./jobs/audit-retention";
import { healthProbe } from "./jobs/health-probe";
import { outboxSweep } from "./jobs/outbox-sweep";
import { ledgerAgeBalances } from "@/domains/account/ledger/age-balances.job";
import { statementsBatch } from "@/domains/account/statements/batch.job";
import { statementsRender } from "@/domains/account/statements/render.job";
import { estimatesRecompute } from "@/domains/insurance/estimates/recompute.job";
import { draftsMatch } from "@/domains/insurance/drafts/drafts-match.job";
import { orgsPurge } from "@/domains/admin/purge.job";
import { orgsMove } from "@/domains/admin/move.job";
import { approvalsExpire } from "@/domains/iam/access/approvals-expire.job";
import { revenueListsDrift } from "@/domains/revenue/lists/drift.job";
import { feeSchedulesCopy } from "@/domains/codes/fee-schedules/copy.job";
import { claimsEraImport } from "@/domains/insurance/claims/eras/import.job";
import { estimateBooksLearn } from "@/domains/insurance/estimate-books/learn.job";
import { paymentPlansPostDue } from "@/domains/account/payment-plans/post-due.job";
import { claimsExport837d } from "@/domains/insurance/claims/batches/export.job";
import { recallsRecompute } from "@/domains/recall/patient-recalls/recompute.job";
import { scheduleTemplatesApply } from "@/domains/scheduling/schedule-templates/apply.job";
import { documentsClassify, documentsOcr, documentsResume, documentsScan, documentsThumbnail } from "@/domains/documents/pipeline/jobs";

/**
 * Every job type with its handler, in one list: the composition root of jobs,
 * as src/app.ts is of routes. A type missing here has no worker and no
 * schedule. A handler module is imported when a job of its type first runs.
 * Defining, queueing and running jobs is src/platform/queue's.
 */
export const JOBS = jobList([
  jobType(auditRetention, () => import("./jobs/audit-retention.handler")),
  jobType(healthProbe, () => import("./jobs/health-probe.handler")),
  jobType(outboxSweep, () => import("./jobs/outbox-sweep.handler")),
  jobType(ledgerAgeBalances, () => import("@/domains/account/ledger/age-balances.handler")),
  jobType(statementsRender, () => import("@/domains/account/statements/render.handler")),
  jobType(statementsBatch, () => import("@/domains/account/statements/batch.handler")),
  jobType(draftsMatch, () => import("@/domains/insurance/drafts/drafts-match.handler")),
  jobType(estimatesRecompute, () => import("@/domains/insurance/estimates/recompute.handler")),
  jobType(documentsScan, () => import("@/domains/documents/pipeline/scan.handler")),
  jobType(documentsOcr, () => import("@/domains/documents/pipeline/ocr.handler")),
  jobType(documentsClassify, () => import("@/domains/documents/pipeline/classify.handler")),
  jobType(documentsThumbnail, () => import("@/domains/documents/pipeline/thumbnail.handler")),
  jobType(documentsResume, () => import("@/domains/documents/pipeline/resume.handler")),
  jobType(orgsPurge, () => import("@/domains/admin/purge.handler")),
  jobType(orgsMove, () => import("@/domains/admin/move.handler")),
  jobType(approvalsExpire, () => import("@/domains/iam/access/approvals-expire.handler")),
  jobType(revenueListsDrift, () => import("@/domains/revenue/lists/drift.handler")),
  jobType(feeSchedulesCopy, () => import("@/domains/codes/fee-schedules/copy.handler")),
  jobType(claimsEraImport, () => import("@/domains/insurance/claims/eras/import.handler")),
  jobType(estimateBooksLearn, () => import("@/domains/insurance/estimate-books/learn.handler")),
  jobType(paymentPlansPostDue, () => import("@/domains/account/payment-plans/post-due.handler")),
  jobType(claimsExport837d, () => import("@/domains/insurance/claims/batches/export.handler")),
  jobType(recallsRecompute, () => import("@/domains/recall/patient-recalls/recompute.handler")),
  jobType(scheduleTemplatesApply, () => import("@/domains/scheduling/schedule-templates/apply.handler")),
]);
