import type { Db } from "@/platform/db/database";
import type { Work } from "@/platform/db/work";
import type { TenantSchema } from "@db/tenant/drizzle-schema";

/**
 * Starter data every org receives (code catalogues, definition categories,
 * odontogram auto-codes, ...). Each seed runs once per org database, inside one
 * transaction with the others that are due, when the database is provisioned
 * or first opened after a release that adds a seed. A seed's name never
 * changes once released; to change data later, add a new seed.
 */
export type OrgSeed = { name: string; run: (tx: Db<TenantSchema>, now: string) => Work<void> };
