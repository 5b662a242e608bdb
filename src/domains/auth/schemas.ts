import { z } from "zod";

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
