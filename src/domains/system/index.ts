import type { RouteModule } from "@/platform/http/route-module";
import { systemRoutes, fileRoutes } from "./routes";

/** System: probes, the event stream and signed file downloads (the API reference is composed in app.ts: it reads the finished app). */
export const systemModules: RouteModule[] = [systemRoutes, fileRoutes];
