import type { RouteModule } from "@/platform/http/route-module";
import { locationRoutes } from "./locations/routes";
import { providerRoutes } from "./record/routes";
import { providerCredentialRoutes } from "./credentials/routes";

/** Providers: the provider record, credentials (identities, location overrides, prescription access) and locations. */
export const providerModules: RouteModule[] = [locationRoutes, providerRoutes, providerCredentialRoutes];
