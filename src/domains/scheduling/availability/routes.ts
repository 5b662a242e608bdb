import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { Availability, AvailabilityQuery } from "./schemas";
import { findAvailability } from "./service";

export const availabilityRoutes = (rt: Runtime) =>
  new Elysia({ name: "availability", prefix: "/api/v1/:org_id/schedule/availability", tags: ["Scheduling"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => findAvailability(ctx, query), {
      permission: "schedule.read",
      query: AvailabilityQuery,
      response: { 200: Availability, ...orgErrors() },
      detail: {
        summary: "Free slots for an appointment type",
        description:
          "Inside provider working hours (templates and overrides), outside blockouts and booked appointments (appointment rules' allow_overlap respected). docs/scheduling/scheduling.md",
      },
    });
