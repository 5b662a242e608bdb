import type { RouteModule } from "@/platform/http/route-module";
import { revenueQueryRoutes } from "./routes";

/** Revenue: the filter-field registry, counting and running patient filters (smart lists). */
export const revenueModules: RouteModule[] = [revenueQueryRoutes];
