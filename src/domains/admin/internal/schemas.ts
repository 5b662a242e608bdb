import { z } from "zod";
import { ORG_STATUSES } from "@/domains/admin/schemas";

// Service-to-service routes under /api/v1/internal (docs/admin/admin.md, "Internal routes").

export const InternalOrgListQuery = z.strictObject({
  status: z
    .enum([...ORG_STATUSES, "all"])
    .default("active")
    .describe("Default active; all: every status (deleted orgs are never listed)"),
});
export type InternalOrgListQuery = z.infer<typeof InternalOrgListQuery>;

export const InternalOrg = z
  .object({ id: z.string(), name: z.string(), slug: z.string(), status: z.enum(ORG_STATUSES) })
  .meta({ id: "InternalOrg", description: "An organization as other services see it: no contact, billing or shard data" });
export type InternalOrg = z.infer<typeof InternalOrg>;

export const InternalOrgList = z.object({ items: z.array(InternalOrg), total: z.number().int() });

export const USER_SYNC_EVENTS = ["user.created", "user.updated", "user.disabled"] as const;

export const UserSyncBody = z
  .strictObject({
    event: z.enum(USER_SYNC_EVENTS).describe("created: create (or bring up to date) the user; updated: change email/display name; disabled: block sign-in"),
    user: z.strictObject({
      email: z.email().max(320).describe("The user's email; with external_id unknown, the user is found by it"),
      display_name: z.string().trim().min(1).max(200).optional().describe("Defaults to the email's local part for a new user"),
      external_id: z.string().min(1).max(200).optional().describe("The user's id at the identity service; found first, and linked on first sight"),
    }),
  })
  .meta({ id: "UserSyncEvent" });
export type UserSyncBody = z.infer<typeof UserSyncBody>;

export const UserSyncResult = z.object({ detail: z.string(), user_id: z.string() }).meta({ id: "UserSyncResult" });
export type UserSyncResult = z.infer<typeof UserSyncResult>;
