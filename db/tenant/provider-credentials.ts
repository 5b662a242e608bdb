import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, id, softDelete, versioned } from "@db/columns";
import { locations, providers } from "./practice";

// A provider's credentials (docs/providers/provider-credentials.md): payer-specific
// identities, per-location licences (DEA, state licence) and eRx access.
// Rows are archived (deleted_at), never deleted: they back claims and prescriptions.

export const providerIdentities = sqliteTable(
  "provider_identities",
  {
    id: id(),
    provider_id: text("provider_id")
      .notNull()
      .references(() => providers.id),
    id_number: text("id_number").notNull(),
    payor_id: text("payor_id").notNull(),
    supplemental_id_type: text("supplemental_id_type").notNull(),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("provider_identities_provider_idx").on(t.provider_id)],
);

export const providerLocationOverrides = sqliteTable(
  "provider_location_overrides",
  {
    id: id(),
    provider_id: text("provider_id")
      .notNull()
      .references(() => providers.id),
    location_id: text("location_id")
      .notNull()
      .references(() => locations.id),
    dea_number: text("dea_number"),
    state_license: text("state_license"),
    state_rx_id: text("state_rx_id"),
    state_where_licensed: text("state_where_licensed"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("provider_location_overrides_provider_idx").on(t.provider_id, t.location_id)],
);

export const providerPrescriptionAccess = sqliteTable(
  "provider_prescription_access",
  {
    id: id(),
    provider_id: text("provider_id")
      .notNull()
      .references(() => providers.id),
    national_provider_id: text("national_provider_id").notNull(),
    erx_status: text("erx_status"),
    erx_type: text("erx_type"),
    is_epcs: bool("is_epcs").notNull().default(false),
    is_identity_proofed: bool("is_identity_proofed").notNull().default(false),
    // a user of the control database (a member of this org); no foreign key across databases
    user_id: text("user_id"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("provider_prescription_access_provider_idx").on(t.provider_id)],
);
