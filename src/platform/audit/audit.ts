import { auditEntries } from "@db/tenant/audit";
import { auditIndex } from "@db/control/schema";
import type { ControlDb } from "@/platform/db/control";
import { run, type Work } from "@/platform/db/work";
import { insertRow } from "@/platform/db/prepared-writes";
import { newId } from "@/platform/ids";
import type { Caller } from "@/platform/auth/actor";
import type { TxScope } from "@/platform/records/context";
import type { AuditIndexEntry, AuditInput } from "./entry";

export type { AuditInput };

const actorType = (t: string) => (t === "user" ? "user" : t === "api_key" ? "api_key" : "system");

/** The fields an entry shares with its platform index row (everything but the snapshots). */
export function auditEntryOf(caller: Caller, now: string, input: AuditInput): AuditIndexEntry {
  return {
    id: newId(),
    actor_id: caller.actor.id,
    actor_type: actorType(caller.actor.type),
    actor_display_name: caller.actor.display_name,
    action: input.action,
    resource_type: input.resource_type,
    resource_id: input.resource_id,
    request_id: caller.requestId,
    ip_address: caller.ip,
    created_at: now,
  };
}

/**
 * Record a write in the org's own audit trail, inside the same transaction as
 * the write itself; the platform index row (no before/after) goes to the
 * control database after commit (platform/audit/index-writer.ts), until then
 * the entry is marked index_pending.
 */
export function* audit(scope: TxScope, input: AuditInput): Work<void> {
  const entry = auditEntryOf(scope, scope.now, input);
  yield* insertRow(scope.tx, auditEntries, { ...entry, before: input.before, after: input.after, index_pending: 1 });
  scope.after.audit.push(entry);
}

/**
 * Record a platform-level write (no org: shards, platform admins and groups,
 * partners, accounts) in the audit index of the control database, inside that
 * write's own transaction. No snapshots: the index holds none.
 */
export function* platformAudit(tx: ControlDb, caller: Caller, now: string, input: Omit<AuditInput, "before" | "after">): Work<void> {
  const entry = auditEntryOf(caller, now, { ...input, before: null, after: null });
  yield* run(tx.insert(auditIndex).values({ ...entry, org_id: null, org_name: null }));
}
