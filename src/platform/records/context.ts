import type { Actor } from "@/platform/auth/actor";
import type { OrgDatabase } from "@/platform/db/org-databases";
import type { Db } from "@/platform/db/database";
import type { TenantSchema } from "@db/tenant/schema";
import type { OrgRecord } from "@/platform/tenancy/access";
import type { Runtime } from "@/platform/runtime";
import type { PendingEvent } from "@/platform/events/envelope";
import type { Work } from "@/platform/db/work";
import type { EventContext } from "./events";

export type TenantDb = Db<TenantSchema>;

/**
 * What a verb gets instead of the HTTP request: the org's own database (already
 * narrowed to this org: another org's rows are not reachable from it), who acts,
 * and the request id that jobs and audit entries carry on.
 */
export type OrgContext = {
  runtime: Runtime;
  org: OrgRecord;
  db: OrgDatabase;
  actor: Actor;
  requestId: string | null;
  ip: string | null;
  /** The calling user's org permission keys (set by the guard; absent for system actors). */
  permissions?: ReadonlySet<string>;
};

/**
 * For the few verbs whose rule depends on a second key beyond the route's own
 * (e.g. personal vs shared records): system actors hold every key.
 */
export const holdsPermission = (ctx: OrgContext, key: string): boolean => ctx.actor.type !== "user" || !!ctx.permissions?.has(key);

export type AuditIndexEntry = {
  id: string; actor_id: string; actor_type: string; actor_display_name: string | null;
  action: string; resource_type: string; resource_id: string; request_id: string | null; ip_address: string | null; created_at: string;
};

export type PendingJob = { name: string; payload: unknown; singletonKey?: string };

/**
 * Side effects that may only happen once the transaction has committed. Events
 * are queued with emit() (records/events.ts), which applies `eventContext`.
 */
export type AfterCommit = { events: PendingEvent[]; audit: AuditIndexEntry[]; jobs: PendingJob[]; eventContext?: EventContext };

/** A write transaction in progress: the transaction handle plus the context. */
export type TxScope = OrgContext & { tx: TenantDb; now: string; after: AfterCommit };

export type WriteWork<T> = (scope: TxScope) => Work<T>;
