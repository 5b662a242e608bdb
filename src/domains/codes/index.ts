import type { RouteModule } from "@/platform/http/route-module";
import { definitionRoutes } from "./definitions/routes";
import { procedureCodeRoutes } from "./procedure-codes/routes";
import { icdCodeRoutes } from "./icd-codes/routes";
import { explosionCodeRoutes } from "./explosion-codes/routes";
import { feeScheduleRoutes } from "./fee-schedules/routes";

/** Definitions and codes: procedure, ICD and explosion codes, fee schedules, and the org's definitions (configurable lists). */
export const codeModules: RouteModule[] = [definitionRoutes, procedureCodeRoutes, icdCodeRoutes, explosionCodeRoutes, feeScheduleRoutes];
