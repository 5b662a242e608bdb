// The shapes of an audit entry, shared by the write that records it (./audit.ts),
// the platform index (./index-writer.ts), the org-trail outbox (./org-outbox.ts)
// and what follows a commit (records/context.ts).

/** What a write says it did. */
export type AuditInput = {
  action: string;
  resource_type: string;
  resource_id: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
};

/** An entry as the platform index holds it: everything but the snapshots. */
export type AuditIndexEntry = {
  id: string;
  actor_id: string;
  actor_type: string;
  actor_display_name: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  request_id: string | null;
  ip_address: string | null;
  created_at: string;
};
