import type { RouteModule } from "@/platform/http/route-module";
import { iamRoutes } from "./routes";
import { accessRoutes } from "./access/routes";

/** IAM: the org's members, permission groups, the permission registry, and the scoped access model (scope tree, assignments, effective permissions, approvals). */
export const iamModules: RouteModule[] = [iamRoutes, accessRoutes];
