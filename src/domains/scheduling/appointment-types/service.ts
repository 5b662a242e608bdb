import { and, eq, isNull, ne, or, sql } from "drizzle-orm";
import { appointmentRules, appointmentTypes } from "@db/tenant/appointments";
import { allPrepared, get, prepared, type Work } from "@/platform/db/work";
import { Conflict } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import type { AppointmentType, AppointmentTypeCreate, AppointmentTypeListQuery, AppointmentTypePatch } from "./schemas";

export type AppointmentTypeRow = typeof appointmentTypes.$inferSelect;

export const serializeAppointmentType = (r: AppointmentTypeRow): AppointmentType => ({
  id: r.id,
  uuid: r.id,
  code: r.code,
  name: r.name,
  duration_minutes: r.duration_minutes,
  color: r.color,
  requires_exam: r.requires_exam,
  is_active: r.is_active,
  default_fee: formatCents(r.default_fee_cents),
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const appointmentTypeRecords = defineResource<AppointmentTypeRow, AppointmentType>({
  table: appointmentTypes,
  name: "appointment_type",
  label: "Appointment type",
  serialize: serializeAppointmentType,
  eventFields: { rename: { default_fee_cents: "default_fee" } },
});

/**
 * The appointment type with this id, for other domains (booking): 404
 * "Appointment type" when it does not exist or is archived. An inactive type
 * is returned; the caller decides whether inactive types may be booked.
 */
export function* requireAppointmentType(db: TenantDb, id: string): Work<AppointmentTypeRow> {
  return yield* appointmentTypeRecords.require(db, id.toLowerCase());
}

/** Request fields to columns: default_fee (dollars, null clears) is stored as default_fee_cents. */
function toRow<T extends { default_fee?: number | null }>({ default_fee, ...rest }: T): Omit<T, "default_fee"> & Partial<AppointmentTypeRow> {
  return default_fee === undefined ? rest : { ...rest, default_fee_cents: default_fee === null ? null : centsFromNumber(default_fee) };
}

// Every verb in this file: 409 duplicate while another type that is not archived has the code (ignoring case).
function* assertCodeFree(db: TenantDb, code: string, exceptId?: string): Work<void> {
  const taken = yield* get(
    db
      .select({ id: appointmentTypes.id })
      .from(appointmentTypes)
      .where(
        and(
          isNull(appointmentTypes.deleted_at),
          sql`lower(${appointmentTypes.code}) = lower(${code})`,
          exceptId ? ne(appointmentTypes.id, exceptId) : undefined,
        ),
      ),
  );
  if (taken) throw new Conflict("An appointment type with this code already exists", "duplicate");
}

// The booking pipeline lists the types before every booking: two statements prepared once (with and without is_active)
const typesList = (db: TenantDb, byActive: boolean) =>
  db
    .select()
    .from(appointmentTypes)
    .where(and(isNull(appointmentTypes.deleted_at), byActive ? eq(appointmentTypes.is_active, sql.placeholder("active")) : undefined))
    .orderBy(sql`${appointmentTypes.name} COLLATE NOCASE`, appointmentTypes.id)
    .prepare();
const allTypes = prepared<AppointmentTypeRow>((db) => typesList(db, false));
const typesByActive = prepared<AppointmentTypeRow>((db) => typesList(db, true));

/** Not paged (spec: items[], total): an org has a handful of types. Ordered by name, then id. */
export async function listAppointmentTypes(ctx: OrgContext, q: AppointmentTypeListQuery) {
  // archived types leave the list (CONTRACT); is_active filters the rest
  const rows = await ctx.db.read((db) =>
    q.is_active === undefined ? allPrepared(db, allTypes, {}) : allPrepared(db, typesByActive, { active: q.is_active ? 1 : 0 }),
  );
  return { items: rows.map(serializeAppointmentType), total: rows.length };
}

export function getAppointmentType(ctx: OrgContext, id: string) {
  return appointmentTypeRecords.read(ctx.db, id);
}

export async function createAppointmentType(ctx: OrgContext, input: AppointmentTypeCreate) {
  return serializeAppointmentType(
    await withTransaction(ctx, function* (s) {
      yield* assertCodeFree(s.tx, input.code);
      return yield* appointmentTypeRecords.create(s, toRow(input));
    }),
  );
}

export async function updateAppointmentType(ctx: OrgContext, id: string, input: AppointmentTypePatch) {
  const { base_version, ...patch } = input;
  return serializeAppointmentType(
    await withTransaction(ctx, function* (s) {
      // 404 and 409 version_conflict come before the duplicate check
      yield* appointmentTypeRecords.requireCurrent(s.tx, id, base_version);
      if (patch.code !== undefined) yield* assertCodeFree(s.tx, patch.code, id);
      return yield* appointmentTypeRecords.update(s, id, base_version, toRow(patch));
    }),
  );
}

/** Archive: sets deleted_at and is_active false; the code becomes free again. */
export async function archiveAppointmentType(ctx: OrgContext, id: string) {
  return serializeAppointmentType(
    await withTransaction(ctx, (s) => appointmentTypeRecords.update(s, id, undefined, { deleted_at: s.now, is_active: false }, { action: "archived" })),
  );
}

// ---------------------------------------------------------------- overlap rules for booking

// On the booking path: compiled once per connection.
const rulesForPair = prepared<{ location_id: string | null; allow_overlap: boolean }>((db) =>
  db
    .select({ location_id: appointmentRules.location_id, allow_overlap: appointmentRules.allow_overlap })
    .from(appointmentRules)
    .where(
      and(
        isNull(appointmentRules.deleted_at),
        or(
          and(eq(appointmentRules.appointment_type_a_id, sql.placeholder("a")), eq(appointmentRules.appointment_type_b_id, sql.placeholder("b"))),
          and(eq(appointmentRules.appointment_type_a_id, sql.placeholder("b")), eq(appointmentRules.appointment_type_b_id, sql.placeholder("a"))),
        ),
        or(eq(appointmentRules.location_id, sql.placeholder("loc")), isNull(appointmentRules.location_id)),
      ),
    )
    .prepare(),
);

/**
 * May an appointment of type `typeA` overlap one of type `typeB` at this
 * location? The rule for the unordered pair at the location decides; without
 * one, the org-wide rule (location null); without either, no.
 */
export function* overlapAllowed(db: TenantDb, typeA: string, typeB: string, locationId: string): Work<boolean> {
  const rows = yield* allPrepared(db, rulesForPair, { a: typeA, b: typeB, loc: locationId });
  const local = rows.filter((r) => r.location_id !== null);
  if (local.length) return local.every((r) => r.allow_overlap);
  const orgWide = rows.filter((r) => r.location_id === null);
  return orgWide.length > 0 && orgWide.every((r) => r.allow_overlap);
}
