import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Location, LocationCreate, LocationListQuery, LocationPatch } from "./schemas";
import { archiveLocation, createLocation, getLocation, listLocations, updateLocation } from "./service";

export const locationRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/locations", tags: ["Locations"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listLocations(ctx, query), {
      permission: "locations.read",
      query: LocationListQuery,
      response: { 200: PageSchema(Location), ...orgErrors() },
      detail: { summary: "List locations" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createLocation(ctx, body);
      },
      {
        permission: "locations.write",
        body: LocationCreate,
        response: { 201: Location, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a location",
          description: "`timezone` must be an IANA time zone (422 otherwise): the location's appointments, blockouts and calendars are wall-clock times in it.",
        },
      },
    )
    .get("/:location_id", ({ ctx, params }) => getLocation(ctx, params.location_id), {
      permission: "locations.read",
      response: { 200: Location, ...orgErrors() },
      detail: {
        summary: "Get a location",
        description:
          "The practice with its name, IANA time zone (the zone of its appointment times), address and contact details. An archived location is 404.",
      },
    })
    .patch("/:location_id", ({ ctx, params, body }) => updateLocation(ctx, params.location_id, body), {
      permission: "locations.write",
      body: LocationPatch,
      response: { 200: Location, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a location" },
    })
    .post("/:location_id/archive", ({ ctx, params }) => archiveLocation(ctx, params.location_id), {
      permission: "locations.write",
      response: { 200: Location, ...orgErrors(409) },
      detail: {
        summary: "Archive a location",
        description:
          "Soft delete: the location leaves lists and answers 404, and archiving again is 404. Its operatories, appointments and history stay; new bookings, operatories and patients cannot name it (404).",
      },
    });
