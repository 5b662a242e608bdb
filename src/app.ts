import { Elysia, type AnyElysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import { zodToOpenApiSchema } from "./platform/http/json-schema";
import type { Runtime } from "./platform/runtime";
import { httpCore } from "./platform/http/core";
import { isGuarded } from "./platform/http/guard";
import { applyResponseSchemaMode } from "./platform/http/response-schemas";
import { authRoutes } from "./domains/auth/routes";
import { adminRoutes } from "./domains/admin/routes";
import { systemRoutes } from "./domains/system/routes";
import { locationRoutes } from "./domains/locations/routes";
import { permissionKeyRoutes } from "./domains/iam/permission-keys";
import { fileRoutes } from "./domains/system/files";
import { iamRoutes } from "./domains/iam/routes";
import { inviteRoutes } from "./domains/auth/invite";
import { platformAuditRoutes } from "./domains/platform-audit/routes";
import { docsRoutes, RAW_SPEC_PATH } from "./domains/system/docs";
import { providerRoutes } from "./domains/providers/routes";
import { operatoryRoutes } from "./domains/operatories/routes";
import { patientRoutes } from "./domains/patients/routes";
import { appointmentTypeRoutes } from "./domains/appointment-types/routes";
import { appointmentRoutes } from "./domains/appointments/routes";
import { medicalHistoryRoutes } from "./domains/medical-history/routes";
import { relationshipRoutes } from "./domains/relationships/routes";
import { communicationLogRoutes } from "./domains/communication-logs/routes";
import { referralRoutes } from "./domains/referrals/routes";
import { customFieldRoutes } from "./domains/custom-fields/routes";
import { tagRoutes } from "./domains/tags/routes";
import { ledgerRoutes } from "./domains/ledger/routes";
import { providerCredentialRoutes } from "./domains/provider-credentials/routes";
import { flowStatusRoutes } from "./domains/flow-statuses/routes";
import { scheduleNoteRoutes } from "./domains/schedule-notes/routes";
import { scheduleViewRoutes } from "./domains/schedule-views/routes";
import { productionGoalRoutes } from "./domains/production-goals/routes";
import { schedulingPreferenceRoutes } from "./domains/scheduling-preferences/routes";
import { providerScheduleRoutes } from "./domains/provider-schedules/routes";
import { blockoutRoutes } from "./domains/blockouts/routes";
import { scheduleOverrideRoutes } from "./domains/schedule-overrides/routes";
import { calendarRoutes } from "./domains/calendar/routes";
import { availabilityRoutes } from "./domains/availability/routes";
import { definitionRoutes } from "./domains/definitions/routes";
import { autoCodeRoutes } from "./domains/auto-codes/routes";
import { odontogramToolRoutes } from "./domains/odontogram-tools/routes";
import { procedureCodeRoutes } from "./domains/procedure-codes/routes";
import { icdCodeRoutes } from "./domains/icd-codes/routes";
import { explosionCodeRoutes } from "./domains/explosion-codes/routes";
import { toothChartRoutes } from "./domains/tooth-chart/routes";
import { perioRoutes } from "./domains/perio/routes";
import { clinicalNoteRoutes } from "./domains/clinical-notes/routes";
import { conditionRoutes } from "./domains/conditions/routes";
import { chartHistoryRoutes } from "./domains/chart-history/routes";
import { chartedProcedureRoutes } from "./domains/charted-procedures/routes";
import { treatmentPlanRoutes } from "./domains/treatment-plans/routes";
import { spanRoutes } from "./domains/spans/routes";

/** Composes the cross-cutting plugins and every domain module into one app. */
export function buildApp(rt: Runtime) {
  // the docs routes read the finished app (its routes and the generator's output)
  const self: { app?: { handle(r: Request): Promise<Response>; routes: { method: string; path: string; hooks?: unknown }[] } } = {};
  const app = new Elysia({ normalize: false })
    .use(httpCore(rt))
    .use(openapi({
      provider: null,
      specPath: RAW_SPEC_PATH,
      mapJsonSchema: { zod: zodToOpenApiSchema },
      documentation: {
        info: { title: "Cusp API", version: "1.0.0", description: "Multi-tenant backend for dental practices." },
        components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } } },
        security: [{ bearer: [] }],
      },
      exclude: { paths: ["/docs", "/openapi.json", RAW_SPEC_PATH] },
    }))
    .use(docsRoutes(rt, () => self.app!.handle(new Request(`http://internal${RAW_SPEC_PATH}`)), () => self.app!.routes));
  // one list, applied in a loop: a chain this long exceeds TypeScript's instantiation depth
  const domains = [
    systemRoutes,
    fileRoutes,
    authRoutes,
    adminRoutes,
    permissionKeyRoutes,
    locationRoutes,
    providerRoutes,
    operatoryRoutes,
    patientRoutes,
    appointmentTypeRoutes,
    appointmentRoutes,
    medicalHistoryRoutes,
    relationshipRoutes,
    communicationLogRoutes,
    referralRoutes,
    customFieldRoutes,
    tagRoutes,
    ledgerRoutes,
    providerCredentialRoutes,
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
    definitionRoutes,
    autoCodeRoutes,
    odontogramToolRoutes,
    procedureCodeRoutes,
    icdCodeRoutes,
    explosionCodeRoutes,
    toothChartRoutes,
    perioRoutes,
    clinicalNoteRoutes,
    conditionRoutes,
    chartHistoryRoutes,
    chartedProcedureRoutes,
    treatmentPlanRoutes,
    spanRoutes,
    iamRoutes,
    inviteRoutes,
    platformAuditRoutes,
  ];
  for (const routes of domains) app.use(routes(rt) as AnyElysia);
  self.app = app;
  assertEveryRouteGuarded(app);
  applyResponseSchemaMode(app as AnyElysia, rt.config.responseSchemas);
  return app;
}

/** A route without a declared guard would be reachable by anyone: refuse to start. */
function assertEveryRouteGuarded(app: Elysia<any, any, any, any, any, any, any>) {
  for (const route of app.routes) {
    if (route.path === RAW_SPEC_PATH) continue; // the generator's own route; served tidied at /openapi.json
    if (!isGuarded(route.hooks ?? {})) {
      throw new Error(`route ${route.method} ${route.path} declares no guard (public, authenticated, permission or platform)`);
    }
  }
}

export type App = ReturnType<typeof buildApp>;
