import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  ScheduleView,
  ScheduleViewCreate,
  ScheduleViewDefault,
  ScheduleViewDeleteQuery,
  ScheduleViewListQuery,
  ScheduleViewPatch,
  ScheduleViewShortcut,
} from "./schemas";
import {
  createScheduleView,
  deleteScheduleView,
  getScheduleView,
  listScheduleViews,
  setScheduleViewDefault,
  setScheduleViewShortcut,
  updateScheduleView,
} from "./service";

const PERSONAL = "Personal views of other users answer 404.";

export const scheduleViewRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.schedule-views", prefix: "/api/v1/:org_id/schedule/views", tags: ["Scheduling"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listScheduleViews(ctx, query), {
      permission: "schedule.read",
      query: ScheduleViewListQuery,
      response: { 200: PageSchema(ScheduleView), ...orgErrors() },
      detail: { summary: "List schedule views", description: "Shared views and the caller's own personal views, ordered by name." },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createScheduleView(ctx, body);
      },
      {
        permission: "schedule.write",
        body: ScheduleViewCreate,
        response: { 201: ScheduleView, ...orgErrors(413, 415) },
        detail: {
          summary: "Create a schedule view",
          description:
            "Saves a set of operatories and providers of one location to show on the schedule; the caller becomes the view's owner. 404 for an unknown location, operatory or provider.",
        },
      },
    )
    .get("/:view_uuid", ({ ctx, params }) => getScheduleView(ctx, params.view_uuid), {
      permission: "schedule.read",
      response: { 200: ScheduleView, ...orgErrors() },
      detail: { summary: "Get a schedule view", description: PERSONAL },
    })
    .patch("/:view_uuid", ({ ctx, params, body }) => updateScheduleView(ctx, params.view_uuid, body), {
      permission: "schedule.write",
      body: ScheduleViewPatch,
      response: { 200: ScheduleView, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a schedule view", description: `${PERSONAL} Only the owner may make a shared view personal (422 not_view_owner).` },
    })
    .delete(
      "/:view_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteScheduleView(ctx, params.view_uuid, query);
        set.status = 204;
      },
      {
        permission: "schedule.write",
        query: ScheduleViewDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: { summary: "Delete a schedule view (soft delete)", description: PERSONAL },
      },
    )
    // Shortcuts and defaults are the caller's own settings: schedule.read is enough to choose them.
    .post("/:view_uuid/set-shortcut", ({ ctx, params, body }) => setScheduleViewShortcut(ctx, params.view_uuid, body), {
      permission: "schedule.read",
      body: ScheduleViewShortcut,
      response: { 200: ScheduleView, ...orgErrors(413, 415) },
      detail: {
        summary: "Set the caller's keyboard shortcut for a view",
        description: "1-9 or null. A key belongs to one view per user: it leaves the caller's other view that had it.",
      },
    })
    .post("/:view_uuid/set-default", ({ ctx, params, body }) => setScheduleViewDefault(ctx, params.view_uuid, body), {
      permission: "schedule.read",
      body: ScheduleViewDefault,
      response: { 200: ScheduleView, ...orgErrors(413, 415) },
      detail: {
        summary: "Make a view the caller's default for its location (or clear it)",
        description:
          "With is_default true the view becomes the one the caller's schedule opens on at its location, replacing the caller's previous default there; false clears it when it is this view. Only the caller is affected: is_default is derived per user.",
      },
    });
