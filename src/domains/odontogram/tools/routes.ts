import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  Hotkey,
  HotkeyCreate,
  HotkeyListQuery,
  HotkeyPatch,
  InteractionMode,
  InteractionModeCreate,
  InteractionModeListQuery,
  InteractionModePatch,
  Macro,
  MacroCreate,
  MacroExpandBody,
  MacroExpansion,
  MacroListQuery,
  MacroPatch,
} from "./schemas";
import { archiveHotkey, createHotkey, getHotkey, listHotkeys, updateHotkey } from "./hotkeys";
import { archiveInteractionMode, createInteractionMode, getInteractionMode, listInteractionModes, updateInteractionMode } from "./interaction-modes";
import { archiveMacro, createMacro, expandMacro, getMacro, listMacros, updateMacro } from "./macros";

const PREFIX = "/api/v1/:org_id/odontogram";
const TAGS = ["Odontogram configuration"];

// Hotkey and macro writes are declared with odontogram.read: anyone who may chart
// may keep personal (owner_type user) ones; the verbs demand odontogram.write for
// system and profile records (403), see docs/odontogram/odontogram-tools.md.
const OWNED = "odontogram.read with odontogram.write for owner_type system or profile (403 otherwise).";

const hotkeyRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.odontogram-hotkeys", prefix: `${PREFIX}/hotkeys`, tags: TAGS })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listHotkeys(ctx, query), {
      permission: "odontogram.read",
      query: HotkeyListQuery,
      response: { 200: PageSchema(Hotkey), ...orgErrors() },
      detail: {
        summary: "List hotkeys",
        description:
          "By default the caller's effective hotkeys: per key combo the active hotkey of the highest owner level (user > profile > system), sorted by display_order. resolved=false lists every visible row.",
      },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createHotkey(ctx, body);
      },
      {
        permission: "odontogram.read",
        body: HotkeyCreate,
        response: { 201: Hotkey, ...orgErrors(409, 413, 415) },
        detail: { summary: "Create a hotkey", description: `409 duplicate when the owner already binds the key combo. Needs ${OWNED}` },
      },
    )
    .get("/:hotkey_uuid", ({ ctx, params }) => getHotkey(ctx, params.hotkey_uuid), {
      permission: "odontogram.read",
      response: { 200: Hotkey, ...orgErrors() },
      detail: {
        summary: "Get a hotkey",
        description:
          "One hotkey row: key combo, charting action and its context, order, whether it is active and its owner (system, chart profile or user). Another user's personal hotkey and an archived one are 404.",
      },
    })
    .patch("/:hotkey_uuid", ({ ctx, params, body }) => updateHotkey(ctx, params.hotkey_uuid, body), {
      permission: "odontogram.read",
      body: HotkeyPatch,
      response: { 200: Hotkey, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a hotkey", description: `Needs ${OWNED}` },
    })
    .post("/:hotkey_uuid/archive", ({ ctx, params }) => archiveHotkey(ctx, params.hotkey_uuid), {
      permission: "odontogram.read",
      response: { 200: Hotkey, ...orgErrors() },
      detail: { summary: "Archive a hotkey", description: `Needs ${OWNED}` },
    });

const interactionModeRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.odontogram-interaction-modes", prefix: `${PREFIX}/interaction-modes`, tags: TAGS })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listInteractionModes(ctx, query), {
      permission: "odontogram.read",
      query: InteractionModeListQuery,
      response: { 200: PageSchema(InteractionMode), ...orgErrors() },
      detail: { summary: "List interaction modes (by display_order)" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createInteractionMode(ctx, body);
      },
      {
        permission: "odontogram.write",
        body: InteractionModeCreate,
        response: { 201: InteractionMode, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create an interaction mode",
          description:
            "Adds a charting interaction mode with its default tool, selection type and allowed scopes; it goes last unless display_order is given. 409 duplicate when a mode that is not archived has the code.",
        },
      },
    )
    .get("/:mode_uuid", ({ ctx, params }) => getInteractionMode(ctx, params.mode_uuid), {
      permission: "odontogram.read",
      response: { 200: InteractionMode, ...orgErrors() },
      detail: {
        summary: "Get an interaction mode",
        description:
          "One charting interaction mode: code, name, default tool, selection type, the scopes it allows, cursor icon, order and whether it is a system mode. An archived mode is 404.",
      },
    })
    .patch("/:mode_uuid", ({ ctx, params, body }) => updateInteractionMode(ctx, params.mode_uuid, body), {
      permission: "odontogram.write",
      body: InteractionModePatch,
      response: { 200: InteractionMode, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update an interaction mode",
        description: "code is immutable (422). A system mode's default_tool, selection_type and allowed_scopes cannot change (422 system_record).",
      },
    })
    .post("/:mode_uuid/archive", ({ ctx, params }) => archiveInteractionMode(ctx, params.mode_uuid), {
      permission: "odontogram.write",
      response: { 200: InteractionMode, ...orgErrors() },
      detail: { summary: "Archive an interaction mode", description: "A system mode cannot be archived (422 system_record)." },
    });

const macroRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.odontogram-macros", prefix: `${PREFIX}/macros`, tags: TAGS })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listMacros(ctx, query), {
      permission: "odontogram.read",
      query: MacroListQuery,
      response: { 200: PageSchema(Macro), ...orgErrors() },
      detail: { summary: "List macros (by name)", description: "System and profile macros and the caller's own." },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createMacro(ctx, body);
      },
      {
        permission: "odontogram.read",
        body: MacroCreate,
        response: { 201: Macro, ...orgErrors(409, 413, 415) },
        detail: { summary: "Create a macro", description: `409 duplicate when the owner already has a macro of that name. Needs ${OWNED}` },
      },
    )
    .get("/:macro_uuid", ({ ctx, params }) => getMacro(ctx, params.macro_uuid), {
      permission: "odontogram.read",
      response: { 200: Macro, ...orgErrors() },
      detail: {
        summary: "Get a macro",
        description:
          "A charting macro with its ordered actions (with the `$tooth` and `$surfaces` placeholders as written), whether it is active and its owner. Another user's personal macro and an archived one are 404.",
      },
    })
    .patch("/:macro_uuid", ({ ctx, params, body }) => updateMacro(ctx, params.macro_uuid, body), {
      permission: "odontogram.read",
      body: MacroPatch,
      response: { 200: Macro, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a macro", description: `Needs ${OWNED}` },
    })
    .post("/:macro_uuid/archive", ({ ctx, params }) => archiveMacro(ctx, params.macro_uuid), {
      permission: "odontogram.read",
      response: { 200: Macro, ...orgErrors() },
      detail: { summary: "Archive a macro", description: `Needs ${OWNED}` },
    })
    .post("/:macro_uuid/expand", ({ ctx, params, body }) => expandMacro(ctx, params.macro_uuid, body), {
      permission: "odontogram.read",
      body: MacroExpandBody.optional(),
      response: { 200: MacroExpansion, ...orgErrors(413, 415) },
      detail: {
        summary: "Expand a macro",
        description: "The macro's actions with $tooth and $surfaces replaced from context; nothing is written. 422 missing_context, 422 macro_inactive.",
      },
    });

export const odontogramToolRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.odontogram-tools" }).use(hotkeyRoutes(rt)).use(interactionModeRoutes(rt)).use(macroRoutes(rt));
