import type { RouteModule } from "@/platform/http/route-module";
import { referralRoutes } from "./routes";

/** Referrals: partners, sources and patients' referral attributions. */
export const referralModules: RouteModule[] = [referralRoutes];
