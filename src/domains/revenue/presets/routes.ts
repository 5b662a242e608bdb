import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { todayUtc } from "@/platform/time/dates";
import { PresetList } from "./schemas";
import { presets } from "./catalog";

/** The system's preset list templates (docs/revenue/revenue-lists.md). */
export const revenuePresetRoutes = (rt: Runtime) =>
  new Elysia({ name: "revenue-presets", prefix: "/api/v1/:org_id/revenue-module", tags: ["Revenue"] })
    .use(guard(rt))
    .get("/presets", () => ({ items: presets(todayUtc()) }), {
      permission: "revenue.read",
      response: { 200: PresetList, ...orgErrors() },
      detail: {
        summary: "System-defined preset list templates",
        description:
          "Each with key, name, description, category and a filter_definition that compiles against the registry. POST /lists/from-preset makes a list of one.",
      },
    });
