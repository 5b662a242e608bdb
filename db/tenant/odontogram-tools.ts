import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, versioned } from "@db/columns";

// Charting UI configuration: keyboard shortcuts, interaction modes and macros.
// Hotkeys and macros belong to an owner level (system < profile < user);
// `owner_key` ("system", "profile:<chart profile id>", "user:<user id>") names
// the owner a key combo or macro name must be unique for.

export type MacroAction = { type: string; params: Record<string, unknown> };

export const odontogramHotkeys = sqliteTable(
  "odontogram_hotkeys",
  {
    id: id(),
    owner_type: text("owner_type").notNull(),
    owner_user_id: text("owner_user_id"),
    // a chart profile is an unchecked reference (no chart profile table yet)
    chart_profile_id: text("chart_profile_id"),
    owner_key: text("owner_key").notNull(),
    // normalised: modifiers in the order Ctrl, Alt, Shift, Meta, then the key
    key_combo: text("key_combo").notNull(),
    action: text("action").notNull(),
    action_context: json<Record<string, unknown>>("action_context").notNull(),
    display_order: integer("display_order").notNull().default(0),
    is_active: bool("is_active").notNull().default(true),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    uniqueIndex("odontogram_hotkeys_owner_combo_live_idx").on(t.owner_key, t.key_combo).where(sql`deleted_at IS NULL`),
    index("odontogram_hotkeys_order_idx").on(t.display_order),
  ],
);

export const interactionModes = sqliteTable(
  "interaction_modes",
  {
    id: id(),
    code: text("code").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    cursor_icon: text("cursor_icon"),
    default_tool: text("default_tool").notNull(),
    selection_type: text("selection_type").notNull(),
    allowed_scopes: json<string[]>("allowed_scopes").notNull(),
    display_order: integer("display_order").notNull().default(0),
    is_system: bool("is_system").notNull().default(false),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [uniqueIndex("interaction_modes_code_live_idx").on(t.code).where(sql`deleted_at IS NULL`), index("interaction_modes_order_idx").on(t.display_order)],
);

export const odontogramMacros = sqliteTable(
  "odontogram_macros",
  {
    id: id(),
    name: text("name").notNull(),
    description: text("description"),
    owner_type: text("owner_type").notNull(),
    owner_user_id: text("owner_user_id"),
    chart_profile_id: text("chart_profile_id"),
    owner_key: text("owner_key").notNull(),
    actions: json<MacroAction[]>("actions").notNull(),
    is_active: bool("is_active").notNull().default(true),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [uniqueIndex("odontogram_macros_owner_name_live_idx").on(t.owner_key, sql`lower(name)`).where(sql`deleted_at IS NULL`)],
);

/** How the chart pictures label teeth: Universal (1-32, A-T) or FDI (11-48, 51-85). Records always hold Universal numbers. */
export const TOOTH_NUMBERINGS = ["universal", "fdi"] as const;
export type ToothNumbering = (typeof TOOTH_NUMBERINGS)[number];

// The org's chart drawing settings: one row, made by the first PATCH (until
// then every setting has its default). tooth_numbering: universal | fdi, how
// the chart pictures label teeth (records always hold Universal numbers).
export const odontogramSettings = sqliteTable("odontogram_settings", {
  id: id(),
  tooth_numbering: text("tooth_numbering").notNull().default("universal"),
  ...versioned(),
});
