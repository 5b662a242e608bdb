import { Elysia } from "elysia";
import { z } from "zod";
import type { Runtime } from "../../platform/runtime";
import { guard } from "../../platform/http/guard";
import { orgErrors } from "../../platform/http/openapi";
import { PERMISSIONS, REGISTRY_VERSION } from "../../platform/permissions/registry";

const orgKeys = PERMISSIONS.filter((p) => p.scope === "org");

export const permissionKeyRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/iam", tags: ["IAM"] })
    .use(guard(rt))
    .get("/permission-keys", () => ({ keys: orgKeys.map((p) => p.key), registry_version: REGISTRY_VERSION }), {
      permission: "iam.groups.read",
      response: { 200: z.object({ keys: z.array(z.string()), registry_version: z.number().int() }), ...orgErrors() },
      detail: { summary: "Permission keys an org group can hold" },
    })
    .get("/permission-registry", () => ({ permissions: orgKeys.map((p) => ({ ...p })), registry_version: REGISTRY_VERSION }), {
      permission: "iam.groups.read",
      response: { 200: z.object({ permissions: z.array(z.object({ key: z.string(), description: z.string(), scope: z.string(), contains_phi: z.boolean() })), registry_version: z.number().int() }), ...orgErrors() },
      detail: { summary: "Full details of the org permission keys" },
    });
