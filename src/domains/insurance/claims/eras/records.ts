import { asc, eq, inArray } from "drizzle-orm";
import { claims, eraClaims, eras } from "@db/tenant/claims";
import { all, type Work } from "@/platform/db/work";
import { declareUniqueConflict } from "@/platform/db/constraints";
import { formatCents } from "@/platform/money";
import type { TenantDb } from "@/platform/records/context";
import { idsOf, namesOfEach, ref } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { CARRIER_NAMES } from "@/domains/insurance/carriers/service";
import type { EraClaim835 } from "@/domains/insurance/claims/x12/types";
import type { Era, EraSummary } from "./schemas";

// The ERA record and how it is answered (docs/insurance/claims.md, "ERAs").

export type EraRow = typeof eras.$inferSelect;
export type EraClaimRow = typeof eraClaims.$inferSelect;

const auditForm = (r: EraRow) => ({
  id: r.id,
  status: r.status,
  file_size: r.file_size,
  trace_number: r.trace_number,
  payer_key: r.payer_key,
  carrier_id: r.carrier_id,
  payment_date: r.payment_date,
  total_paid_cents: r.total_paid_cents,
  claim_payment_id: r.claim_payment_id,
  error: r.error,
  posted_at: r.posted_at,
  version: r.version,
});

export const eraRecords = defineResource<EraRow, ReturnType<typeof auditForm>>({
  table: eras,
  name: "era",
  label: "ERA",
  serialize: auditForm,
  eventFields: { stripIdSuffix: true },
  // an ERA is received when it is made: clients listen for era.received
  eventAliases: { created: ["received"] },
});

export const DUPLICATE_ERA = "This payer's ERA with this trace number was imported already";
// eras_trace_uq backs the upload's own check when two uploads race past it
declareUniqueConflict("eras.payer_key, eras.trace_number", DUPLICATE_ERA, "duplicate_era");

const money = (c: number) => formatCents(c)!;

export function* claimsOfEras(db: TenantDb, eraIds: string[]): Work<EraClaimRow[]> {
  if (!eraIds.length) return [];
  return yield* all<EraClaimRow>(db.select().from(eraClaims).where(inArray(eraClaims.era_id, eraIds)).orderBy(asc(eraClaims.era_id), asc(eraClaims.clp_index)));
}

/** Paid 0 with the carrier's reasons (or CLP02 4). */
export const isDenied = (c: EraClaimRow) => {
  const clp = c.clp as EraClaim835;
  return clp.paid_cents === 0 && (clp.status_code === "4" || [...clp.adjustments, ...clp.services.flatMap((s) => s.adjustments)].length > 0);
};

function countsOf(list: EraClaimRow[]) {
  return {
    claims: list.length,
    matched: list.filter((c) => c.claim_id).length,
    posted: list.filter((c) => c.status === "posted").length,
    unmatched: list.filter((c) => c.status === "unmatched").length,
    needs_review: list.filter((c) => c.status === "needs_review").length,
    denied: list.filter(isDenied).length,
  };
}

/** ERAs as the API answers them; `withClaims` adds every CLP with its match, problems and lines (eraOf). */
export function* serializeEras(db: TenantDb, rows: EraRow[], withClaims: boolean): Work<(Era | EraSummary)[]> {
  const list = yield* claimsOfEras(
    db,
    rows.map((r) => r.id),
  );
  const claimIds = idsOf(list, (c) => c.claim_id);
  const numbers = claimIds.length
    ? new Map(
        (yield* all<{ id: string; n: string }>(db.select({ id: claims.id, n: claims.claim_number }).from(claims).where(inArray(claims.id, claimIds)))).map(
          (c) => [c.id, c.n],
        ),
      )
    : new Map<string, string>();
  const n = yield* namesOfEach(db, { carriers: [CARRIER_NAMES, idsOf(rows, (r) => r.carrier_id)] });
  return rows.map((r) => {
    const mine = list.filter((c) => c.era_id === r.id);
    const base = {
      id: r.id,
      version: r.version,
      created_at: r.created_at,
      updated_at: r.updated_at,
      status: r.status as Era["status"],
      file_name: r.file_name,
      file_size: r.file_size,
      trace_number: r.trace_number,
      payer_name: r.payer_name,
      payer_id: r.payer_key,
      carrier: ref(r.carrier_id, n.carriers),
      payment_date: r.payment_date,
      payment_type: r.payment_type,
      total_paid: formatCents(r.total_paid_cents),
      claim_payment_uuid: r.claim_payment_id,
      provider_adjustments: (r.provider_adjustments ?? []).map((a) => ({ reason: a.reason, reference: a.reference, amount: money(a.amount_cents) })),
      problems: r.problems,
      error: r.error,
      posted_at: r.posted_at,
      counts: countsOf(mine),
    };
    if (!withClaims) return base;
    return {
      ...base,
      claims: mine.map((c) => {
        const clp = c.clp as EraClaim835;
        return {
          clp_index: c.clp_index,
          claim_number: c.claim_number,
          claim: c.claim_id ? { uuid: c.claim_id, name: numbers.get(c.claim_id) ?? null } : null,
          match_method: c.match_method as Era["claims"][number]["match_method"],
          status: c.status as Era["claims"][number]["status"],
          status_code: c.status_code,
          denied: isDenied(c),
          billed: money(c.billed_cents),
          paid: money(c.paid_cents),
          patient_responsibility: money(c.patient_responsibility_cents),
          patient_name: c.patient_name,
          date_service: c.date_service,
          problems: c.problems,
          posted_at: c.posted_at,
          services: clp.services.map((s) => ({
            procedure_code: s.procedure_code,
            billed: money(s.billed_cents),
            paid: money(s.paid_cents),
            allowed: formatCents(s.allowed_cents),
            adjustments: s.adjustments.map((a) => ({ group: a.group, reason: a.reason, amount: money(a.amount_cents) })),
            remark_codes: s.remark_codes,
            line_control: s.line_control,
          })),
        };
      }),
    };
  });
}

export const eraClaimsOf = (db: TenantDb, eraId: string) =>
  all<EraClaimRow>(db.select().from(eraClaims).where(eq(eraClaims.era_id, eraId)).orderBy(asc(eraClaims.clp_index)));

/** One ERA with its claims. */
export function* eraOf(db: TenantDb, row: EraRow): Work<Era> {
  return (yield* serializeEras(db, [row], true))[0] as Era;
}
