import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { platformErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { PlatformGroup, PlatformGroupCreate, PlatformGroupListQuery, PlatformGroupPatch } from "./schemas";
import { createPlatformGroup, listPlatformGroups, updatePlatformGroup } from "./service";

// Reading groups needs platform.admins.read; creating and changing them needs
// platform.admins.update, the key that assigns them (docs/platform-admin/platform-admin.md).

const ESCALATION = "The caller must hold every platform key the group grants and will grant (403 otherwise).";

export const platformGroupRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/platform/groups", tags: ["Platform administration"] })
    .use(guard(rt))
    .get("", ({ query }) => listPlatformGroups(rt, query), {
      platform: "platform.admins.read",
      query: PlatformGroupListQuery,
      response: { 200: PageSchema(PlatformGroup), ...platformErrors() },
      detail: { summary: "List platform permission groups" },
    })
    .post(
      "",
      async ({ body, set, actor, principal, requestId, ip }) => {
        const group = await createPlatformGroup(rt, body, {
          actor,
          requestId,
          ip,
          keys: principal.platformKeys,
          isGlobalAccess: principal.isGlobalAccess,
        });
        set.status = 201;
        return group;
      },
      {
        platform: "platform.admins.update",
        body: PlatformGroupCreate,
        response: { 201: PlatformGroup, ...platformErrors(409) },
        detail: { summary: "Create a platform permission group", description: ESCALATION },
      },
    )
    .patch(
      "/:group_uuid",
      ({ params, body, actor, principal, requestId, ip }) =>
        updatePlatformGroup(rt, params.group_uuid, body, { actor, requestId, ip, keys: principal.platformKeys, isGlobalAccess: principal.isGlobalAccess }),
      {
        platform: "platform.admins.update",
        body: PlatformGroupPatch,
        response: { 200: PlatformGroup, ...platformErrors(400, 404, 409) },
        detail: {
          summary: "Update a platform permission group",
          description: `${ESCALATION} Stale base_version: 409. Removing platform.admins.create from the last group granting it: 400.`,
        },
      },
    );
