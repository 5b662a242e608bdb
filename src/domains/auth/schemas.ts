import { z } from "zod";
import { MIN_PASSWORD_LENGTH } from "@/platform/auth/passwords";

export const LoginBody = z.strictObject({
  email: z.string().min(3).max(320).describe("Account email (case-insensitive)"),
  password: z.string().min(1).max(1024),
});
export const RefreshBody = z.strictObject({ refresh_token: z.string().min(1).max(512) });
export const TokenPair = z.object({
  access_token: z.string().describe("JWT for the Authorization: Bearer header"),
  refresh_token: z.string().describe("Single-use; each refresh returns a new one"),
  token_type: z.literal("bearer"),
  expires_in: z.number().int().describe("Access token lifetime in seconds"),
});
export const MeOrgs = z.object({
  is_platform_admin: z.boolean(),
  orgs: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      slug: z.string(),
      status: z.string(),
      membership_status: z.string(),
      is_org_admin: z.boolean(),
    }),
  ),
});
export const AcceptInviteBody = z.strictObject({ token: z.string().min(1).max(512), password: z.string().min(8).max(1024) });

// ---- account self-service (docs/auth/account.md) ----

/** The project's one password rule (as for new members and invitations): 8 to 1024 characters. */
const NewPassword = z.string().min(MIN_PASSWORD_LENGTH).max(1024).describe(`The new password: ${MIN_PASSWORD_LENGTH} to 1024 characters`);
const OneTimeToken = z.string().min(1).max(512).describe("The token from the emailed link (after `#token=`)");

export const ChangePasswordBody = z.strictObject({
  current_password: z.string().min(1).max(1024).describe("The password in use now; a wrong one is 422 invalid_password and counts toward the login throttle"),
  new_password: NewPassword,
});
export const ForgotPasswordBody = z.strictObject({
  email: z.string().trim().toLowerCase().pipe(z.email().max(320)).describe("Account email (case-insensitive)"),
});
export const ResetPasswordBody = z.strictObject({ token: OneTimeToken, new_password: NewPassword });
export const VerifyEmailBody = z.strictObject({ token: OneTimeToken });
export const Detail = z.object({ detail: z.string().describe("What happened, for people") });
