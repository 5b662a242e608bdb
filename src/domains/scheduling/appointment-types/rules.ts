import { and, count, eq, isNull, or, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { appointmentRules, appointmentTypes } from "@db/tenant/appointments";
import { locations } from "@db/tenant/practice";
import { all, get, type Work } from "@/platform/db/work";
import { Conflict, NotFound } from "@/platform/errors";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { pageFrom } from "@/platform/records/paging";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { locationRecords } from "@/domains/providers/locations/service";
import { requireAppointmentType } from "./service";
import type { AppointmentRule, AppointmentRuleCreate, AppointmentRuleListQuery, AppointmentRulePatch } from "./schemas";

type RuleRow = typeof appointmentRules.$inferSelect;

/** The flat form kept in the audit trail (names can change; ids do not). */
const auditForm = (r: RuleRow) => ({
  id: r.id,
  appointment_type_a_uuid: r.appointment_type_a_id,
  appointment_type_b_uuid: r.appointment_type_b_id,
  location_uuid: r.location_id,
  allow_overlap: r.allow_overlap,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

const ruleRecords = defineResource<RuleRow, ReturnType<typeof auditForm>>({
  table: appointmentRules,
  name: "appointment_rule",
  label: "Appointment rule",
  serialize: auditForm,
  practiceId: (r) => r.location_id,
});

// A rule answers with the names of its types (archived types included) and location.
const typeA = alias(appointmentTypes, "type_a");
const typeB = alias(appointmentTypes, "type_b");
type Joined = { rule: RuleRow; a_name: string; b_name: string; location_name: string | null };

const selectRules = (db: TenantDb, where: SQL | undefined) =>
  db
    .select({ rule: appointmentRules, a_name: typeA.name, b_name: typeB.name, location_name: locations.name })
    .from(appointmentRules)
    .innerJoin(typeA, eq(typeA.id, appointmentRules.appointment_type_a_id))
    .innerJoin(typeB, eq(typeB.id, appointmentRules.appointment_type_b_id))
    .leftJoin(locations, eq(locations.id, appointmentRules.location_id))
    .where(where)
    .orderBy(appointmentRules.id);

const serializeRule = ({ rule: r, a_name, b_name, location_name }: Joined): AppointmentRule => ({
  id: r.id,
  appointment_type_a: { uuid: r.appointment_type_a_id, name: a_name },
  appointment_type_b: { uuid: r.appointment_type_b_id, name: b_name },
  location: r.location_id ? { uuid: r.location_id, name: location_name } : null,
  allow_overlap: r.allow_overlap,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

function* readRule(db: TenantDb, id: string): Work<AppointmentRule> {
  const [row] = yield* all<Joined>(selectRules(db, and(eq(appointmentRules.id, id), isNull(appointmentRules.deleted_at))));
  if (!row) throw new NotFound("Appointment rule");
  return serializeRule(row);
}

/**
 * Without location_uuid: the org-wide rules (location null); with it: that
 * location's rules only. appointment_type_uuid matches either side of the pair.
 */
export async function listAppointmentRules(ctx: OrgContext, q: AppointmentRuleListQuery) {
  const conds: (SQL | undefined)[] = [
    isNull(appointmentRules.deleted_at),
    q.location_uuid ? eq(appointmentRules.location_id, q.location_uuid) : isNull(appointmentRules.location_id),
  ];
  if (q.appointment_type_uuid) {
    const t = q.appointment_type_uuid;
    conds.push(or(eq(appointmentRules.appointment_type_a_id, t), eq(appointmentRules.appointment_type_b_id, t)));
  }
  const where = and(...conds);
  return ctx.db.read(function* (db) {
    const page = yield* pageFrom(q, db.select({ n: count() }).from(appointmentRules).where(where), selectRules(db, where));
    return { ...page, items: page.items.map(serializeRule) };
  });
}

export async function getAppointmentRule(ctx: OrgContext, id: string) {
  return ctx.db.read((db) => readRule(db, id));
}

/** 409 duplicate while a rule exists for the same unordered pair at the same location (or org-wide). */
function* assertPairFree(db: TenantDb, a: string, b: string, locationId: string | null): Work<void> {
  const taken = yield* get(
    db
      .select({ id: appointmentRules.id })
      .from(appointmentRules)
      .where(
        and(
          isNull(appointmentRules.deleted_at),
          or(
            and(eq(appointmentRules.appointment_type_a_id, a), eq(appointmentRules.appointment_type_b_id, b)),
            and(eq(appointmentRules.appointment_type_a_id, b), eq(appointmentRules.appointment_type_b_id, a)),
          ),
          locationId ? eq(appointmentRules.location_id, locationId) : isNull(appointmentRules.location_id),
        ),
      ),
  );
  if (taken) throw new Conflict("A rule for these two appointment types already exists at this location", "duplicate");
}

export async function createAppointmentRule(ctx: OrgContext, input: AppointmentRuleCreate) {
  return withTransaction(ctx, function* (s) {
    const a = yield* requireAppointmentType(s.tx, input.appointment_type_a_uuid);
    const b = yield* requireAppointmentType(s.tx, input.appointment_type_b_uuid);
    const location = input.location_uuid ? yield* locationRecords.require(s.tx, input.location_uuid) : null;
    yield* assertPairFree(s.tx, a.id, b.id, location?.id ?? null);
    const row = yield* ruleRecords.create(
      s,
      {
        appointment_type_a_id: a.id,
        appointment_type_b_id: b.id,
        location_id: location?.id ?? null,
        allow_overlap: input.allow_overlap,
      },
      { appointment_type_a_id: a.id, appointment_type_b_id: b.id, allow_overlap: input.allow_overlap },
    );
    return serializeRule({ rule: row, a_name: a.name, b_name: b.name, location_name: location?.name ?? null });
  });
}

/** Only allow_overlap changes; the pair and the location are immutable (schema: 422 read_only). */
export async function updateAppointmentRule(ctx: OrgContext, id: string, input: AppointmentRulePatch) {
  return withTransaction(ctx, function* (s) {
    yield* ruleRecords.update(s, id, input.base_version, { allow_overlap: input.allow_overlap });
    return yield* readRule(s.tx, id);
  });
}

/** Soft delete (deleted_at); the pair may then get a new rule. */
export async function deleteAppointmentRule(ctx: OrgContext, id: string, baseVersion: number) {
  await withTransaction(ctx, (s) => ruleRecords.archive(s, id, baseVersion, "deleted"));
}
