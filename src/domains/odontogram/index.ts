import type { RouteModule } from "@/platform/http/route-module";
import { autoCodeRoutes } from "./auto-codes/routes";
import { odontogramSettingsRoutes } from "./settings/routes";
import { odontogramToolRoutes } from "./tools/routes";

/** Odontogram configuration: auto-codes, hotkeys, interaction modes, macros and the chart drawing settings. */
export const odontogramModules: RouteModule[] = [autoCodeRoutes, odontogramToolRoutes, odontogramSettingsRoutes];
