import { and, eq, inArray, isNull, ne, or, sql, type SQL } from "drizzle-orm";
import { inJsonList } from "@/platform/db/in-list";
import { procedureCodes, SERVICE_TYPE_OF, type ProcedureCategory } from "@db/tenant/codes";
import { all, allPrepared, get, prepared, type Work } from "@/platform/db/work";
import { Conflict, invalid } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { anyContains, containsText, startsWithText } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { CODE_FORMATS, type CodeType, type ProcedureCode, type ProcedureCodeCreate, type ProcedureCodeListQuery, type ProcedureCodePatch } from "./schemas";

export type ProcedureCodeRow = typeof procedureCodes.$inferSelect;

export const serializeProcedureCode = (r: ProcedureCodeRow): ProcedureCode => ({
  id: r.id,
  code: r.code,
  short_name: r.short_name,
  description: r.description,
  category: r.category as ProcedureCode["category"],
  code_type: r.code_type as ProcedureCode["code_type"],
  code_in_claims: r.code_in_claims,
  default_billing_order: r.default_billing_order as ProcedureCode["default_billing_order"],
  default_fee: formatCents(r.default_fee_cents)!,
  service_type: r.service_type,
  treatment_area: r.treatment_area as ProcedureCode["treatment_area"],
  apply_sales_tax: r.apply_sales_tax,
  icd_code_mandatory: r.icd_code_mandatory,
  is_ortho: r.is_ortho,
  provider_mandatory: r.provider_mandatory,
  smart_code_logic: r.smart_code_logic,
  under_eighteen_only: r.under_eighteen_only,
  effective_date: r.effective_date,
  termination_date: r.termination_date,
  label: r.label,
  provider_type: r.provider_type as ProcedureCode["provider_type"],
  status: r.status as ProcedureCode["status"],
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const procedureCodeRecords = defineResource<ProcedureCodeRow, ProcedureCode>({
  table: procedureCodes,
  name: "procedure_code",
  label: "Procedure code",
  serialize: serializeProcedureCode,
});

/** For other domains (charting, explosion codes): the non-archived codes with these codes (upper-case), by code. */
export function* procedureCodesByCode(db: TenantDb, codes: string[]): Work<Map<string, ProcedureCodeRow>> {
  if (!codes.length) return new Map();
  const rows = yield* allPrepared(db, liveCodesByCode, { codes: JSON.stringify([...new Set(codes)]) });
  return new Map(rows.map((r) => [r.code, r]));
}
// (estimates look codes up on every run: prepared once per connection, the codes as one JSON array)
const liveCodesByCode = prepared<ProcedureCodeRow>((db) =>
  db
    .select()
    .from(procedureCodes)
    .where(and(inJsonList(procedureCodes.code, "codes"), isNull(procedureCodes.deleted_at)))
    .prepare(),
);

/** For other domains: code rows by id, archived ones included (a reference keeps its code). */
export function* procedureCodesById(db: TenantDb, ids: string[]): Work<Map<string, ProcedureCodeRow>> {
  if (!ids.length) return new Map();
  const rows = yield* all(
    db
      .select()
      .from(procedureCodes)
      .where(inArray(procedureCodes.id, [...new Set(ids)])),
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** The default code type of a code that names none: cdt when it looks like one. */
export const inferCodeType = (code: string): CodeType => (CODE_FORMATS.cdt.pattern.test(code) ? "cdt" : "custom");

/** The rules that span fields, judged on the record as it will be after the write. */
function checkRecord(r: Pick<ProcedureCodeRow, "code" | "code_type" | "effective_date" | "termination_date">) {
  const format = CODE_FORMATS[r.code_type as CodeType];
  if (!format.pattern.test(r.code)) throw invalid(["body", "code"], `A ${r.code_type} code must be ${format.hint}`, "format", "invalid_code_format");
  if (r.effective_date && r.termination_date && r.termination_date < r.effective_date) {
    throw invalid(["body", "termination_date"], "Must be on or after effective_date", "value_error", "invalid_date_range");
  }
}

function* assertCodeFree(db: TenantDb, code: string, selfId?: string): Work<void> {
  const conds: SQL[] = [eq(procedureCodes.code, code), isNull(procedureCodes.deleted_at)];
  if (selfId) conds.push(ne(procedureCodes.id, selfId));
  const clash = yield* get(
    db
      .select({ id: procedureCodes.id })
      .from(procedureCodes)
      .where(and(...conds))
      .limit(1),
  );
  if (clash) throw new Conflict("Another procedure code already uses this code", "duplicate");
}

/** API fields -> columns; only the fields present in the request. */
function toColumns(input: Omit<ProcedureCodePatch, "base_version">): Partial<ProcedureCodeRow> {
  const { default_fee, ...rest } = input;
  const out: Partial<ProcedureCodeRow> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (default_fee !== undefined) out.default_fee_cents = centsFromNumber(default_fee);
  return out;
}

export async function listProcedureCodes(ctx: OrgContext, q: ProcedureCodeListQuery) {
  const page = await ctx.db.read((db) =>
    procedureCodeRecords.list(db, q, {
      where: [
        q.status ? eq(procedureCodes.status, q.status) : undefined,
        q.category ? eq(procedureCodes.category, q.category) : undefined,
        q.code_type ? eq(procedureCodes.code_type, q.code_type) : undefined,
        q.search
          ? or(startsWithText(procedureCodes.code, q.search), anyContains([procedureCodes.short_name, procedureCodes.description], q.search))
          : undefined,
      ],
      // with a search, the best readings first: the code itself, then the short name, then the description
      orderBy: q.search
        ? [
            sql`CASE WHEN ${startsWithText(procedureCodes.code, q.search)} THEN 0 WHEN ${containsText(procedureCodes.short_name, q.search)} THEN 1 ELSE 2 END`,
            procedureCodes.code,
            procedureCodes.id,
          ]
        : [procedureCodes.code, procedureCodes.id],
    }),
  );
  return { ...page, items: page.items.map(serializeProcedureCode) };
}

export function getProcedureCode(ctx: OrgContext, id: string) {
  return procedureCodeRecords.read(ctx.db, id);
}

export async function createProcedureCode(ctx: OrgContext, input: ProcedureCodeCreate) {
  const codeType = input.code_type ?? inferCodeType(input.code);
  const category: ProcedureCategory = input.category ?? "other";
  const values: Partial<ProcedureCodeRow> = {
    description: input.short_name,
    category,
    code_type: codeType,
    service_type: SERVICE_TYPE_OF[category],
    default_billing_order: codeType === "cpt" || codeType === "hcpcs" ? "M" : "D",
    treatment_area: "mouth",
    ...toColumns(input),
  };
  checkRecord(values as ProcedureCodeRow);
  return serializeProcedureCode(
    await withTransaction(ctx, function* (s) {
      yield* assertCodeFree(s.tx, values.code!);
      return yield* procedureCodeRecords.create(s, values, { code: values.code });
    }),
  );
}

export async function updateProcedureCode(ctx: OrgContext, id: string, input: ProcedureCodePatch) {
  const { base_version, ...patch } = input;
  const columns = toColumns(patch);
  return serializeProcedureCode(
    await withTransaction(ctx, function* (s) {
      // a stale write is refused before any rule is judged against data the client has not seen
      const current = yield* procedureCodeRecords.requireCurrent(s.tx, id, base_version);
      checkRecord({ ...current, ...columns });
      if (columns.code !== undefined && columns.code !== current.code) yield* assertCodeFree(s.tx, columns.code, id);
      return yield* procedureCodeRecords.update(s, id, base_version, columns);
    }),
  );
}

export async function archiveProcedureCode(ctx: OrgContext, id: string) {
  return serializeProcedureCode(await withTransaction(ctx, (s) => procedureCodeRecords.archive(s, id)));
}
