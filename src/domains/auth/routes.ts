import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { errorSchemas, NoContent } from "@/platform/http/openapi";
import { stateOf } from "@/platform/http/request-state";
import { clientAddressOf } from "@/platform/http/rate-limit";
import {
  AcceptInviteBody,
  ChangePasswordBody,
  Detail,
  ForgotPasswordBody,
  LoginBody,
  MeOrgs,
  RefreshBody,
  ResetPasswordBody,
  TokenPair,
  VerifyEmailBody,
} from "./schemas";
import { login, logout, refresh } from "./service";
import { listMyOrgs } from "./me";
import { acceptInvite } from "./invite";
import { changePassword, forgotPassword, resendVerification, resetPassword, verifyEmail } from "./account";

/** Failed attempts lock what they name (docs/platform/security.md, "Login throttling"). */
const throttled = (per: string) => `Failed attempts are throttled ${per}: 429 with Retry-After while locked, even for correct credentials.`;

export const authRoutes = (rt: Runtime) => {
  const from = (request: Request) => ({ address: clientAddressOf(request) });
  const meta = (request: Request) => {
    const state = stateOf(request);
    return { requestId: state.id, ip: state.ip };
  };
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
      {
        authenticated: true,
        response: { 204: NoContent, ...errorSchemas(401) },
        detail: {
          summary: "End the current session",
          description: "Revokes the session of the access token: its refresh tokens and the access token itself stop working at once (401).",
        },
      },
    )
    .get("/me/orgs", ({ principal }) => listMyOrgs(rt, principal), {
      authenticated: true,
      response: { 200: MeOrgs, ...errorSchemas(401) },
      detail: {
        summary: "Organizations the caller belongs to",
        description:
          "The caller's organizations by name (those the caller was removed from, and deleted ones, left out), each with its id (the `{org_id}` of org paths), slug, org status, the caller's membership status and whether the caller is its org administrator; `is_platform_admin` says whether the caller also holds platform access.",
      },
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
    )
    .post("/change-password", ({ body, principal, request }) => changePassword(rt, principal, body, meta(request), from(request)), {
      authenticated: true,
      body: ChangePasswordBody,
      response: { 200: Detail, ...errorSchemas(401, 413, 415, 422, 429, 503) },
      detail: {
        summary: "Change the caller's password",
        description:
          "Needs the current password: a wrong one is 422 `invalid_password` (loc body.current_password) and counts toward the account's login throttle " +
          "(429 with Retry-After while the account is locked). On success every other session of the user is signed out; the caller's stays valid.",
      },
    })
    .post(
      "/forgot-password",
      async ({ body, request, set }) => {
        const answer = await forgotPassword(rt, body.email, meta(request), from(request));
        set.status = 202;
        return answer;
      },
      {
        public: true,
        body: ForgotPasswordBody,
        response: { 202: Detail, ...errorSchemas(413, 415, 422, 429, 503) },
        detail: {
          summary: "Mail a one-time password reset link",
          description:
            "Always the same 202 answer, whether or not the email has an account, so accounts cannot be enumerated; the link (valid PASSWORD_RESET_TTL_SECONDS) " +
            "is mailed only to an existing active account. Each request counts per email and per client address: too many are 429 with Retry-After.",
          security: [],
        },
      },
    )
    .post("/reset-password", ({ body, request }) => resetPassword(rt, body, meta(request), from(request)), {
      public: true,
      body: ResetPasswordBody,
      response: { 200: Detail, ...errorSchemas(413, 415, 422, 429, 503) },
      detail: {
        summary: "Set a new password with a reset token",
        description:
          "Redeems the token from the forgot-password mail once and signs the user out everywhere. Unknown, used or expired tokens are one answer: " +
          `422 \`invalid_token\` (loc body.token). ${throttled("per client address")}`,
        security: [],
      },
    })
    .post("/resend-verification", ({ principal, request }) => resendVerification(rt, principal, meta(request), from(request)), {
      authenticated: true,
      response: { 200: Detail, ...errorSchemas(401, 429, 503) },
      detail: {
        summary: "Mail the caller a link that verifies their email address",
        description:
          "Already verified: 200 saying so, and no mail. Otherwise a one-time link valid EMAIL_VERIFICATION_TTL_SECONDS is mailed; requests count per account " +
          "and per client address (429 with Retry-After when there are too many). 503 when the mail cannot be sent.",
      },
    })
    .post("/verify-email", ({ body, request }) => verifyEmail(rt, body, meta(request), from(request)), {
      public: true,
      body: VerifyEmailBody,
      response: { 200: Detail, ...errorSchemas(413, 415, 422, 429, 503) },
      detail: {
        summary: "Verify an email address with the token from the verification mail",
        description: `Redeems the token once. Unknown, used or expired tokens are one answer: 422 \`invalid_token\` (loc body.token). ${throttled("per client address")}`,
        security: [],
      },
    });
};
