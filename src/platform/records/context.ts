import type { Caller } from "@/platform/auth/actor";
import type { OrgDatabase } from "@/platform/db/org-databases";
import type { Db } from "@/platform/db/database";
import type { TenantSchema } from "@db/tenant/drizzle-schema";
import type { OrgRecord } from "@/platform/tenancy/access";
import type { OrgControl } from "@/platform/tenancy/org-control";
import type { PendingEvent } from "@/platform/events/envelope";
import type { Work } from "@/platform/db/work";
import type { AuditIndexEntry } from "@/platform/audit/entry";
import type { PendingJob, QueueJob } from "@/platform/queue/enqueue";

export type TenantDb = Db<TenantSchema>;

/**
 * What a verb gets instead of the HTTP request: the org's own database (already
 * narrowed to this org: another org's rows are not reachable from it), the
 * org's slice of the control database, who acts, and the request id that jobs
 * and audit entries carry on. Nothing in it opens another org's database
 * (platform/tenancy/orgs.ts builds it; only that file reaches orgs by id).
 */
export type OrgContext = Caller & {
  org: OrgRecord;
  db: OrgDatabase;
  /** The org's members, groups and audit entries held in the control database (platform/tenancy/org-control.ts). */
  control: OrgControl;
  /** What follows a committed write: the audit index, events, jobs (records/transaction.ts). */
  effects: CommitEffects;
  /** The calling user's org permission keys (set by the guard; absent for system actors). */
  permissions?: ReadonlySet<string>;
  /** After a write met the move fence: wait for the org's move, then point `db` at its new database (records/transaction.ts). */
  relocate(): Promise<OrgDatabase>;
};

export type CommitEffects = {
  /** Inside the write's transaction: its jobs into the org's job outbox (platform/queue/outbox.ts). */
  recordJobs(tx: TenantDb, after: AfterCommit, who: Caller, now: string): Work<void>;
  /** After commit; never fails (the answer is the write's). `db` is the database the write committed to. */
  afterCommit(after: AfterCommit, who: Caller, db: OrgDatabase): Promise<void>;
  /** Audit entries of earlier writes now in the platform index: this write clears their index_pending marks (platform/audit/index-writer.ts). */
  takeIndexed(): string[] | undefined;
  /** Marks taken by a write that did not commit: the next write clears them. */
  restoreIndexed(ids: string[]): void;
  /** What reacts to the moments this org's writes announce (records/moments.ts). */
  readonly reactions: Reactions;
};

/**
 * A listener of a moment, as records/moments.ts builds it: either work inside
 * the announcing write's transaction (atomic with it), or jobs queued for
 * after its commit.
 */
export type Reaction =
  | { readonly by: string; readonly side: "in_transaction"; run(s: TxScope, payload: unknown): Work<void> }
  | { readonly by: string; readonly side: "after_commit"; run(payload: unknown, queue: QueueJob): void };

/** The process's reactions by moment name (src/reactions.ts lists them). */
export type Reactions = ReadonlyMap<string, readonly Reaction[]>;

/**
 * For the few verbs whose rule depends on a second key beyond the route's own
 * (e.g. personal vs shared records): system actors hold every key.
 */
export const holdsPermission = (ctx: Pick<OrgContext, "actor" | "permissions">, key: string): boolean =>
  ctx.actor.type !== "user" || !!ctx.permissions?.has(key);

/** What events queued inside withEventContext (records/events.ts) inherit: the practice (unless they name one) and extra data. */
export type EventContext = { practiceId?: string | null; data?: Record<string, unknown> };

/**
 * Side effects that may only happen once the transaction has committed. Events
 * are queued with emit() (records/events.ts), which applies `eventContext`.
 */
export type AfterCommit = { events: PendingEvent[]; audit: AuditIndexEntry[]; jobs: PendingJob[]; eventContext?: EventContext };

/** A write transaction in progress: the transaction handle plus who acts in which org. */
export type TxScope = Omit<OrgContext, "control" | "effects" | "relocate"> & { tx: TenantDb; now: string; after: AfterCommit; reactions: Reactions };

export type WriteWork<T> = (scope: TxScope) => Work<T>;
