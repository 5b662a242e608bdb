import { eq } from "drizzle-orm";
import { explosionCodes, type StoredExplosionEntry } from "@db/tenant/codes";
import type { Work } from "@/platform/db/work";
import { invalid, NotFound } from "@/platform/errors";
import { formatCents } from "@/platform/money";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { anyContains } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { procedureCodesByCode, procedureCodesById, type ProcedureCodeRow } from "@/domains/codes/procedure-codes/service";
import { allHold, factsOf, holds } from "./conditions";
import type { EntryInput, Explosion, ExplosionCode, ExplosionCodeCreate, ExplosionCodeListQuery, ExplosionCodePatch, ExplodeRequest } from "./schemas";

type ExplosionRow = typeof explosionCodes.$inferSelect;
type CodesById = Map<string, ProcedureCodeRow>;

const serialize = (r: ExplosionRow, codes: CodesById): ExplosionCode => ({
  id: r.id,
  name: r.name,
  description: r.description,
  conditions: r.conditions as ExplosionCode["conditions"],
  entries: r.entries.map((e) => {
    const code = codes.get(e.procedure_code_id);
    return {
      procedure_code: code?.code ?? "",
      procedure_code_ref: { uuid: e.procedure_code_id, name: code?.short_name ?? null },
      quantity: e.quantity,
      tooth_number: e.tooth_number,
      surfaces: e.surfaces,
      conditions: e.conditions as ExplosionCode["conditions"],
    };
  }),
  status: r.status as ExplosionCode["status"],
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

// The audit trail stores entries as written (procedure code ids); responses resolve them.
export const explosionCodeRecords = defineResource<ExplosionRow, ExplosionRow>({
  table: explosionCodes,
  name: "explosion_code",
  label: "Explosion code",
  serialize: (r) => r,
});

const codeIdsOf = (rows: ExplosionRow[]) => rows.flatMap((r) => r.entries.map((e) => e.procedure_code_id));

function* present(db: TenantDb, row: ExplosionRow): Work<ExplosionCode> {
  return serialize(row, yield* procedureCodesById(db, codeIdsOf([row])));
}

/** Entries as stored: each code must be a non-archived code of the catalogue (404), fixed tooth and surfaces must suit it (422). */
function* resolveEntries(db: TenantDb, entries: EntryInput[]): Work<StoredExplosionEntry[]> {
  const codes = yield* procedureCodesByCode(
    db,
    entries.map((e) => e.procedure_code),
  );
  return entries.map((e, i) => {
    const code = codes.get(e.procedure_code);
    if (!code) throw new NotFound(`Procedure code of entries[${i}]`);
    if (e.tooth_number && !["tooth", "surface"].includes(code.treatment_area)) {
      throw invalid(["body", "entries", i, "tooth_number"], "Only tooth and surface codes take a tooth", "value_error", "treatment_area_mismatch");
    }
    if (e.surfaces && code.treatment_area !== "surface") {
      throw invalid(["body", "entries", i, "surfaces"], "Only surface codes take surfaces", "value_error", "treatment_area_mismatch");
    }
    return {
      procedure_code_id: code.id,
      quantity: e.quantity ?? 1,
      tooth_number: e.tooth_number ?? null,
      surfaces: e.surfaces ?? null,
      conditions: e.conditions ?? [],
    };
  });
}

export async function listExplosionCodes(ctx: OrgContext, q: ExplosionCodeListQuery) {
  return ctx.db.read(function* (db) {
    const page = yield* explosionCodeRecords.list(db, q, {
      where: [
        q.status ? eq(explosionCodes.status, q.status) : undefined,
        q.search ? anyContains([explosionCodes.name, explosionCodes.description], q.search) : undefined,
      ],
      orderBy: [explosionCodes.name, explosionCodes.id],
    });
    const codes = yield* procedureCodesById(db, codeIdsOf(page.items));
    return { ...page, items: page.items.map((r) => serialize(r, codes)) };
  });
}

export async function getExplosionCode(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* present(db, yield* explosionCodeRecords.require(db, id));
  });
}

export async function createExplosionCode(ctx: OrgContext, input: ExplosionCodeCreate) {
  return withTransaction(ctx, function* (s) {
    const entries = yield* resolveEntries(s.tx, input.entries ?? []);
    const row = yield* explosionCodeRecords.create(s, {
      name: input.name,
      description: input.description ?? null,
      conditions: input.conditions ?? [],
      entries,
      status: "active",
    });
    return yield* present(s.tx, row);
  });
}

export async function updateExplosionCode(ctx: OrgContext, id: string, input: ExplosionCodePatch) {
  const { base_version, entries, ...rest } = input;
  return withTransaction(ctx, function* (s) {
    yield* explosionCodeRecords.requireCurrent(s.tx, id, base_version);
    const patch: Partial<ExplosionRow> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
    if (entries) patch.entries = yield* resolveEntries(s.tx, entries);
    return yield* present(s.tx, yield* explosionCodeRecords.update(s, id, base_version, patch));
  });
}

export async function archiveExplosionCode(ctx: OrgContext, id: string) {
  return withTransaction(ctx, function* (s) {
    return yield* present(s.tx, yield* explosionCodeRecords.archive(s, id));
  });
}

/**
 * The procedures the code expands to for a charting context: nothing when the
 * code's own conditions fail (applies false), else every entry whose conditions hold.
 */
export async function explode(ctx: OrgContext, id: string, req: ExplodeRequest): Promise<Explosion> {
  return ctx.db.read(function* (db) {
    const row = yield* explosionCodeRecords.require(db, id);
    if (row.status !== "active") throw invalid(["path", "explosion_code_uuid"], "The explosion code is inactive", "value_error", "explosion_code_inactive");
    const facts = factsOf(req.context);
    const unmet = row.conditions.filter((c) => !holds(c, facts));
    const result = { explosion_code: { uuid: row.id, name: row.name }, applies: unmet.length === 0, unmet_conditions: unmet as Explosion["unmet_conditions"] };
    if (unmet.length) return { ...result, procedures: [] };
    const chosen = row.entries.map((e, i) => [e, i] as const).filter(([e]) => allHold(e.conditions, facts));
    const codes = yield* procedureCodesById(
      db,
      chosen.map(([e]) => e.procedure_code_id),
    );
    const procedures = chosen.map(([e, i]) => {
      const code = codes.get(e.procedure_code_id);
      if (!code || code.deleted_at || code.status !== "active") {
        throw invalid(
          ["path", "explosion_code_uuid"],
          `The procedure code of entries[${i}] is archived or inactive`,
          "value_error",
          "procedure_code_unavailable",
        );
      }
      const area = code.treatment_area;
      const onTooth = area === "tooth" || area === "surface";
      return {
        entry_index: i,
        procedure_code: code.code,
        procedure_code_uuid: code.id,
        short_name: code.short_name,
        treatment_area: area as Explosion["procedures"][number]["treatment_area"],
        default_fee: formatCents(code.default_fee_cents)!,
        quantity: e.quantity,
        tooth_number: onTooth ? (e.tooth_number ?? req.context.tooth_number ?? null) : null,
        surfaces: area === "surface" ? (e.surfaces ?? req.context.surfaces ?? null) : null,
        arch: area === "arch" ? ((facts.arch as string | undefined) ?? null) : null,
        quadrant: area === "quadrant" ? ((facts.quadrant as string | undefined) ?? null) : null,
      };
    });
    return { ...result, procedures };
  });
}
