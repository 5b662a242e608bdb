import type { OrgSeed } from "./seed";
import { ODONTOGRAM_SURFACE_LETTERS } from "@db/tenant/dental-vocabulary";
import { interactionModes, odontogramHotkeys } from "@db/tenant/odontogram-tools";
import { run } from "@/platform/db/work";
import { newId } from "@/platform/ids";

// The interaction modes and keyboard shortcuts a charting UI needs on day one.
// Modes are system records (is_system: cannot be archived, behaviour fixed);
// hotkeys are system-level defaults that profiles and users may override.
// Written straight to the tables (not audited: provisioning, not a user's act).

type Mode = [code: string, name: string, tool: string, selection: string, scopes: string[], cursor: string, description: string];

export const SYSTEM_MODES: Mode[] = [
  [
    "select",
    "Select",
    "select",
    "single_tooth",
    ["whole_tooth", "crown", "root", "surface", "symbol"],
    "pointer",
    "Pick a tooth to inspect or edit what is charted on it",
  ],
  ["multi_select", "Multi-select", "select", "multi_tooth", ["whole_tooth"], "pointer-plus", "Pick several teeth to chart the same thing on each"],
  [
    "surface_charting",
    "Surface charting",
    "paint",
    "surface",
    ["surface", "occlusal_detail"],
    "brush-surface",
    "Paint restorations and caries onto tooth surfaces",
  ],
  [
    "tooth_charting",
    "Whole-tooth charting",
    "paint",
    "single_tooth",
    ["whole_tooth", "crown", "root", "symbol"],
    "brush-tooth",
    "Chart crowns, extractions, implants and tooth symbols",
  ],
  ["span_charting", "Bridge / span", "paint", "span", ["span", "whole_tooth"], "brush-span", "Chart bridges, splints and other multi-unit work across a span"],
  ["endodontic", "Endodontic", "paint", "single_tooth", ["root", "canal"], "brush-root", "Chart root canal treatment per canal"],
  ["periodontal", "Gingival margin", "paint", "region", ["gingival_margin", "attachment_point"], "brush-gum", "Trace gingival margins and attachment levels"],
  [
    "arch_charting",
    "Arch / quadrant",
    "paint",
    "region",
    ["arch_object", "arch_overlay", "quadrant_overlay", "sextant_overlay"],
    "brush-arch",
    "Chart dentures, appliances and arch, quadrant or sextant procedures",
  ],
  ["annotate", "Annotate", "annotate", "region", ["symbol", "whole_tooth", "surface", "arch_overlay"], "pen", "Place notes and symbols on the chart"],
  ["measure", "Measure", "measure", "region", ["whole_tooth", "arch_overlay"], "ruler", "Measure distances and angles on the chart"],
];

// [key combo (normalised), action, action_context]
export const SYSTEM_HOTKEYS: [string, string, Record<string, unknown>][] = [
  ...SYSTEM_MODES.map(([code], i): [string, string, Record<string, unknown>] => [String((i + 1) % 10), "mode.activate", { mode_code: code }]),
  ...ODONTOGRAM_SURFACE_LETTERS.map((s): [string, string, Record<string, unknown>] => [s, "surface.toggle", { surface: s }]),
  ["Ctrl+Z", "chart.undo", {}],
  ["Ctrl+Shift+Z", "chart.redo", {}],
  ["Ctrl+Y", "chart.redo", {}],
  ["Escape", "selection.clear", {}],
  ["Delete", "selection.delete", {}],
  ["ArrowRight", "tooth.next", {}],
  ["ArrowLeft", "tooth.previous", {}],
  ["Ctrl+Shift+D", "chart.toggle_dentition", {}],
  ["Ctrl+Shift+H", "chart.toggle_history", {}],
  ["Ctrl+M", "macro.open_picker", {}],
];

export const odontogramToolSeed: OrgSeed = {
  name: "odontogram-tools",
  *run(tx, now) {
    const meta = { created_at: now, updated_at: now, version: 1 };
    yield* run(
      tx.insert(interactionModes).values(
        SYSTEM_MODES.map(([code, name, tool, selection, scopes, cursor, description], i) => ({
          id: newId(),
          code,
          name,
          description,
          cursor_icon: cursor,
          default_tool: tool,
          selection_type: selection,
          allowed_scopes: scopes,
          display_order: i * 10,
          is_system: true,
          ...meta,
        })),
      ),
    );
    yield* run(
      tx.insert(odontogramHotkeys).values(
        SYSTEM_HOTKEYS.map(([key_combo, action, action_context], i) => ({
          id: newId(),
          owner_type: "system",
          owner_user_id: null,
          chart_profile_id: null,
          owner_key: "system",
          key_combo,
          action,
          action_context,
          display_order: i * 10,
          is_active: true,
          ...meta,
        })),
      ),
    );
  },
};
