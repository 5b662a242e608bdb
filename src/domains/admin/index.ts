import type { RouteModule } from "@/platform/http/route-module";
import { adminRoutes } from "./routes";

/** Admin: organizations and database shards (platform keys). */
export const adminModules: RouteModule[] = [adminRoutes];
