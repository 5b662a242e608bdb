import type { RouteModule } from "@/platform/http/route-module";
import { platformAuditRoutes } from "./audit/routes";

/** Platform administration (platform keys): the platform audit log. */
export const platformModules: RouteModule[] = [platformAuditRoutes];
