import type { Db } from "@/platform/db/database";
import type { Work } from "@/platform/db/work";
import type { TenantSchema } from "@db/tenant/drizzle-schema";
import { definitionSeed } from "./definitions";
import { procedureCodeSeed } from "./procedure-codes";
import { icdCodeSeed } from "./icd-codes";
import { autoCodeSeed } from "./auto-codes";
import { odontogramToolSeed } from "./odontogram-tools";
import { coverageCategorySeed } from "./coverage-categories";

/**
 * Starter data every org receives (code catalogues, definition categories,
 * odontogram auto-codes, ...). Each seed runs once per org database, inside one
 * transaction with the others that are due, when the database is provisioned
 * or first opened after a release that adds a seed. A seed's name never
 * changes once released; to change data later, add a new seed.
 */
export type OrgSeed = { name: string; run: (tx: Db<TenantSchema>, now: string) => Work<void> };

// In order: later seeds may read what earlier ones wrote.
export const ORG_SEEDS: readonly OrgSeed[] = [definitionSeed, procedureCodeSeed, icdCodeSeed, autoCodeSeed, odontogramToolSeed, coverageCategorySeed];
