import type { RouteModule } from "@/platform/http/route-module";
import { toothChartRoutes } from "./tooth-chart/routes";
import { perioRoutes } from "./perio/routes";
import { clinicalNoteRoutes } from "./notes/routes";
import { conditionRoutes } from "./conditions/routes";
import { chartHistoryRoutes } from "./chart-history/routes";
import { chartedProcedureRoutes } from "./charted-procedures/routes";
import { treatmentPlanRoutes } from "./treatment-plans/routes";
import { spanRoutes } from "./spans/routes";
import { appointmentProcedureRoutes } from "./appointment-procedures/routes";
import { chartPictureRoutes } from "./chart-pictures/routes";

/** Clinical charting: tooth chart, charted procedures, conditions, spans, perio, chart history, chart pictures, treatment plans, clinical notes, the procedures on appointments. */
export const clinicalModules: RouteModule[] = [
  toothChartRoutes,
  perioRoutes,
  clinicalNoteRoutes,
  conditionRoutes,
  chartHistoryRoutes,
  chartedProcedureRoutes,
  treatmentPlanRoutes,
  spanRoutes,
  appointmentProcedureRoutes,
  chartPictureRoutes,
];
