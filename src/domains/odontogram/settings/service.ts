import { odontogramSettings } from "@db/tenant/odontogram-tools";
import type { Work } from "@/platform/db/work";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { checkVersion } from "@/platform/records/versions";
import type { ToothNumbering } from "@db/tenant/odontogram-tools";
import type { OdontogramSettings, OdontogramSettingsPatch } from "./schemas";

// The org's chart drawing settings (docs/odontogram/odontogram-settings.md):
// one row under a fixed id, made by the first PATCH; until then the defaults.

type SettingsRow = typeof odontogramSettings.$inferSelect;
const ROW_ID = "odontogram";
const DEFAULTS: OdontogramSettings = { tooth_numbering: "universal", version: 0, updated_at: null };

const serialize = (r: SettingsRow): OdontogramSettings => ({
  tooth_numbering: r.tooth_numbering as ToothNumbering,
  version: r.version,
  updated_at: r.updated_at,
});

const records = defineResource<SettingsRow, OdontogramSettings>({
  table: odontogramSettings,
  name: "odontogram_settings",
  label: "Odontogram settings",
  serialize,
});

function* settingsOf(db: TenantDb): Work<OdontogramSettings> {
  const row = yield* records.find(db, ROW_ID);
  return row ? serialize(row) : DEFAULTS;
}

/** How this org's chart pictures label teeth. */
export function* toothNumberingOf(db: TenantDb): Work<ToothNumbering> {
  return (yield* settingsOf(db)).tooth_numbering;
}

export const getOdontogramSettings = (ctx: OrgContext) => ctx.db.read(settingsOf);

/** 409 version_conflict when base_version is not the version GET shows (0 before the first change). */
export async function updateOdontogramSettings(ctx: OrgContext, patch: OdontogramSettingsPatch): Promise<OdontogramSettings> {
  return withTransaction(ctx, function* (s) {
    const row = yield* records.find(s.tx, ROW_ID);
    const { base_version, ...changes } = patch;
    if (!row) {
      checkVersion({ version: 0 }, base_version);
      return serialize(yield* records.create(s, { id: ROW_ID, tooth_numbering: changes.tooth_numbering ?? DEFAULTS.tooth_numbering }));
    }
    return serialize(yield* records.update(s, ROW_ID, base_version, changes));
  });
}
