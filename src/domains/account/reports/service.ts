import { and, asc, eq, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import { ledgerEntries } from "@db/tenant/ledger";
import { patients } from "@db/tenant/patients";
import { all, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import { formatCents } from "@/platform/money";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { LOCATION_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { namesOf, ref, type Names } from "@/platform/records/refs";
import { addDays, epochDay } from "@/platform/time/dates";
import { csvCell } from "@/platform/http/csv";
import { serializeEntries, type EntryRow } from "@/domains/account/ledger/service";
import type { EntryType } from "@/domains/account/ledger/aging";
import {
  FIGURES,
  MAX_REPORT_DAYS,
  type Daysheet,
  type DaysheetQuery,
  type Figure,
  type GroupBy,
  type ProductionCollections,
  type ProductionCollectionsQuery,
  type ProductionCollectionsRow,
} from "./schemas";

// Production and collections (docs/account/reports.md): sums over the ledger's
// entries, the same rows the account reads, never a second copy. Each entry
// counts on its own entry_date, so a void or refund lowers the day it was
// made and a past day's figures never change.

const L = ledgerEntries;

/** 422 invalid_date_range unless date_from <= date_to and the range spans at most MAX_REPORT_DAYS days (both ends counted). */
export function checkReportRange(from: string, to: string): void {
  if (to < from) throw invalid(["query", "date_to"], "Must not be before date_from", "value_error", "invalid_date_range");
  if (epochDay(to) - epochDay(from) + 1 > MAX_REPORT_DAYS)
    throw invalid(["query", "date_to"], `At most ${MAX_REPORT_DAYS} days from date_from, both counted`, "value_error", "invalid_date_range");
}

const sumWhen = (when: SQL) => sql<number>`coalesce(sum(CASE WHEN ${when} THEN ${L.amount_cents} ELSE 0 END), 0)`;

/** What each figure sums (the definitions of docs/account/reports.md); the derived ones are added up from these. */
const SUMS = {
  gross_production: sumWhen(sql`${L.entry_type} = 'charge' AND ${L.source} = 'procedure'`),
  adjustments: sumWhen(sql`${L.entry_type} = 'adjustment' AND ${L.source} <> 'payment_plan'`),
  non_production: sumWhen(
    sql`(${L.entry_type} = 'charge' AND ${L.source} <> 'procedure') OR (${L.entry_type} = 'adjustment' AND ${L.source} = 'payment_plan')`,
  ),
  patient_collections: sumWhen(sql`${L.entry_type} = 'payment' AND ${L.payer} = 'patient'`),
  insurance_collections: sumWhen(sql`${L.entry_type} = 'payment' AND ${L.payer} = 'insurance'`),
};
type Sums = { [K in keyof typeof SUMS]: number };
type Cents = Record<Figure, number>;

const ZERO: Sums = { gross_production: 0, adjustments: 0, non_production: 0, patient_collections: 0, insurance_collections: 0 };

const figuresOf = (s: Sums): Cents => ({
  ...s,
  net_production: s.gross_production + s.adjustments,
  net_collections: s.patient_collections + s.insurance_collections,
});

const money = (c: Cents) => Object.fromEntries(FIGURES.map((f) => [f, formatCents(c[f])!])) as Record<Figure, string>;

const GROUP_COLUMN = { day: L.entry_date, provider: L.provider_id, location: L.location_id } as const;

/** GET {P}/reports/production-collections: the figures per group over the range, and their totals. */
export async function productionCollections(ctx: OrgContext, q: ProductionCollectionsQuery): Promise<ProductionCollections> {
  checkReportRange(q.date_from, q.date_to);
  return ctx.db.read(function* (db) {
    const column = GROUP_COLUMN[q.group_by];
    const sums = yield* all<Sums & { key: string | null }>(
      db
        .select({ key: column, ...SUMS })
        .from(L)
        .where(and(gte(L.entry_date, q.date_from), lte(L.entry_date, q.date_to)))
        .groupBy(column),
    );
    const rows = yield* groupRows(db, q, sums);
    const total = { ...ZERO };
    for (const s of sums) for (const k of Object.keys(ZERO) as (keyof Sums)[]) total[k] += s[k];
    return { date_from: q.date_from, date_to: q.date_to, group_by: q.group_by, rows, totals: money(figuresOf(total)) };
  });
}

/** The rows in report order: every date of the range for `day`; otherwise the groups with entries by name, `none` last. */
function* groupRows(db: TenantDb, q: ProductionCollectionsQuery, sums: (Sums & { key: string | null })[]): Work<ProductionCollectionsRow[]> {
  const byKey = new Map(sums.map((s) => [s.key, s]));
  if (q.group_by === "day") {
    const out: ProductionCollectionsRow[] = [];
    for (let d = q.date_from; d <= q.date_to; d = addDays(d, 1)) out.push({ key: d, date: d, ...money(figuresOf(byKey.get(d) ?? ZERO)) });
    return out;
  }
  const field = q.group_by;
  const ids = sums.flatMap((s) => (s.key ? [s.key] : []));
  const names: Names = yield* namesOf(db, field === "provider" ? PROVIDER_NAMES : LOCATION_NAMES, ids);
  const named = ids
    .map((id) => ({ id, name: names.get(id) ?? null }))
    .sort((a, b) => (a.name ?? "").localeCompare(b.name ?? "") || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const out: ProductionCollectionsRow[] = named.map(({ id }) => ({ key: id, [field]: ref(id, names), ...money(figuresOf(byKey.get(id)!)) }));
  const none = byKey.get(null);
  if (none) out.push({ key: "none", [field]: null, ...money(figuresOf(none)) });
  return out;
}

/** The report as CSV (RFC 4180): a header row, one row per group, a total row; money as plain decimals. */
export function productionCollectionsCsv(report: ProductionCollections): string {
  const by: GroupBy = report.group_by;
  const head = by === "day" ? ["date"] : [`${by}_uuid`, by];
  const line = (cells: string[]) => `${cells.join(",")}\r\n`; // money cells are plain decimals (a leading minus is no formula here)
  const groupCells = (r: ProductionCollectionsRow) => {
    if (by === "day") return [r.key];
    const named = r[by];
    return [r.key, csvCell(named?.name ?? "")];
  };
  let out = line([...head, ...FIGURES]);
  for (const r of report.rows) out += line([...groupCells(r), ...FIGURES.map((f) => r[f])]);
  out += line([...(by === "day" ? ["total"] : ["total", ""]), ...FIGURES.map((f) => report.totals[f])]);
  return out;
}

/** Dollars of entries (cents summed), by entry kind. */
function kindTotals(rows: EntryRow[]): Daysheet["totals"] {
  const cents: Record<EntryType, number> = { charge: 0, payment: 0, adjustment: 0 };
  for (const r of rows) cents[r.entry_type as EntryType] += r.amount_cents;
  return { entries: rows.length, charges: formatCents(cents.charge)!, payments: formatCents(cents.payment)!, adjustments: formatCents(cents.adjustment)! };
}

/** GET {P}/reports/daysheet: the day's entries by provider (by name, then those without one), with totals by kind. */
export async function daysheet(ctx: OrgContext, q: DaysheetQuery): Promise<Daysheet> {
  return ctx.db.read(function* (db) {
    const rows = yield* all<EntryRow>(db.select().from(L).where(eq(L.entry_date, q.date)).orderBy(asc(L.id)));
    const patientIds = [...new Set(rows.map((r) => r.patient_id))];
    const people = patientIds.length
      ? yield* all<{ id: string; first_name: string; last_name: string }>(
          db.select({ id: patients.id, first_name: patients.first_name, last_name: patients.last_name }).from(patients).where(inArray(patients.id, patientIds)),
        )
      : [];
    const entries = yield* serializeEntries(db, rows, new Map(people.map((p) => [p.id, p])));
    const groups = new Map<string | null, { rows: EntryRow[]; entries: typeof entries }>();
    rows.forEach((r, i) => {
      const g = groups.get(r.provider_id) ?? { rows: [], entries: [] };
      g.rows.push(r);
      g.entries.push(entries[i]!);
      groups.set(r.provider_id, g);
    });
    const providers = [...groups.entries()]
      .map(([id, g]) => ({ provider: g.entries[0]!.provider, entries: g.entries, totals: kindTotals(g.rows), id }))
      .sort((a, b) => {
        if (!a.id || !b.id) return a.id ? -1 : b.id ? 1 : 0;
        return (a.provider?.name ?? "").localeCompare(b.provider?.name ?? "") || (a.id < b.id ? -1 : 1);
      })
      .map(({ id: _id, ...g }) => g);
    return { date: q.date, providers, totals: kindTotals(rows) };
  });
}
