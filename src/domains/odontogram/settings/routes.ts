import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { OdontogramSettings, OdontogramSettingsPatch } from "./schemas";
import { getOdontogramSettings, updateOdontogramSettings } from "./service";

// How the org's chart pictures are drawn (docs/odontogram/odontogram-settings.md).
export const odontogramSettingsRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.odontogram-settings", prefix: "/api/v1/:org_id/odontogram/settings", tags: ["Odontogram configuration"] })
    .use(guard(rt))
    .get("", ({ ctx }) => getOdontogramSettings(ctx), {
      permission: "odontogram.read",
      response: { 200: OdontogramSettings, ...orgErrors() },
      detail: {
        summary: "The org's chart drawing settings",
        description:
          "tooth_numbering (universal or fdi): how the tooth and perio chart pictures label teeth. Before the first change: the defaults at version 0.",
      },
    })
    .patch("", ({ ctx, body }) => updateOdontogramSettings(ctx, body), {
      permission: "odontogram.write",
      body: OdontogramSettingsPatch,
      response: { 200: OdontogramSettings, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Change the org's chart drawing settings",
        description:
          "Fields sent change; base_version is the version GET shows (0 before the first change). 409 version_conflict when stale; 422 for an unknown field or value. Audited as odontogram_settings.created or .updated.",
      },
    });
