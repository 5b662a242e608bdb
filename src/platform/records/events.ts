import type { PendingEvent } from "@/platform/events/envelope";
import type { Work } from "@/platform/db/work";
import type { AfterCommit, EventContext } from "./context";

/** Queue an event for publication after commit, with the scope's event context applied. Queued events are final. */
export function emit(s: { after: AfterCommit }, event: PendingEvent): void {
  const c = s.after.eventContext;
  if (!c) {
    s.after.events.push(event);
    return;
  }
  s.after.events.push({ ...event, practice_id: event.practice_id ?? c.practiceId ?? null, data: c.data ? { ...event.data, ...c.data } : event.data });
}

/**
 * Run `work` with an event context: every event it queues belongs to this
 * practice unless it names one, and carries `data` (e.g. whose chart it is).
 * Nested contexts: the inner practice wins, data merges.
 */
export function* withEventContext<T>(s: { after: AfterCommit }, context: EventContext, work: Work<T>): Work<T> {
  const outer = s.after.eventContext;
  s.after.eventContext = {
    practiceId: context.practiceId ?? outer?.practiceId,
    data: outer?.data || context.data ? { ...outer?.data, ...context.data } : undefined,
  };
  try {
    return yield* work;
  } finally {
    s.after.eventContext = outer;
  }
}
