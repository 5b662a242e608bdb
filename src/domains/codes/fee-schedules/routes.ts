import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  Fee,
  FeeDeleteQuery,
  FeeListQuery,
  FeeSchedule,
  FeeScheduleArchiveQuery,
  FeeScheduleCopy,
  FeeScheduleCreate,
  FeeScheduleListQuery,
  FeeSchedulePatch,
  FeesPut,
  FeesPutResult,
  MAX_FEES_PER_PUT,
} from "./schemas";
import { archiveFeeSchedule, createFeeSchedule, deleteFee, getFeeSchedule, listFeeSchedules, listFees, putFees, updateFeeSchedule } from "./service";
import { COPY_INLINE_LIMIT, copyFeeSchedule } from "./copy";

const TYPES = "schedule_type is office (what the office charges), ucr, ppo (a PPO's contracted fees) or allowed (what a plan allows).";

export const feeScheduleRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.fee-schedules", prefix: "/api/v1/:org_id/fee-schedules", tags: ["Fee schedules"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listFeeSchedules(ctx, query), {
      permission: "codes.read",
      query: FeeScheduleListQuery,
      response: { 200: PageSchema(FeeSchedule), ...orgErrors() },
      detail: {
        summary: "List fee schedules",
        description: "Ordered by name, then id; archived schedules are not listed. Paged by page and page_size (default 50, at most 200).",
      },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createFeeSchedule(ctx, body);
      },
      {
        permission: "codes.write",
        body: FeeScheduleCreate,
        response: { 201: FeeSchedule, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a fee schedule",
          description: `${TYPES} A name another live schedule has (any case) is 409 duplicate. is_default makes it the org's default office schedule and takes the flag from the previous default in the same write; only an office schedule can be the default (422 default_not_office).`,
        },
      },
    )
    .get("/:fee_schedule_uuid", ({ ctx, params }) => getFeeSchedule(ctx, params.fee_schedule_uuid), {
      permission: "codes.read",
      response: { 200: FeeSchedule, ...orgErrors() },
      detail: {
        summary: "Get a fee schedule",
        description:
          "The schedule with its type, flags and the progress of the last copy into it (copy_status running while the copy's job works, then done or failed; copy_done of copy_total fees). An archived schedule is 404.",
      },
    })
    .patch("/:fee_schedule_uuid", ({ ctx, params, body }) => updateFeeSchedule(ctx, params.fee_schedule_uuid, body), {
      permission: "codes.write",
      body: FeeSchedulePatch,
      response: { 200: FeeSchedule, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a fee schedule",
        description:
          "409 version_conflict on a stale base_version; 409 duplicate for a name another live schedule has. The default rule is judged on the schedule as it will be: a default schedule cannot change to another type (422 default_not_office). The copy fields are read-only.",
      },
    })
    .post("/:fee_schedule_uuid/archive", ({ ctx, params, query }) => archiveFeeSchedule(ctx, params.fee_schedule_uuid, query), {
      permission: "codes.write",
      query: FeeScheduleArchiveQuery,
      response: { 200: FeeSchedule, ...orgErrors(409) },
      detail: {
        summary: "Archive a fee schedule",
        description:
          "Soft delete: the schedule leaves lists and answers 404, and is no longer the default. Patients, providers, locations and plans that name it keep the reference, and fee resolution passes it by. A copy running into it stops (copy_status failed). 409 version_conflict when the optional base_version is stale.",
      },
    })
    .get("/:fee_schedule_uuid/fees", ({ ctx, params, query }) => listFees(ctx, params.fee_schedule_uuid, query), {
      permission: "codes.read",
      query: FeeListQuery,
      response: { 200: PageSchema(Fee), ...orgErrors() },
      detail: {
        summary: "List the fees of a fee schedule",
        description:
          "Ordered by procedure code, the schedule-wide fee before the locations' own. search is a prefix of the code; location_uuid lists only that location's own fees (404 when the location is missing). Paged by page and page_size (default 50, at most 200).",
      },
    })
    .put("/:fee_schedule_uuid/fees", ({ ctx, params, body }) => putFees(ctx, params.fee_schedule_uuid, body), {
      permission: "codes.write",
      body: FeesPut,
      response: { 200: FeesPutResult, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Set fees of a fee schedule (bulk upsert)",
        description: `Up to ${MAX_FEES_PER_PUT} fees: each procedure code (and location) gets the amount given, as a new fee or a new version of its fee; one already at that amount is not written. All or nothing: a body with any bad row writes nothing, and one 422 names every bad row with its index in loc (["body", "fees", 3, "amount"]): amounts with more than two decimals or over 1,000,000.00, then (code invalid_fee_rows) codes or locations that are missing or archived and a code and location named twice. 409 copy_in_progress while a copy into the schedule runs.`,
      },
    })
    .delete(
      "/:fee_schedule_uuid/fees/:fee_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteFee(ctx, params.fee_schedule_uuid, params.fee_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: "codes.write",
        query: FeeDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: {
          summary: "Delete a fee",
          description:
            "Soft delete: the code falls back to the schedule-wide fee (for a location's fee), else to the next schedule in fee resolution. A fee of another schedule is 404. 409 version_conflict on a stale base_version; 409 copy_in_progress while a copy into the schedule runs.",
        },
      },
    )
    .post(
      "/:fee_schedule_uuid/copy",
      async ({ ctx, params, body, set }) => {
        const answer = await copyFeeSchedule(ctx, params.fee_schedule_uuid, body);
        set.status = answer.status;
        return answer.schedule;
      },
      {
        permission: "codes.write",
        body: FeeScheduleCopy,
        response: { 200: FeeSchedule, 201: FeeSchedule, 202: FeeSchedule, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Copy a fee schedule's fees into another",
          description: `Into an existing schedule (to_fee_schedule_uuid: 200) or a new one (name, and schedule_type defaulting to the source's: 201). Each fee, schedule-wide or a location's, becomes amount × (100 + percent_change) / 100, rounded half up to round_to dollars (0.01, 1 or 5), and is set on the target as a bulk upsert does; the target's other fees stay. A source of more than ${COPY_INLINE_LIMIT} fees is copied by a background job: 202 with the target showing copy_status running, copy_total and copy_done, read its progress with GET. 422 same_fee_schedule (into itself), fee_out_of_range (a fee would pass 1,000,000.00); 409 copy_in_progress when a copy into the source or the target is running, 409 duplicate for a new name that is taken.`,
        },
      },
    );
