import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { stateOf } from "@/platform/http/request-state";
import type { OrgContext } from "@/platform/records/context";
import { PageSchema } from "@/platform/records/paging";
import {
  ArchiveQuery,
  CountListResult,
  CreateTasksAction,
  CreateTasksResult,
  ExportAction,
  ExportResult,
  ListMember,
  MembersAdd,
  MembersAdded,
  MembersQuery,
  RunListRequest,
  RunListResult,
  SmartList,
  SmartListCreate,
  SmartListFromPreset,
  SmartListListQuery,
  SmartListPatch,
  TagAction,
  TagResult,
} from "./schemas";
import { addMembers, archiveList, createList, createListFromPreset, getList, listLists, listMembers, pinList, removeMember, updateList } from "./service";
import { countList, executeList } from "./run";
import { actionNotImplemented, checkActionTarget } from "./actions";

const VISIBILITY = "A personal list exists only for its owner: others get 404, as for a missing or archived list.";
const ACTION = "Phase 2: 404 when the list is missing, archived or another user's personal list; then 422 for a bad body; then 501 not_implemented.";

/**
 * The list an action names must exist before its body is judged: Elysia
 * validates the body right after the transform hooks, and a macro's hook runs
 * after the guard's when the route names it after `permission`.
 */
const listFirst = new Elysia({ name: "revenue-lists.list-first" })
  .macro({
    listFirst: (enabled: boolean) => ({
      transform({ request, params }: { request: Request; params: Record<string, string> }) {
        if (enabled) return checkActionTarget(stateOf(request).ctx as OrgContext, params.list_uuid!);
      },
    }),
  })
  .as("global");

/** Saved smart lists, static members, runs and (Phase 2) actions (docs/revenue/revenue-lists.md). */
export const revenueListRoutes = (rt: Runtime) =>
  new Elysia({ name: "revenue-lists", prefix: "/api/v1/:org_id/revenue-module/lists", tags: ["Revenue"] })
    .use(guard(rt))
    .use(listFirst)
    .get("", ({ ctx, query }) => listLists(ctx, query), {
      permission: "revenue.read",
      query: SmartListListQuery,
      response: { 200: PageSchema(SmartList), ...orgErrors() },
      detail: {
        summary: "List the smart lists the caller may see",
        description: `Organization and location lists, and the caller's own personal lists; pinned first, then sort_order, then name. ${VISIBILITY}`,
      },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createList(ctx, body);
      },
      {
        permission: "revenue.write",
        body: SmartListCreate,
        response: { 201: SmartList, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a smart list",
          description:
            "422 filter_required for a dynamic list without filter_definition, filter_not_allowed for a static list with one, scope_location_required for scope location without scope_location_uuid, a named condition for a filter that does not fit the registry; list_type preset is 422 (use POST /lists/from-preset). 404 for an unknown location. 409 duplicate when the caller already has a live list of that name (any case) in the scope.",
        },
      },
    )
    .post(
      "/from-preset",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createListFromPreset(ctx, body);
      },
      {
        permission: "revenue.write",
        body: SmartListFromPreset,
        response: { 201: SmartList, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a smart list from a preset",
          description: "list_type preset, with the preset's filter (as of today) and preset_key. Scope rules and 409 duplicate as for POST /lists.",
        },
      },
    )
    .get("/:list_uuid", ({ ctx, params }) => getList(ctx, params.list_uuid), {
      permission: "revenue.read",
      response: { 200: SmartList, ...orgErrors() },
      detail: { summary: "Get a smart list", description: VISIBILITY },
    })
    .patch("/:list_uuid", ({ ctx, params, body }) => updateList(ctx, params.list_uuid, body), {
      permission: "revenue.write",
      body: SmartListPatch,
      response: { 200: SmartList, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a smart list",
        description: `409 version_conflict on a stale base_version; 409 duplicate on a taken name. A new filter_definition is checked against the registry, saved with its source_version, and clears needs_review. ${VISIBILITY}`,
      },
    })
    .post("/:list_uuid/archive", ({ ctx, params, query }) => archiveList(ctx, params.list_uuid, query), {
      permission: "revenue.write",
      query: ArchiveQuery,
      response: { 200: SmartList, ...orgErrors(409) },
      detail: { summary: "Archive a smart list", description: "Soft delete; answers the archived list. Its name becomes free again." },
    })
    .post("/:list_uuid/pin", ({ ctx, params }) => pinList(ctx, params.list_uuid, true), {
      permission: "revenue.write",
      response: { 200: SmartList, ...orgErrors() },
      detail: { summary: "Pin a smart list", description: "No base_version: pinning a pinned list changes nothing." },
    })
    .post("/:list_uuid/unpin", ({ ctx, params }) => pinList(ctx, params.list_uuid, false), {
      permission: "revenue.write",
      response: { 200: SmartList, ...orgErrors() },
      detail: { summary: "Unpin a smart list", description: "No base_version: unpinning a list that is not pinned changes nothing." },
    })
    .post("/:list_uuid/execute", ({ ctx, params, body }) => executeList(ctx, params.list_uuid, body ?? RunListRequest.parse({})), {
      permission: "revenue.read",
      body: RunListRequest.optional(),
      response: { 200: RunListResult, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Run a smart list",
        description:
          "Dynamic and preset lists run their filter (as POST /execute), static lists page their live members. Sets last_executed_at and last_result_count (the list's version does not move). 409 list_needs_review when the saved filter no longer fits the registry.",
      },
    })
    .post("/:list_uuid/count", ({ ctx, params }) => countList(ctx, params.list_uuid), {
      permission: "revenue.read",
      response: { 200: CountListResult, ...orgErrors(409) },
      detail: { summary: "Count a smart list's patients", description: "Sets last_executed_at and last_result_count, as a run does." },
    })
    .get("/:list_uuid/members", ({ ctx, params, query }) => listMembers(ctx, params.list_uuid, query), {
      permission: "revenue.read",
      query: MembersQuery,
      response: { 200: PageSchema(ListMember), ...orgErrors() },
      detail: { summary: "List a static list's members", description: "Oldest first. 422 not_static_list for other lists." },
    })
    .post("/:list_uuid/members", ({ ctx, params, body }) => addMembers(ctx, params.list_uuid, body), {
      permission: "revenue.write",
      body: MembersAdd,
      response: { 200: MembersAdded, ...orgErrors(413, 415) },
      detail: {
        summary: "Add patients to a static list",
        description:
          "404 when any patient is unknown or archived (nothing is added); members already in the list and repeats are ignored and counted in ignored.",
      },
    })
    .delete(
      "/:list_uuid/members/:patient_uuid",
      async ({ ctx, params, set }) => {
        await removeMember(ctx, params.list_uuid, params.patient_uuid);
        set.status = 204;
      },
      {
        permission: "revenue.write",
        response: { 204: NoContent, ...orgErrors() },
        detail: {
          summary: "Remove a patient from a static list",
          description:
            "Takes the patient off a static list (the patient record is untouched). 404 when the patient is not a member; 422 not_static_list for a dynamic list.",
        },
      },
    )
    .post("/:list_uuid/actions/create-tasks", () => actionNotImplemented("create-tasks"), {
      permission: "revenue.write",
      listFirst: true,
      body: CreateTasksAction,
      response: { 200: CreateTasksResult, ...orgErrors(413, 415, 501) },
      detail: { summary: "Create a task per patient of the list (Phase 2)", description: ACTION },
    })
    .post("/:list_uuid/actions/export", () => actionNotImplemented("export"), {
      permission: "revenue.read",
      listFirst: true,
      body: ExportAction,
      response: { 200: ExportResult, ...orgErrors(413, 415, 501) },
      detail: { summary: "Export the list's patients (Phase 2)", description: ACTION },
    })
    .post("/:list_uuid/actions/tag", () => actionNotImplemented("tag"), {
      permission: "revenue.write",
      listFirst: true,
      body: TagAction,
      response: { 200: TagResult, ...orgErrors(413, 415, 501) },
      detail: { summary: "Tag or untag the list's patients (Phase 2)", description: ACTION },
    });
