import type { RouteModule } from "@/platform/http/route-module";
import { recallTypeRoutes } from "./types/routes";
import { patientRecallRoutes } from "./patient-recalls/routes";
import { recallListRoutes } from "./list/routes";

/** Recall: recall types, patients' recalls kept current by completed and scheduled work, the recall list and its summary (docs/recall/recall.md). */
export const recallModules: RouteModule[] = [recallTypeRoutes, patientRecallRoutes, recallListRoutes];
