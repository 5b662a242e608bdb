import { z } from "zod";
import { BaseVersion, DateTime, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { ConditionSeverity, ConditionStatus, ConditionType, ProcedureStatus, Surfaces, ToothNumber, ToothStatusValue } from "@/domains/codes/dental-vocabulary";
import { normaliseKeyCombo } from "./key-combo";

// ---- shared ---------------------------------------------------------------

export const OWNER_TYPES = ["system", "profile", "user"] as const;
export type OwnerType = (typeof OWNER_TYPES)[number];
const OwnerTypeField = z.enum(OWNER_TYPES);

const DisplayOrder = z.number().int().min(0).max(1_000_000);
const Description = z.string().trim().max(2000);

/** A free-form JSON object, kept small: it travels with every chart load. */
const JsonObject = z.record(z.string(), z.unknown()).refine((o) => JSON.stringify(o).length <= 4000, "Must serialise to at most 4000 characters");

const ChartProfileUuid = Uuid.describe(
  "The chart profile this belongs to: required for owner_type profile, not allowed otherwise (not checked against a chart profile record)",
);

const OwnerFields = {
  owner_type: OwnerTypeField,
  owner_user_uuid: z.string().nullable().describe("The owning user for owner_type user (the creator), else null"),
  chart_profile: Ref.nullable().describe("The chart profile for owner_type profile (name is null: chart profiles are not stored here), else null"),
};

// ---- hotkeys --------------------------------------------------------------

const KeyCombo = z
  .string()
  .max(60)
  .transform((v, ctx) => {
    const combo = normaliseKeyCombo(v);
    if (combo === null) {
      ctx.addIssue({ code: "custom", message: "Must be a key combination such as Ctrl+Shift+K: optional Ctrl, Alt, Shift, Meta, then one key" });
      return z.NEVER;
    }
    return combo;
  })
  .describe("e.g. Ctrl+Shift+K; case-insensitive, stored with modifiers in the order Ctrl, Alt, Shift, Meta");

const Action = z
  .string()
  .max(100)
  .regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/, "Must be a dotted lower-case action name, e.g. mode.activate")
  .describe("What the key does in the charting UI, e.g. mode.activate, chart.undo, surface.toggle");

const hotkeyFields = {
  action: Action,
  action_context: JsonObject.describe('Arguments of the action, e.g. {"mode_code": "select"}; default {}'),
  display_order: DisplayOrder.describe("Position in lists, lower first; default after the owner's last hotkey"),
  is_active: z.boolean().describe("Inactive hotkeys are skipped by owner resolution; default true"),
  key_combo: KeyCombo,
};
const HOTKEY_READ_ONLY = ["owner_user_uuid", "chart_profile"];

export const HotkeyCreate = z
  .strictObject({
    action: hotkeyFields.action,
    key_combo: hotkeyFields.key_combo,
    action_context: hotkeyFields.action_context.optional(),
    display_order: hotkeyFields.display_order.optional(),
    is_active: hotkeyFields.is_active.optional(),
    owner_type: OwnerTypeField.optional().describe("Default profile when chart_profile_uuid is given, else user. system and profile need odontogram.write"),
    chart_profile_uuid: ChartProfileUuid.optional(),
  })
  .meta({ readOnly: HOTKEY_READ_ONLY });
export type HotkeyCreate = z.infer<typeof HotkeyCreate>;

export const HotkeyPatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(hotkeyFields).partial().shape })
  .meta({ readOnly: [...HOTKEY_READ_ONLY, "owner_type", "chart_profile_uuid"] });
export type HotkeyPatch = z.infer<typeof HotkeyPatch>;

export const Hotkey = z
  .object({
    ...RecordMeta,
    action: z.string(),
    action_context: z.record(z.string(), z.unknown()),
    display_order: z.number().int(),
    is_active: z.boolean(),
    key_combo: z.string(),
    ...OwnerFields,
    deleted_at: DateTime.nullable().describe("Set when archived (archived hotkeys answer 404)"),
  })
  .meta({ id: "Hotkey" });
export type Hotkey = z.infer<typeof Hotkey>;

export const HotkeyListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  resolved: QueryBool.optional().describe(
    "Default true: the caller's effective hotkeys after owner resolution (system < profile < user, active only). false: every visible row",
  ),
  chart_profile_uuid: Uuid.optional().describe(
    "Also take this chart profile's hotkeys into account (without it: no profile hotkeys when resolved, every profile's when resolved=false)",
  ),
  owner_type: OwnerTypeField.optional().describe("Only rows of this owner level (after resolution when resolved)"),
});
export type HotkeyListQuery = z.infer<typeof HotkeyListQuery>;

// ---- interaction modes ----------------------------------------------------

export const DEFAULT_TOOLS = ["paint", "select", "annotate", "measure"] as const;
export const SELECTION_TYPES = ["single_tooth", "multi_tooth", "surface", "span", "region"] as const;
export const SCOPES = [
  "surface",
  "crown",
  "root",
  "whole_tooth",
  "symbol",
  "span",
  "arch_object",
  "canal",
  "arch_overlay",
  "quadrant_overlay",
  "sextant_overlay",
  "gingival_margin",
  "attachment_point",
  "occlusal_detail",
] as const;

const modeFields = {
  name: z.string().trim().min(1).max(100),
  description: Description.nullable(),
  cursor_icon: z.string().trim().min(1).max(100).nullable().describe("Icon name the UI shows as the cursor"),
  default_tool: z.enum(DEFAULT_TOOLS),
  selection_type: z.enum(SELECTION_TYPES),
  allowed_scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .max(SCOPES.length)
    .refine((a) => new Set(a).size === a.length, "Must not repeat a scope")
    .describe("What the mode may act on"),
  display_order: DisplayOrder.describe("Position in lists, lower first; default after the last mode"),
};

export const InteractionModeCreate = z.strictObject({
  code: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,49}$/, "Must be lower-case letters, digits and _ (starting with a letter, at most 50)")
    .describe("Unique among modes that are not archived (409 duplicate); immutable"),
  name: modeFields.name,
  default_tool: modeFields.default_tool,
  selection_type: modeFields.selection_type,
  allowed_scopes: modeFields.allowed_scopes,
  description: modeFields.description.optional(),
  cursor_icon: modeFields.cursor_icon.optional(),
  display_order: modeFields.display_order.optional(),
  is_system: z
    .boolean()
    .optional()
    .describe("Default false. A system mode cannot be archived and only its name, description, cursor_icon and display_order can change"),
});
export type InteractionModeCreate = z.infer<typeof InteractionModeCreate>;

export const InteractionModePatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(modeFields).partial().shape })
  .meta({ readOnly: ["code", "is_system"] });
export type InteractionModePatch = z.infer<typeof InteractionModePatch>;

export const InteractionMode = z
  .object({
    ...RecordMeta,
    code: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    cursor_icon: z.string().nullable(),
    default_tool: z.enum(DEFAULT_TOOLS),
    selection_type: z.enum(SELECTION_TYPES),
    allowed_scopes: z.array(z.enum(SCOPES)),
    display_order: z.number().int(),
    is_system: z.boolean(),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "InteractionMode" });
export type InteractionMode = z.infer<typeof InteractionMode>;

export const InteractionModeListQuery = z.strictObject({
  ...pagingQuery(50, 100),
  search: z.string().max(200).optional().describe("Case-insensitive substring of name or code"),
  is_system: QueryBool.optional(),
});
export type InteractionModeListQuery = z.infer<typeof InteractionModeListQuery>;

// ---- macros ---------------------------------------------------------------

export const TOOTH_PLACEHOLDER = "$tooth";
export const SURFACES_PLACEHOLDER = "$surfaces";
const ToothParam = z
  .union([z.literal(TOOTH_PLACEHOLDER), ToothNumber.macro])
  .describe(`A tooth (1-32, A-T) or ${TOOTH_PLACEHOLDER}: the tooth given to expand`);
const SurfacesParam = z
  .union([z.literal(SURFACES_PLACEHOLDER), Surfaces.macro])
  .describe(`Surface letters or ${SURFACES_PLACEHOLDER}: the surfaces given to expand`);

export const MacroActionSchema = z
  .discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("add_procedure"),
      params: z.strictObject({
        procedure_code: z
          .string()
          .trim()
          .min(1)
          .max(20)
          .regex(/^[A-Za-z0-9][A-Za-z0-9.-]*$/, "Must be a procedure code such as D1110")
          .transform((v) => v.toUpperCase())
          .describe("Code of the org's procedure catalogue (not checked here)"),
        tooth_number: ToothParam.optional(),
        surfaces: SurfacesParam.optional(),
        status: ProcedureStatus.optional(),
      }),
    }),
    z.strictObject({
      type: z.literal("add_condition"),
      params: z.strictObject({
        condition_type: ConditionType,
        tooth_number: ToothParam.optional(),
        surface: SurfacesParam.optional(),
        severity: ConditionSeverity.optional(),
        status: ConditionStatus.optional(),
      }),
    }),
    z.strictObject({
      type: z.literal("set_tooth_status"),
      params: z.strictObject({ tooth_number: ToothParam, status: ToothStatusValue }),
    }),
    z.strictObject({
      type: z.literal("note"),
      params: z.strictObject({ text: z.string().trim().min(1).max(2000) }),
    }),
  ])
  .describe("One charting step: add_procedure, add_condition, set_tooth_status or note, with params of that type");
export type MacroAction = z.infer<typeof MacroActionSchema>;

const macroFields = {
  name: z.string().trim().min(1).max(100).describe("Unique per owner (case-insensitive) among macros that are not archived"),
  description: Description.nullable(),
  actions: z.array(MacroActionSchema).min(1).max(50).describe("Run in order"),
  is_active: z.boolean().describe("Default true; an inactive macro cannot be expanded"),
};
const MACRO_READ_ONLY = ["owner_user_uuid", "chart_profile"];

export const MacroCreate = z
  .strictObject({
    name: macroFields.name,
    actions: macroFields.actions,
    description: macroFields.description.optional(),
    is_active: macroFields.is_active.optional(),
    owner_type: OwnerTypeField.optional().describe("Default profile when chart_profile_uuid is given, else user. system and profile need odontogram.write"),
    chart_profile_uuid: ChartProfileUuid.optional(),
  })
  .meta({ readOnly: MACRO_READ_ONLY });
export type MacroCreate = z.infer<typeof MacroCreate>;

export const MacroPatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(macroFields).partial().shape })
  .meta({ readOnly: [...MACRO_READ_ONLY, "owner_type", "chart_profile_uuid"] });
export type MacroPatch = z.infer<typeof MacroPatch>;

const MacroActionOut = z.object({ type: z.string(), params: z.record(z.string(), z.unknown()) });

export const Macro = z
  .object({
    ...RecordMeta,
    name: z.string(),
    description: z.string().nullable(),
    actions: z.array(MacroActionOut),
    is_active: z.boolean(),
    ...OwnerFields,
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "Macro" });
export type Macro = z.infer<typeof Macro>;

export const MacroListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  owner_type: OwnerTypeField.optional(),
  chart_profile_uuid: Uuid.optional().describe("Only macros of this chart profile"),
  is_active: QueryBool.optional(),
  search: z.string().max(200).optional().describe("Case-insensitive substring of the name"),
});
export type MacroListQuery = z.infer<typeof MacroListQuery>;

export const MacroExpandBody = z.strictObject({
  context: z
    .strictObject({
      tooth_number: ToothNumber.macro.optional(),
      surfaces: Surfaces.macro.optional(),
    })
    .optional()
    .describe(`Values for the ${TOOTH_PLACEHOLDER} and ${SURFACES_PLACEHOLDER} placeholders`),
});
export type MacroExpandBody = z.infer<typeof MacroExpandBody>;

export const MacroExpansion = z
  .object({
    macro: Ref,
    actions: z.array(MacroActionOut).describe("The macro's actions in order, placeholders replaced by the context"),
  })
  .meta({ id: "MacroExpansion" });
export type MacroExpansion = z.infer<typeof MacroExpansion>;
