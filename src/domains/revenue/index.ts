import type { RouteModule } from "@/platform/http/route-module";
import { revenueQueryRoutes } from "./routes";
import { revenueListRoutes } from "./lists/routes";
import { revenuePresetRoutes } from "./presets/routes";
import { revenueComposeRoutes } from "./compose/routes";

/** Revenue: the filter-field registry, counting and running patient filters, saved smart lists, presets and the compose stub. */
export const revenueModules: RouteModule[] = [revenueQueryRoutes, revenueListRoutes, revenuePresetRoutes, revenueComposeRoutes];
