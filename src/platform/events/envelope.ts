/** The client-safe envelope of every event on the stream (CONTRACT.md, Events). */
export type EventEnvelope = {
  id: string;
  type: string;
  org_id: string;
  practice_id: string | null;
  resource_type: string;
  resource_id: string;
  occurred_at: string;
  data: Record<string, unknown>;
};

/** What a write hands over to be published after commit. */
export type PendingEvent = {
  type: string;
  resource_type: string;
  resource_id: string;
  practice_id?: string | null;
  /** ids and changed field names only: never free text or identifiers such as SSN */
  data?: Record<string, unknown>;
};
