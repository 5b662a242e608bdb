import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { ProductionGoal, ProductionGoalListQuery, ProductionGoalUpsert } from "./schemas";
import { listProductionGoals, upsertProductionGoal } from "./service";

export const productionGoalRoutes = (rt: Runtime) =>
  new Elysia({ name: "production-goals", prefix: "/api/v1/:org_id/schedule/production-goals", tags: ["Scheduling"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listProductionGoals(ctx, query), {
      permission: "schedule.read",
      query: ProductionGoalListQuery,
      response: { 200: PageSchema(ProductionGoal), ...orgErrors() },
      detail: { summary: "List production goals", description: "Ordered by goal_date" },
    })
    .put("/upsert", ({ ctx, body }) => upsertProductionGoal(ctx, body), {
      permission: "schedule.write",
      body: ProductionGoalUpsert,
      response: { 200: ProductionGoal, ...orgErrors(413, 415) },
      detail: { summary: "Create or update a production goal", description: "Updates goal_amount when a goal exists for the provider, location and date" },
    });
