import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { errorSchemas, platformErrors } from "@/platform/http/openapi";
import { stateOf } from "@/platform/http/request-state";
import { InternalOrgList, InternalOrgListQuery, UserSyncBody, UserSyncResult } from "./schemas";
import { listInternalOrgs } from "./service";
import { syncUser, verifyUserSyncSignature } from "./user-sync";

// Service-to-service routes (docs/admin/admin.md, "Internal routes"). A calling service
// is a platform user (a service account) holding the route's platform key; the
// user-sync webhook is authenticated by its HMAC signature instead.
export const internalRoutes = (rt: Runtime) => {
  const app = new Elysia({ prefix: "/api/v1/internal", tags: ["Internal"] }).use(guard(rt)).get("/orgs", ({ query }) => listInternalOrgs(rt, query), {
    platform: "platform.orgs.list",
    query: InternalOrgListQuery,
    response: { 200: InternalOrgList, ...platformErrors() },
    detail: {
      summary: "Organizations for other services: id, name, slug and status only",
      description:
        "Every organization with the given `status` (default `active`; `all` for every status, deleted ones never), sorted by name, with no contact, billing or shard data. Not paged: the answer is `{items, total}`.",
    },
  });
  // the webhook exists only where an identity service is configured (USER_SYNC_SECRET): elsewhere it is an unknown route (404)
  if (!rt.config.userSyncSecret) return app;
  return app.post("/auth/user-sync", ({ body, request }) => syncUser(rt, body, { requestId: stateOf(request).id, ip: stateOf(request).ip }), {
    public: true,
    // the signature is checked on the exact body bytes before the body is validated
    transform: ({ request }) => verifyUserSyncSignature(rt, request.headers.get("x-cusp-signature"), stateOf(request).rawBody ?? ""),
    body: UserSyncBody,
    response: { 200: UserSyncResult, ...errorSchemas(400, 401, 404, 409, 422) },
    detail: {
      summary: "User lifecycle webhook from the identity service",
      description:
        'Signed: `X-Cusp-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with USER_SYNC_SECRET>`. 401 for a missing or bad signature, a timestamp more than 300 s away, or a signature seen in the last 10 minutes. 404 for an unknown user (user.updated, user.disabled). The route exists only when USER_SYNC_SECRET is set. See docs/admin/admin.md.',
      security: [],
    },
  });
};
