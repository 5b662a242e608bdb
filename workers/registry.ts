import { jobList, jobType } from "@/platform/queue/handlers";
import { auditRetention } from "./jobs/audit-retention";
import { healthProbe } from "./jobs/health-probe";
import { outboxSweep } from "./jobs/outbox-sweep";
import { ledgerAgeBalances } from "@/domains/patients/ledger/age-balances.job";
import { estimatesRecompute } from "@/domains/insurance/estimates/recompute.job";
import { draftsMatch } from "@/domains/insurance/drafts/drafts-match.job";
import { orgsPurge } from "@/domains/admin/purge.job";
import { orgsMove } from "@/domains/admin/move.job";
import { approvalsExpire } from "@/domains/iam/access/approvals-expire.job";
import { revenueListsDrift } from "@/domains/revenue/lists/drift.job";
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
  jobType(ledgerAgeBalances, () => import("@/domains/patients/ledger/age-balances.handler")),
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
]);
