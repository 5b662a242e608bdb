import type { RouteModule } from "@/platform/http/route-module";
import { autoCodeRoutes } from "./auto-codes/routes";
import { odontogramToolRoutes } from "./tools/routes";

/** Odontogram configuration: auto-codes, hotkeys, interaction modes and macros. */
export const odontogramModules: RouteModule[] = [autoCodeRoutes, odontogramToolRoutes];
