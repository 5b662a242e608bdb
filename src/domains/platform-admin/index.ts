import type { RouteModule } from "@/platform/http/route-module";
import { platformAuditRoutes } from "./audit/routes";
import { platformAdminRoutes } from "./admins/routes";
import { platformGroupRoutes } from "./groups/routes";
import { platformOrgRoutes } from "./orgs/routes";

/** Platform administration (platform keys): the platform audit log, administrators and their groups, organizations. */
export const platformModules: RouteModule[] = [platformAuditRoutes, platformAdminRoutes, platformGroupRoutes, platformOrgRoutes];
