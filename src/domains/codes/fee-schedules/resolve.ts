import { and, eq, isNull, or, sql } from "drizzle-orm";
import { feeSchedules, fees } from "@db/tenant/fee-schedules";
import { procedureCodes } from "@db/tenant/codes";
import { locations, providers } from "@db/tenant/practice";
import { inJsonList } from "@/platform/db/in-list";
import { allPrepared, getPrepared, prepared, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";

// Which fee a procedure is charged (docs/codes/fee-schedules.md, "Fee
// resolution"), and what a schedule says for some codes (insurance estimates
// read a plan's allowed amounts through it). Units of work: they run inside
// the caller's read or write.

export type FeeResolution = {
  /** The fee in cents. */
  office_fee_cents: number;
  /** The schedule that gave it; null: the procedure code's default fee. */
  fee_schedule_id: string | null;
};

export type FeeQuestion = {
  /** The patient's own schedule (the caller holds the patient's row). */
  patient_fee_schedule_id: string | null;
  provider_id: string | null;
  /** Where the work is done: its own fee there beats the schedule-wide one. */
  location_id: string | null;
  procedure_code_id: string;
};

const S = feeSchedules;
const F = fees;

// Read on every charting: prepared once per connection.
const providerSchedule = prepared<{ id: string | null }>((db) =>
  db
    .select({ id: providers.fee_schedule_id })
    .from(providers)
    .where(eq(providers.id, sql.placeholder("id")))
    .prepare(),
);
const locationSchedule = prepared<{ id: string | null }>((db) =>
  db
    .select({ id: locations.fee_schedule_id })
    .from(locations)
    .where(eq(locations.id, sql.placeholder("id")))
    .prepare(),
);
const defaultSchedule = prepared<{ id: string }>((db) =>
  db
    .select({ id: S.id })
    .from(S)
    .where(and(eq(S.is_default, true), eq(S.schedule_type, "office"), isNull(S.deleted_at)))
    .prepare(),
);
const codeDefaultFee = prepared<{ cents: number }>((db) =>
  db
    .select({ cents: procedureCodes.default_fee_cents })
    .from(procedureCodes)
    .where(eq(procedureCodes.id, sql.placeholder("id")))
    .prepare(),
);
/** The live fees of live schedules (a JSON array of ids) for the codes (a JSON array), schedule-wide or at the location. */
const scheduleFees = prepared<{ fee_schedule_id: string; procedure_code_id: string; location_id: string | null; amount_cents: number }>((db) =>
  db
    .select({ fee_schedule_id: F.fee_schedule_id, procedure_code_id: F.procedure_code_id, location_id: F.location_id, amount_cents: F.amount_cents })
    .from(F)
    .innerJoin(S, and(eq(S.id, F.fee_schedule_id), isNull(S.deleted_at)))
    .where(
      and(
        inJsonList(F.fee_schedule_id, "schedules"),
        inJsonList(F.procedure_code_id, "codes"),
        isNull(F.deleted_at),
        or(isNull(F.location_id), eq(F.location_id, sql.placeholder("location"))),
      ),
    )
    .prepare(),
);

const idOf = function* (db: TenantDb, def: typeof providerSchedule, id: string | null) {
  return id ? ((yield* getPrepared(db, def, { id }))?.id ?? null) : null;
};

/**
 * The fee of a schedule for each code, at a location: the location's own fee
 * where it has one, else the schedule-wide fee; codes without either are
 * absent. An archived schedule has none.
 */
export function* feesOnSchedule(db: TenantDb, scheduleId: string, codeIds: readonly string[], locationId: string | null): Work<Map<string, number>> {
  const found = yield* feesOnSchedules(db, [scheduleId], codeIds, locationId);
  return found.get(scheduleId) ?? new Map();
}

/** feesOnSchedule for several schedules at once, by schedule then code. */
function* feesOnSchedules(
  db: TenantDb,
  scheduleIds: readonly string[],
  codeIds: readonly string[],
  locationId: string | null,
): Work<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>();
  if (!scheduleIds.length || !codeIds.length) return out;
  const rows = yield* allPrepared(db, scheduleFees, {
    schedules: JSON.stringify([...new Set(scheduleIds)]),
    codes: JSON.stringify([...new Set(codeIds)]),
    // no location: only schedule-wide fees (`= NULL` is never true)
    location: locationId,
  });
  const local = new Set<string>();
  for (const r of rows) {
    const byCode = out.get(r.fee_schedule_id) ?? new Map<string, number>();
    out.set(r.fee_schedule_id, byCode);
    const key = `${r.fee_schedule_id}\u0000${r.procedure_code_id}`;
    if (r.location_id) {
      byCode.set(r.procedure_code_id, r.amount_cents);
      local.add(key);
    } else if (!local.has(key)) byCode.set(r.procedure_code_id, r.amount_cents);
  }
  return out;
}

/**
 * The office fee of a procedure: the first schedule in the chain (the
 * patient's, the provider's, the location's, the org's default office
 * schedule) that has a fee for the code, the location's own fee beating the
 * schedule-wide one; else the code's default fee. A schedule named but
 * archived, or without a fee for the code, is passed by.
 */
export function* resolveOfficeFee(db: TenantDb, q: FeeQuestion): Work<FeeResolution> {
  const chain = [
    q.patient_fee_schedule_id,
    yield* idOf(db, providerSchedule, q.provider_id),
    yield* idOf(db, locationSchedule, q.location_id),
    (yield* getPrepared(db, defaultSchedule, {}))?.id ?? null,
  ].filter((id): id is string => !!id);
  if (chain.length) {
    const found = yield* feesOnSchedules(db, chain, [q.procedure_code_id], q.location_id);
    for (const scheduleId of chain) {
      const cents = found.get(scheduleId)?.get(q.procedure_code_id);
      if (cents !== undefined) return { office_fee_cents: cents, fee_schedule_id: scheduleId };
    }
  }
  const code = yield* getPrepared(db, codeDefaultFee, { id: q.procedure_code_id });
  return { office_fee_cents: code?.cents ?? 0, fee_schedule_id: null };
}

// ---- allowed amounts (insurance estimates) -------------------------------------------------

const liveSchedule = prepared<{ id: string; name: string; schedule_type: string }>((db) =>
  db
    .select({ id: S.id, name: S.name, schedule_type: S.schedule_type })
    .from(S)
    .where(and(eq(S.id, sql.placeholder("id")), isNull(S.deleted_at)))
    .prepare(),
);

/** The schedule when it is live and its fees are allowed amounts (ppo or allowed); else null. */
export function* allowedAmountSchedule(db: TenantDb, id: string | null | undefined): Work<{ id: string; name: string } | null> {
  if (!id) return null;
  const row = yield* getPrepared(db, liveSchedule, { id });
  return row && (row.schedule_type === "ppo" || row.schedule_type === "allowed") ? { id: row.id, name: row.name } : null;
}

/** Each line's fee on the schedule (its location's own fee first), undefined where it has none; one read per location named. */
export function* scheduleFeesForLines(
  db: TenantDb,
  scheduleId: string,
  lines: readonly { procedureCodeId: string | null; locationId?: string | null }[],
): Work<(number | undefined)[]> {
  const byLocation = new Map<string | null, string[]>();
  for (const l of lines) {
    if (!l.procedureCodeId) continue;
    const codes = byLocation.get(l.locationId ?? null) ?? [];
    codes.push(l.procedureCodeId);
    byLocation.set(l.locationId ?? null, codes);
  }
  const found = new Map<string | null, Map<string, number>>();
  for (const [locationId, codes] of byLocation) found.set(locationId, yield* feesOnSchedule(db, scheduleId, codes, locationId));
  return lines.map((l) => (l.procedureCodeId ? found.get(l.locationId ?? null)?.get(l.procedureCodeId) : undefined));
}
