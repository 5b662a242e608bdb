import { and, eq, inArray, isNull, ne, sql, type SQL } from "drizzle-orm";
import { feeSchedules, fees } from "@db/tenant/fee-schedules";
import { procedureCodes } from "@db/tenant/codes";
import { locations } from "@db/tenant/practice";
import { all, get, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound, ValidationFailed, type ValidationIssue } from "@/platform/errors";
import { centsFromNumber } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { announce } from "@/platform/records/moments";
import { containsText, startsWithText } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { checkVersion } from "@/platform/records/versions";
import { ALLOWED_AMOUNT_TYPES, allowedFeesChanged } from "./moments";
import { feeEventData, feeRecords, feeScheduleRecords, NAME_TAKEN, serializeFeeSchedule, serializeFees, type FeeRow, type FeeScheduleRow } from "./records";
import type { FeeListQuery, FeeScheduleArchiveQuery, FeeScheduleCreate, FeeScheduleListQuery, FeeSchedulePatch, FeesPut, FeesPutResult } from "./schemas";

// Fee schedules and their fees (docs/codes/fee-schedules.md). The copy is copy.ts;
// how a charted procedure's fee is found, resolve.ts.

const S = feeSchedules;
const F = fees;

// ---- rules --------------------------------------------------------------------------------

/** Names are unique among live schedules, ignoring case (the index itself compares exactly; it backs this up in a race). */
export function* assertNameFree(db: TenantDb, name: string, selfId?: string): Work<void> {
  const conds: SQL[] = [sql`lower(${S.name}) = lower(${name})`, isNull(S.deleted_at)];
  if (selfId) conds.push(ne(S.id, selfId));
  const clash = yield* get(
    db
      .select({ id: S.id })
      .from(S)
      .where(and(...conds))
      .limit(1),
  );
  if (clash) throw new Conflict(NAME_TAKEN, "duplicate");
}

/** Only an office schedule can be the org's default (judged on the schedule as it will be). */
function checkDefault(r: Pick<FeeScheduleRow, "schedule_type" | "is_default">, field: "is_default" | "schedule_type") {
  if (r.is_default && r.schedule_type !== "office") {
    throw invalid(["body", field], "Only an office fee schedule can be the default", "value_error", "default_not_office");
  }
}

/** Setting a default takes it from the previous one in the same write (at most one: the partial unique index). */
function* takeDefault(s: TxScope, selfId?: string): Work<void> {
  const previous = yield* get<FeeScheduleRow>(
    s.tx
      .select()
      .from(S)
      .where(and(eq(S.is_default, true), isNull(S.deleted_at), selfId ? ne(S.id, selfId) : undefined)),
  );
  if (previous) yield* feeScheduleRecords.update(s, previous.id, undefined, { is_default: false });
}

/** A schedule whose fees are being copied in takes no other fee writes until the copy ends (409). */
export function assertNotCopying(r: FeeScheduleRow): void {
  if (r.copy_status === "running") throw new Conflict("A copy into this fee schedule is running; wait until it is done", "copy_in_progress");
}

/** Insurance estimates read the fees of ppo and allowed schedules as allowed amounts: tell them (moments.ts). */
export function* announceAllowedFees(s: TxScope, ...rows: Pick<FeeScheduleRow, "id" | "schedule_type">[]): Work<void> {
  const seen = new Set<string>();
  for (const r of rows) {
    if (!ALLOWED_AMOUNT_TYPES.includes(r.schedule_type) || seen.has(r.id)) continue;
    seen.add(r.id);
    yield* announce(s, allowedFeesChanged, { fee_schedule_id: r.id, schedule_type: r.schedule_type });
  }
}

// ---- schedules ----------------------------------------------------------------------------

export async function listFeeSchedules(ctx: OrgContext, q: FeeScheduleListQuery) {
  const page = await ctx.db.read((db) =>
    feeScheduleRecords.list(db, q, {
      where: [
        q.search ? containsText(S.name, q.search) : undefined,
        q.schedule_type ? eq(S.schedule_type, q.schedule_type) : undefined,
        q.is_hidden === undefined ? undefined : eq(S.is_hidden, q.is_hidden),
      ],
      orderBy: [S.name, S.id],
    }),
  );
  return { ...page, items: page.items.map(serializeFeeSchedule) };
}

export function getFeeSchedule(ctx: OrgContext, id: string) {
  return feeScheduleRecords.read(ctx.db, id);
}

export async function createFeeSchedule(ctx: OrgContext, input: FeeScheduleCreate) {
  const values = { name: input.name, schedule_type: input.schedule_type, is_hidden: input.is_hidden ?? false, is_default: input.is_default ?? false };
  checkDefault(values, "is_default");
  return serializeFeeSchedule(
    await withTransaction(ctx, function* (s) {
      yield* assertNameFree(s.tx, values.name);
      if (values.is_default) yield* takeDefault(s);
      return yield* feeScheduleRecords.create(s, values, { schedule_type: values.schedule_type, is_default: values.is_default });
    }),
  );
}

export async function updateFeeSchedule(ctx: OrgContext, id: string, input: FeeSchedulePatch) {
  const { base_version, ...patch } = input;
  const columns = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<FeeScheduleRow>;
  return serializeFeeSchedule(
    await withTransaction(ctx, function* (s) {
      // a stale write is refused before any rule is judged against data the client has not seen
      const current = yield* feeScheduleRecords.requireCurrent(s.tx, id, base_version);
      checkDefault({ ...current, ...columns }, patch.is_default !== undefined ? "is_default" : "schedule_type");
      if (columns.name !== undefined && columns.name !== current.name) yield* assertNameFree(s.tx, columns.name, id);
      if (columns.is_default && !current.is_default) yield* takeDefault(s, id);
      const row = yield* feeScheduleRecords.update(s, id, base_version, columns);
      if (row.schedule_type !== current.schedule_type) yield* announceAllowedFees(s, current, row);
      return row;
    }),
  );
}

/** Soft delete: it leaves lists and answers 404; records naming it keep the reference, and fee resolution passes it by. */
export async function archiveFeeSchedule(ctx: OrgContext, id: string, q: FeeScheduleArchiveQuery) {
  return serializeFeeSchedule(
    await withTransaction(ctx, function* (s) {
      const current = yield* feeScheduleRecords.requireCurrent(s.tx, id, q.base_version);
      // the default flag and a running copy end with the schedule (the copy's job finds it archived and stops)
      const ending: Partial<FeeScheduleRow> = { deleted_at: s.now, is_default: false };
      if (current.copy_status === "running") Object.assign(ending, { copy_status: "failed", copy_error: "The fee schedule was archived during the copy" });
      const row = yield* feeScheduleRecords.update(s, id, current.version, ending, { action: "archived" });
      yield* announceAllowedFees(s, row);
      return row;
    }),
  );
}

// ---- fees ---------------------------------------------------------------------------------

/** The schedule of a fee path: live, else 404. */
const requireSchedule = (db: TenantDb, id: string) => feeScheduleRecords.require(db, id);

export async function listFees(ctx: OrgContext, scheduleId: string, q: FeeListQuery) {
  return ctx.db.read(function* (db) {
    yield* requireSchedule(db, scheduleId);
    if (q.location_uuid && !(yield* liveLocationIds(db, [q.location_uuid])).size) throw new NotFound("Location");
    const code = sql`(SELECT ${procedureCodes.code} FROM ${procedureCodes} WHERE ${procedureCodes.id} = ${F.procedure_code_id})`;
    const page = yield* feeRecords.list(db, q, {
      where: [
        eq(F.fee_schedule_id, scheduleId),
        q.location_uuid ? eq(F.location_id, q.location_uuid) : undefined,
        q.search
          ? inArray(F.procedure_code_id, db.select({ id: procedureCodes.id }).from(procedureCodes).where(startsWithText(procedureCodes.code, q.search)))
          : undefined,
      ],
      // by code, the schedule-wide fee before the locations' own
      orderBy: [code, sql`${F.location_id} IS NOT NULL`, F.location_id, F.id],
    });
    return { ...page, items: yield* serializeFees(db, page.items) };
  });
}

/** Which of these ids are live locations of this org (read from the table: codes stands below providers). */
function* liveLocationIds(db: TenantDb, ids: string[]): Work<Set<string>> {
  if (!ids.length) return new Set();
  const rows = yield* all<{ id: string }>(
    db
      .select({ id: locations.id })
      .from(locations)
      .where(and(inArray(locations.id, ids), isNull(locations.deleted_at))),
  );
  return new Set(rows.map((r) => r.id));
}

/** One fee a write wants: a code (and location) and its amount in cents. */
export type WantedFee = { procedure_code_id: string; location_id: string | null; amount_cents: number };
export type UpsertOutcome = { rows: FeeRow[]; created: number; updated: number; unchanged: number };

const keyOf = (codeId: string, locationId: string | null) => `${codeId}\u0000${locationId ?? ""}`;

/**
 * Write each wanted fee into the schedule: a new fee where the code (and
 * location) has none, a new version where its amount differs, nothing where it
 * is the same. One read of the schedule's live fees for those codes. The
 * wanted fees name each code and location once.
 */
export function* upsertFees(s: TxScope, scheduleId: string, wanted: readonly WantedFee[]): Work<UpsertOutcome> {
  const codeIds = [...new Set(wanted.map((w) => w.procedure_code_id))];
  const existing = codeIds.length
    ? yield* all<FeeRow>(
        s.tx
          .select()
          .from(F)
          .where(and(eq(F.fee_schedule_id, scheduleId), inArray(F.procedure_code_id, codeIds), isNull(F.deleted_at))),
      )
    : [];
  const held = new Map(existing.map((r) => [keyOf(r.procedure_code_id, r.location_id), r]));
  const out: UpsertOutcome = { rows: [], created: 0, updated: 0, unchanged: 0 };
  for (const w of wanted) {
    const row = held.get(keyOf(w.procedure_code_id, w.location_id));
    if (!row) {
      out.created++;
      const values = { fee_schedule_id: scheduleId, procedure_code_id: w.procedure_code_id, location_id: w.location_id, amount_cents: w.amount_cents };
      out.rows.push(yield* feeRecords.create(s, values, feeEventData(values)));
    } else if (row.amount_cents !== w.amount_cents) {
      out.updated++;
      out.rows.push(yield* feeRecords.update(s, row.id, row.version, { amount_cents: w.amount_cents }, { eventData: feeEventData(row) }));
    } else {
      out.unchanged++;
      out.rows.push(row);
    }
  }
  return out;
}

/**
 * The rows of a PUT that the schema cannot judge: each names a live procedure
 * code and, when it names one, a live location of this org, and no code and
 * location twice. Every bad row is named in one 422 (its index in `loc`).
 */
function* checkRows(db: TenantDb, rows: FeesPut["fees"]): Work<void> {
  const codeIds = [...new Set(rows.map((r) => r.procedure_code_uuid))];
  const locationIds = [...new Set(rows.flatMap((r) => (r.location_uuid ? [r.location_uuid] : [])))];
  const liveCodes = new Set(
    (yield* all<{ id: string }>(
      db
        .select({ id: procedureCodes.id })
        .from(procedureCodes)
        .where(and(inArray(procedureCodes.id, codeIds), isNull(procedureCodes.deleted_at))),
    )).map((r) => r.id),
  );
  const liveLocations = yield* liveLocationIds(db, locationIds);
  const issues: ValidationIssue[] = [];
  const first = new Map<string, number>();
  rows.forEach((r, i) => {
    const at = (field: string) => ["body", "fees", i, field];
    if (!liveCodes.has(r.procedure_code_uuid)) issues.push({ loc: at("procedure_code_uuid"), msg: "Procedure code not found", type: "not_found" });
    if (r.location_uuid && !liveLocations.has(r.location_uuid)) issues.push({ loc: at("location_uuid"), msg: "Location not found", type: "not_found" });
    const key = keyOf(r.procedure_code_uuid, r.location_uuid ?? null);
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, i);
    else issues.push({ loc: at("procedure_code_uuid"), msg: `Row ${earlier} already names this procedure code and location`, type: "duplicate" });
  });
  if (issues.length) throw new ValidationFailed(issues, "invalid_fee_rows");
}

/** Bulk upsert, all or nothing: every row is judged before any is written. */
export async function putFees(ctx: OrgContext, scheduleId: string, input: FeesPut): Promise<FeesPutResult> {
  return withTransaction(ctx, function* (s) {
    const schedule = yield* requireSchedule(s.tx, scheduleId);
    yield* checkRows(s.tx, input.fees);
    assertNotCopying(schedule);
    const outcome = yield* upsertFees(
      s,
      schedule.id,
      input.fees.map((r) => ({ procedure_code_id: r.procedure_code_uuid, location_id: r.location_uuid ?? null, amount_cents: centsFromNumber(r.amount) })),
    );
    if (outcome.created + outcome.updated) yield* announceAllowedFees(s, schedule);
    const { rows, ...counts } = outcome;
    return { fee_schedule_uuid: schedule.id, ...counts, items: yield* serializeFees(s.tx, rows) };
  });
}

/** Soft delete of one fee of the schedule (another schedule's fee is 404 here). */
export async function deleteFee(ctx: OrgContext, scheduleId: string, feeId: string, baseVersion: number): Promise<void> {
  await withTransaction(ctx, function* (s) {
    const schedule = yield* requireSchedule(s.tx, scheduleId);
    const fee = yield* feeRecords.find(s.tx, feeId);
    if (!fee || fee.fee_schedule_id !== schedule.id) throw new NotFound("Fee");
    checkVersion(fee, baseVersion);
    assertNotCopying(schedule);
    yield* feeRecords.update(s, fee.id, fee.version, { deleted_at: s.now }, { action: "deleted", eventData: feeEventData(fee), changedFields: false });
    yield* announceAllowedFees(s, schedule);
  });
}
