import { auditEntries } from "@db/tenant/schema";
import { run, type Work } from "@/platform/db/work";
import { newId } from "@/platform/ids";
import type { TxScope } from "@/platform/records/context";

export type AuditInput = {
  action: string;
  resource_type: string;
  resource_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
};

const actorType = (t: string) => (t === "user" ? "user" : t === "api_key" ? "api_key" : "system");

/**
 * Record a write in the org's own audit trail, inside the same transaction as
 * the write itself; the platform index row (no before/after) goes to the
 * control database after commit.
 */
export function* audit(scope: TxScope, input: AuditInput): Work<void> {
  const entry = {
    id: newId(),
    actor_id: scope.actor.id,
    actor_type: actorType(scope.actor.type),
    actor_display_name: scope.actor.display_name,
    action: input.action,
    resource_type: input.resource_type,
    resource_id: input.resource_id,
    request_id: scope.requestId,
    ip_address: scope.ip,
    created_at: scope.now,
  };
  yield* run(scope.tx.insert(auditEntries).values({ ...entry, before: input.before, after: input.after }));
  scope.after.audit.push(entry);
}
