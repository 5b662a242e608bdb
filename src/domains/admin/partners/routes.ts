import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { platformErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Partner, PartnerCreate, PartnerListQuery, PartnerPatch } from "./schemas";
import { archivePartner, createPartner, getPartner, listPartners, updatePartner } from "./service";

// Partners are part of organization administration: reads need platform.orgs.list,
// writes platform.orgs.manage (docs/admin/admin.md).
export const partnerRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/admin", tags: ["Admin"] })
    .use(guard(rt))
    .get("/partners", ({ query }) => listPartners(rt, query), {
      platform: "platform.orgs.list",
      query: PartnerListQuery,
      response: { 200: PageSchema(Partner), ...platformErrors() },
      detail: { summary: "List partners (archived ones only with status=archived)" },
    })
    .post(
      "/partners",
      async ({ body, set, actor, requestId, ip }) => {
        const partner = await createPartner(rt, body, { actor, requestId, ip });
        set.status = 201;
        return partner;
      },
      {
        platform: "platform.orgs.manage",
        body: PartnerCreate,
        response: { 201: Partner, ...platformErrors(409) },
        detail: { summary: "Create a partner", description: "Starts `active`. 409 `duplicate` when another partner has the slug (archived ones included)." },
      },
    )
    .get("/partners/:partner_uuid", ({ params }) => getPartner(rt, params.partner_uuid), {
      platform: "platform.orgs.list",
      response: { 200: Partner, ...platformErrors(404) },
      detail: {
        summary: "Get a partner (archived ones too)",
        description:
          "The partner with its slug, type, status, contact and branding fields and version. Archived partners are answered too, so a link to one keeps working; an unknown id is 404.",
      },
    })
    .patch("/partners/:partner_uuid", ({ params, body, actor, requestId, ip }) => updatePartner(rt, params.partner_uuid, body, { actor, requestId, ip }), {
      platform: "platform.orgs.manage",
      body: PartnerPatch,
      response: { 200: Partner, ...platformErrors(404, 409) },
      detail: {
        summary: "Update a partner",
        description:
          "`status: archived` is the same as archiving; `active` or `suspended` restores an archived partner (clears deleted_at). Another partner's slug is 409 `duplicate`.",
      },
    })
    .post("/partners/:partner_uuid/archive", ({ params, actor, requestId, ip }) => archivePartner(rt, params.partner_uuid, { actor, requestId, ip }), {
      platform: "platform.orgs.manage",
      response: { 200: Partner, ...platformErrors(404) },
      detail: {
        summary: "Archive a partner",
        description:
          "Sets status archived and deleted_at; archiving an archived partner answers it unchanged. PATCH with status active or suspended restores it.",
      },
    });
