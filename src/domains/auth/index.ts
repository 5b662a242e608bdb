import type { RouteModule } from "@/platform/http/route-module";
import { authRoutes } from "./routes";

/** Auth and account: login, token refresh, logout, the caller's orgs, invitations, password and email self-service. */
export const authModules: RouteModule[] = [authRoutes];
