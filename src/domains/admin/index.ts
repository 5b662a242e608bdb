import type { RouteModule } from "@/platform/http/route-module";
import { adminRoutes } from "./routes";
import { partnerRoutes } from "./partners/routes";
import { internalRoutes } from "./internal/routes";

/** Admin: organizations, partners and database shards (platform keys); internal service-to-service routes. */
export const adminModules: RouteModule[] = [adminRoutes, partnerRoutes, internalRoutes];
