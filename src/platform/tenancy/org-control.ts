import type { MaybePromise } from "@/platform/db/database";
import type { ControlDatabase, ControlDb } from "@/platform/db/control";
import type { Work } from "@/platform/db/work";
import type { Caller } from "@/platform/auth/actor";
import type { PendingEvent } from "@/platform/events/envelope";
import type { Logger } from "@/platform/logger";
import { nowIso } from "@/platform/ids";
import { recordOrgAudit, type OrgAuditOutbox } from "@/platform/audit/org-outbox";
import type { AuditInput } from "@/platform/audit/audit";

/** A read of the org's data in the control database: the org id is bound here, never remembered by the caller. */
export type OrgControlRead = { readonly orgId: string; readonly db: ControlDb };

/** A write adds the org-trail audit entry (and event) of what it changes, in the same transaction. */
export type OrgControlWrite = OrgControlRead & {
  readonly now: string;
  audit(input: AuditInput, event?: PendingEvent): Work<void>;
};

export type OrgControlDeps = { control: ControlDatabase; outbox: OrgAuditOutbox; invalidateAccess: () => Promise<void>; logger: Logger };

/**
 * !!! TENANCY: an org verb's only way into the control database; changes need two reviewers. !!!
 * The org's members, permission groups and audit entries live in the shared
 * control database. Verbs reach them through repository functions that take
 * the scope this hands out first (`c.orgId` is this org's id), so no query
 * depends on a `where org_id` someone remembered. After every write, cached
 * permissions are dropped and the write's audit entries reach the org's trail.
 */
export class OrgControl {
  constructor(
    private readonly deps: OrgControlDeps,
    readonly orgId: string,
    private readonly caller: Caller,
  ) {}

  read<T>(work: (c: OrgControlRead) => Work<T>): MaybePromise<T> {
    const orgId = this.orgId;
    return this.deps.control.read((db) => work({ orgId, db }));
  }

  async write<T>(work: (c: OrgControlWrite) => Work<T>): Promise<T> {
    const { orgId, caller } = this;
    const now = nowIso();
    let audited = false;
    const result = await this.deps.control.write((db) =>
      work({
        orgId,
        db,
        now,
        audit(input, event) {
          audited = true;
          return recordOrgAudit(db, orgId, caller, now, input, event);
        },
      }),
    );
    await this.deps.invalidateAccess();
    if (audited) {
      try {
        await this.deps.outbox.deliver(orgId);
      } catch (err) {
        // committed and recorded: the entry reaches the trail on the org's next write or at start-up
        this.deps.logger.error({ org_id: orgId, request_id: caller.requestId, err: (err as Error).message }, "audit outbox delivery failed");
      }
    }
    return result;
  }
}
