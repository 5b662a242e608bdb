import type { RouteModule } from "@/platform/http/route-module";
import { ledgerRoutes } from "./ledger/routes";
import { paymentRoutes } from "./payments/routes";
import { familyAccountRoutes } from "./family/routes";
import { statementRoutes } from "./statements/routes";
import { reportRoutes } from "./reports/routes";
import { paymentPlanRoutes } from "./payment-plans/routes";

/** The patient account: the ledger and its aging, payments, adjustments, the family account (docs/account/account.md). */
export const accountModules: RouteModule[] = [ledgerRoutes, paymentRoutes, familyAccountRoutes, reportRoutes, statementRoutes, paymentPlanRoutes];
