import type { RouteModule } from "@/platform/http/route-module";

/**
 * Insurance (spec.md "Insurance", paths under {P}/insurance, and the estimate
 * endpoints under the clinical chart): carriers, coverage categories, plans,
 * subscriptions and patient plans, estimate books, drafts, procedure estimates.
 */
export const insuranceModules: RouteModule[] = [
  // one line per feature's route module
];
