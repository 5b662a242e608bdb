import { Elysia, type AnyElysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import { zodToOpenApiSchema } from "./platform/http/json-schema";
import { OPENAPI_TAGS } from "./platform/http/openapi-tags";
import type { Runtime } from "./platform/runtime";
import { httpCore } from "./platform/http/core";
import { isGuarded } from "./platform/http/guard";
import { applyResponseSchemaMode } from "./platform/http/response-schemas";
import { withRequestValidation } from "./platform/http/request-validation";
import { systemModules } from "./domains/system";
import { docsRoutes } from "./domains/system/routes";
import { RAW_SPEC_PATH } from "./domains/system/docs";
import { authModules } from "./domains/auth";
import { adminModules } from "./domains/admin";
import { platformModules } from "./domains/platform-admin";
import { iamModules } from "./domains/iam";
import { providerModules } from "./domains/providers";
import { patientModules } from "./domains/patients";
import { accountModules } from "./domains/account";
import { schedulingModules } from "./domains/scheduling";
import { codeModules } from "./domains/codes";
import { odontogramModules } from "./domains/odontogram";
import { clinicalModules } from "./domains/clinical";
import { referralModules } from "./domains/referrals";
import { insuranceModules } from "./domains/insurance";
import { documentModules } from "./domains/documents";
import { revenueModules } from "./domains/revenue";
import { recallModules } from "./domains/recall";

/** One list per spec domain (each domain's index.ts lists its features' route modules). */
const DOMAINS = [
  systemModules,
  authModules,
  adminModules,
  platformModules,
  iamModules,
  providerModules,
  patientModules,
  accountModules,
  schedulingModules,
  codeModules,
  odontogramModules,
  clinicalModules,
  referralModules,
  insuranceModules,
  documentModules,
  revenueModules,
  recallModules,
];

/** Composes the cross-cutting plugins and every domain module into one app. */
export function buildApp(rt: Runtime) {
  // the docs routes read the finished app (its routes and the generator's output)
  const self: { app?: { handle(r: Request): Promise<Response>; routes: { method: string; path: string; hooks?: unknown }[] } } = {};
  const app = new Elysia({ normalize: false })
    .use(httpCore(rt))
    .use(
      openapi({
        provider: null,
        specPath: RAW_SPEC_PATH,
        mapJsonSchema: { zod: zodToOpenApiSchema },
        documentation: {
          info: { title: "Cusp API", version: "1.0.0", description: "Multi-tenant backend for dental practices." },
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } } },
          security: [{ bearer: [] }],
          tags: OPENAPI_TAGS,
        },
        exclude: { staticFile: false, paths: ["/docs", "/docs/assets/standalone.js", "/docs/assets/reference.js", "/openapi.json", RAW_SPEC_PATH] },
      }),
    )
    .use(
      docsRoutes(
        rt,
        () => self.app!.handle(new Request(`http://internal${RAW_SPEC_PATH}`)),
        () => self.app!.routes,
      ),
    );
  // applied in a loop: one chain this long would exceed TypeScript's instantiation depth
  // request schemas get their stand-ins before the parent app copies the module's routes
  for (const modules of DOMAINS) for (const routes of modules) app.use(withRequestValidation(routes(rt)));
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
