import type { RouteModule } from "@/platform/http/route-module";
import { patientPlanRoutes } from "./patient-plans/routes";
import { planRoutes } from "./plans/routes";
import { subscriptionRoutes } from "./subscriptions/routes";
import { carrierRoutes } from "./carriers/routes";
import { coverageCategoryRoutes } from "./coverage-categories/routes";
import { estimateBookRoutes } from "./estimate-books/routes";
import { estimateRoutes } from "./estimates/routes";
import { draftRoutes } from "./drafts/routes";
import { claimRoutes } from "./claims/routes";
import { claimPaymentRoutes } from "./claims/payments/routes";
import { eraRoutes } from "./claims/eras/routes";
import { claimBatchRoutes } from "./claims/batches/routes";
import { claimFormRoutes } from "./claims/form/routes";
import { presentationRoutes } from "./presentations/routes";

/**
 * Insurance (spec.md "Insurance", paths under {P}/insurance, and the estimate
 * endpoints under the clinical chart): carriers, coverage categories, plans,
 * subscriptions and patient plans, estimate books, drafts, procedure estimates, claims (docs/insurance/claims.md), treatment-plan presentations.
 */
export const insuranceModules: RouteModule[] = [
  carrierRoutes,
  coverageCategoryRoutes,
  estimateBookRoutes,
  planRoutes,
  subscriptionRoutes,
  patientPlanRoutes,
  draftRoutes,
  estimateRoutes,
  claimRoutes,
  claimPaymentRoutes,
  eraRoutes,
  claimBatchRoutes,
  claimFormRoutes,
  presentationRoutes,
  // one line per feature's route module
];
