import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { errorSchemas, NoContent } from "@/platform/http/openapi";
import { stateOf } from "@/platform/http/request-state";
import { clientAddressOf } from "@/platform/http/rate-limit";
import { AcceptInviteBody, LoginBody, MeOrgs, RefreshBody, TokenPair } from "./schemas";
import { login, logout, refresh } from "./service";
import { listMyOrgs } from "./me";
import { acceptInvite } from "./invite";

/** Failed attempts lock what they name (docs/security.md, "Login throttling"). */
const throttled = (per: string) => `Failed attempts are throttled ${per}: 429 with Retry-After while locked, even for correct credentials.`;

export const authRoutes = (rt: Runtime) => {
  const from = (request: Request) => ({ address: clientAddressOf(request) });
  return new Elysia({ prefix: "/api/v1/auth", tags: ["Auth"] })
    .use(guard(rt))
    .post("/login", ({ body, request }) => login(rt, body.email, body.password, from(request)), {
      public: true,
      body: LoginBody,
      response: { 200: TokenPair, ...errorSchemas(401, 422, 429, 503) },
      detail: { summary: "Log in with email and password", description: throttled("per account and per client address"), security: [] },
    })
    .post("/refresh", ({ body, request }) => refresh(rt, body.refresh_token, from(request)), {
      public: true,
      body: RefreshBody,
      response: { 200: TokenPair, ...errorSchemas(401, 422, 429, 503) },
      detail: { summary: "Rotate a refresh token for a new token pair", description: throttled("per client address"), security: [] },
    })
    .post(
      "/logout",
      async ({ principal, set }) => {
        await logout(rt, principal.sessionId!);
        set.status = 204;
      },
      { authenticated: true, response: { 204: NoContent, ...errorSchemas(401) }, detail: { summary: "End the current session" } },
    )
    .get("/me/orgs", ({ principal }) => listMyOrgs(rt, principal), {
      authenticated: true,
      response: { 200: MeOrgs, ...errorSchemas(401) },
      detail: { summary: "Organizations the caller belongs to" },
    })
    .post(
      "/accept-invite",
      ({ body, request }) => {
        const state = stateOf(request);
        return acceptInvite(rt, body, { requestId: state.id, ip: state.ip }, from(request));
      },
      {
        public: true,
        body: AcceptInviteBody,
        response: { 200: TokenPair, ...errorSchemas(401, 404, 413, 415, 422, 429, 503) },
        detail: {
          summary: "Accept an invitation: activates the membership and starts a session",
          description:
            "A new account sets its password here. An account that already has a password must give that password (401 otherwise). " +
            `Unknown, expired, used or withdrawn tokens are 404. ${throttled("per invitation and per client address")}`,
          security: [],
        },
      },
    );
};
