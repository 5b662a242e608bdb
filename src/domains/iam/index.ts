import type { RouteModule } from "@/platform/http/route-module";
import { iamRoutes } from "./routes";

/** IAM: the org's members, permission groups and the permission registry. */
export const iamModules: RouteModule[] = [iamRoutes];
