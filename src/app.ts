import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import { zodToOpenApiSchema } from "./platform/http/json-schema";
import type { Runtime } from "./platform/runtime";
import { httpCore } from "./platform/http/core";
import { isGuarded } from "./platform/http/guard";
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
    .use(docsRoutes(rt, () => self.app!.handle(new Request(`http://internal${RAW_SPEC_PATH}`)), () => self.app!.routes))
    .use(systemRoutes(rt))
    .use(fileRoutes(rt))
    .use(authRoutes(rt))
    .use(adminRoutes(rt))
    .use(permissionKeyRoutes(rt))
    .use(locationRoutes(rt))
    .use(providerRoutes(rt))
    .use(operatoryRoutes(rt))
    .use(patientRoutes(rt))
    .use(appointmentTypeRoutes(rt))
    .use(appointmentRoutes(rt))
    .use(medicalHistoryRoutes(rt))
    .use(relationshipRoutes(rt))
    .use(communicationLogRoutes(rt))
    .use(referralRoutes(rt))
    .use(customFieldRoutes(rt))
    .use(tagRoutes(rt))
    .use(ledgerRoutes(rt))
    .use(providerCredentialRoutes(rt))
    .use(flowStatusRoutes(rt))
    .use(scheduleNoteRoutes(rt))
    .use(scheduleViewRoutes(rt))
    .use(productionGoalRoutes(rt))
    .use(schedulingPreferenceRoutes(rt))
    .use(iamRoutes(rt))
    .use(inviteRoutes(rt))
    .use(platformAuditRoutes(rt));
  self.app = app;
  assertEveryRouteGuarded(app);
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
