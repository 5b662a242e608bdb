import type { RouteModule } from "@/platform/http/route-module";
import { operatoryRoutes } from "./operatories/routes";
import { appointmentTypeRoutes } from "./appointment-types/routes";
import { appointmentRoutes } from "./appointments/routes";
import { flowStatusRoutes } from "./flow-statuses/routes";
import { scheduleNoteRoutes } from "./notes/routes";
import { scheduleViewRoutes } from "./views/routes";
import { productionGoalRoutes } from "./production-goals/routes";
import { schedulingPreferenceRoutes } from "./preferences/routes";
import { providerScheduleRoutes } from "./provider-schedules/routes";
import { blockoutRoutes } from "./blockouts/routes";
import { scheduleOverrideRoutes } from "./overrides/routes";
import { calendarRoutes } from "./calendar/routes";
import { availabilityRoutes } from "./availability/routes";
import { scheduleTemplateRoutes } from "./schedule-templates/routes";
import { frontDeskListRoutes } from "./lists/routes";

/** Scheduling: appointments and their types, operatories, provider schedules, overrides, blockouts, notes, views, flow statuses, production goals, patient preferences, the calendar, availability and the front desk's working lists. */
export const schedulingModules: RouteModule[] = [
  operatoryRoutes,
  appointmentTypeRoutes,
  appointmentRoutes,
  flowStatusRoutes,
  scheduleNoteRoutes,
  scheduleViewRoutes,
  productionGoalRoutes,
  schedulingPreferenceRoutes,
  providerScheduleRoutes,
  blockoutRoutes,
  scheduleOverrideRoutes,
  calendarRoutes,
  availabilityRoutes,
  scheduleTemplateRoutes,
  frontDeskListRoutes,
];
