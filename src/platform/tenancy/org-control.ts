import type { Maybe } from "@/platform/async/maybe";
import type { ControlDatabase, ControlDb } from "@/platform/db/control";
import type { Work } from "@/platform/db/work";
import type { Caller } from "@/platform/auth/actor";
import type { PendingEvent } from "@/platform/events/envelope";
import type { AuditInput } from "@/platform/audit/entry";
import type { JobDefinition } from "@/platform/queue/jobs";
import type { JobOptions } from "@/platform/queue/enqueue";
import type { z } from "zod";

/** Records an org-trail audit entry inside a control-database write (Orgs.writeControl). */
export type RecordOrgAudit = (orgId: string, caller: Caller, input: AuditInput, event?: PendingEvent) => Work<void>;

/** Queues a job, caused by `caller` in an org, inside a control-database write: sent after commit (Orgs.writeControl). */
export type QueueControlJob = <S extends z.ZodType>(
  origin: { orgId: string; caller: Caller },
  job: JobDefinition<S>,
  payload: z.input<S>,
  options?: JobOptions,
) => void;

/** The way into control-database writes that this class is handed (Orgs implements it). */
export type ControlWriter = {
  writeControl<T>(work: (tx: ControlDb, audit: RecordOrgAudit, now: string, queue: QueueControlJob) => Work<T>): Promise<T>;
};

/** A read of the org's data in the control database: the org id is bound here, never remembered by the caller. */
export type OrgControlRead = { readonly orgId: string; readonly db: ControlDb };

/** A write adds the org-trail audit entry (and event) of what it changes, in the same transaction. */
export type OrgControlWrite = OrgControlRead & {
  readonly now: string;
  audit(input: AuditInput, event?: PendingEvent): Work<void>;
};

/**
 * !!! TENANCY: an org verb's only way into the control database; changes need two reviewers. !!!
 * The org's members, permission groups and audit entries live in the shared
 * control database. Verbs reach them through repository functions that take
 * the scope this hands out first (`c.orgId` is this org's id), so no query
 * depends on a `where org_id` someone remembered. Writes go through
 * Orgs.writeControl: cached permissions are dropped after every write and its
 * audit entries reach the org's trail.
 */
export class OrgControl {
  constructor(
    private readonly orgs: ControlWriter,
    private readonly control: ControlDatabase,
    readonly orgId: string,
    private readonly caller: Caller,
  ) {}

  read<T>(work: (c: OrgControlRead) => Work<T>): Maybe<T> {
    const orgId = this.orgId;
    return this.control.read((db) => work({ orgId, db }));
  }

  write<T>(work: (c: OrgControlWrite) => Work<T>): Promise<T> {
    const { orgId, caller } = this;
    return this.orgs.writeControl((db, audit, now) => work({ orgId, db, now, audit: (input, event) => audit(orgId, caller, input, event) }));
  }
}
