import { and, count, desc, eq } from "drizzle-orm";
import { auditEntries } from "@db/tenant/audit";
import { appointmentTypes } from "@db/tenant/appointments";
import { flowStatuses } from "@db/tenant/schedule-config";
import type { OrgContext } from "@/platform/records/context";
import { pageFrom } from "@/platform/records/paging";
import { LOCATION_NAMES, OPERATORY_NAMES, PATIENT_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { nameSource, namesOfEach } from "@/platform/records/refs";
import { appointmentRecords } from "./records";
import type { AppointmentHistoryEntry, AppointmentHistoryQuery } from "./schemas";

// An appointment's history, read from the audit trail (audit_entries of
// resource_type "appointment"): never a second store. Each entry's changes are
// the fields whose values differ between its before and after snapshots
// (docs/scheduling/front-desk-lists.md, "Appointment history").

type Snapshot = Record<string, unknown> | null;

/** Bookkeeping that every write moves: not a change a front desk reads. */
const SKIPPED = new Set(["id", "version", "created_at", "updated_at", "start_utc", "end_utc"]);
/** An edit that moves one of these is a reschedule. */
const SLOT_FIELDS = ["scheduled_start", "scheduled_end", "provider_uuid", "operatory_uuid"];

const FLOW_STATUS_NAMES = nameSource(flowStatuses.id, { name: flowStatuses.name }, (r) => r.name);
const TYPE_NAMES = nameSource(appointmentTypes.id, { name: appointmentTypes.name }, (r) => r.name);
const NAMED = {
  patient_uuid: "patients",
  provider_uuid: "providers",
  operatory_uuid: "operatories",
  location_uuid: "locations",
  appointment_type_uuid: "types",
  flow_status_uuid: "flows",
} as const;
type NamedField = keyof typeof NAMED;

const ACTOR_TYPES = new Set(["user", "system", "api_key"]);

/** The fields of `after` (and `before`) whose values differ; a creation lists every field it set. */
function diff(before: Snapshot, after: Snapshot) {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const out: { field: string; from: unknown; to: unknown }[] = [];
  for (const field of keys) {
    if (SKIPPED.has(field)) continue;
    const from = before?.[field] ?? null;
    const to = after?.[field] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) out.push({ field, from, to });
  }
  return out;
}

/** What kind of change an entry is: the action's verb, with PATCHes that move the slot called reschedules. */
function kindOf(action: string, changes: { field: string }[]): string {
  const verb = action.startsWith("appointment.") ? action.slice("appointment.".length) : action;
  if (verb === "updated" && changes.some((c) => SLOT_FIELDS.includes(c.field))) return "rescheduled";
  return verb;
}

export async function appointmentHistory(ctx: OrgContext, id: string, q: AppointmentHistoryQuery) {
  return ctx.db.read(function* (db) {
    // 404 for an unknown, archived or other org's appointment (its trail stays in the database)
    yield* appointmentRecords.require(db, id);
    const mine = and(eq(auditEntries.resource_type, appointmentRecords.name), eq(auditEntries.resource_id, id));
    const page = yield* pageFrom(
      q,
      db.select({ n: count() }).from(auditEntries).where(mine),
      db.select().from(auditEntries).where(mine).orderBy(desc(auditEntries.created_at), desc(auditEntries.id)),
    );
    const entries = page.items.map((e) => {
      const changes = diff(e.before, e.after);
      return { e, changes, kind: kindOf(e.action, changes) };
    });
    // names of the records the changed references point to, one query per kind
    const ids: Record<(typeof NAMED)[NamedField], string[]> = { patients: [], providers: [], operatories: [], locations: [], types: [], flows: [] };
    for (const { changes } of entries) {
      for (const c of changes) {
        const kind = NAMED[c.field as NamedField];
        if (!kind) continue;
        for (const v of [c.from, c.to]) if (typeof v === "string") ids[kind].push(v);
      }
    }
    const names = yield* namesOfEach(db, {
      patients: [PATIENT_NAMES, ids.patients],
      providers: [PROVIDER_NAMES, ids.providers],
      operatories: [OPERATORY_NAMES, ids.operatories],
      locations: [LOCATION_NAMES, ids.locations],
      types: [TYPE_NAMES, ids.types],
      flows: [FLOW_STATUS_NAMES, ids.flows],
    });
    const nameOf = (field: string, v: unknown) => {
      const kind = NAMED[field as NamedField];
      return kind && typeof v === "string" ? (names[kind].get(v) ?? null) : null;
    };
    const items: AppointmentHistoryEntry[] = entries.map(({ e, changes, kind }) => ({
      id: e.id,
      kind,
      action: e.action,
      occurred_at: e.created_at,
      actor: {
        id: e.actor_id,
        type: (ACTOR_TYPES.has(e.actor_type) ? e.actor_type : "system") as AppointmentHistoryEntry["actor"]["type"],
        display_name: e.actor_display_name,
      },
      changes: changes.map((c) => ({ ...c, from_name: nameOf(c.field, c.from), to_name: nameOf(c.field, c.to) })),
    }));
    return { ...page, items };
  });
}
