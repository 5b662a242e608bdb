import type { Work } from "@/platform/db/work";
import { queueJob, type QueueJob } from "@/platform/queue/enqueue";
import type { Reaction, Reactions, TxScope } from "./context";

// Moments: how one domain reacts to what happens in another without importing
// it. The domain where a thing happens defines the moment (a procedure
// completed, an appointment broken) and announces it inside the write that
// makes it happen; domains that care list a reaction to it (their
// reactions.ts), and src/reactions.ts, the composition root, gathers them into
// the runtime. The announcing domain never learns who listens.
//
// A reaction runs on one side of the commit:
// - in_transaction: inside the announcing write, in its transaction, before
//   the write goes on (what must be atomic with it, e.g. posting a charge);
//   it may write, fail the write, and announce moments of its own;
// - after_commit: it queues jobs, which are checked now and sent only once the
//   write has committed (estimate or recall recomputation). It cannot write.
// docs/architecture.md ("Moments") lists every moment, who listens, and on
// which side.

/** A moment a domain announces; `P` is what its listeners learn (ids and a few facts, never a whole record). */
export type Moment<P> = { readonly name: string; readonly description: string; readonly payloadOf?: (p: P) => void };

const MOMENT_NAME = /^[a-z][a-z_]*\.[a-z][a-z_]*$/;
const names = new Set<string>();

/** Define a moment, once, in the domain where it happens. */
export function defineMoment<P>(name: string, description: string): Moment<P> {
  if (!MOMENT_NAME.test(name)) throw new Error(`moment "${name}" must be "<thing>.<what happened>", lower-case`);
  if (names.has(name)) throw new Error(`moment "${name}" is defined twice`);
  names.add(name);
  return { name, description };
}

/** One entry of a domain's list of reactions. */
export type Listener = { readonly moment: string; readonly reaction: Reaction };

/** React inside the announcing write's transaction. `by` names the listener (`<domain>.<what it does>`). */
export function inTransaction<P>(moment: Moment<P>, by: string, run: (s: TxScope, payload: P) => Work<void>): Listener {
  return { moment: moment.name, reaction: { by, side: "in_transaction", run: run as (s: TxScope, payload: unknown) => Work<void> } };
}

/** React after the announcing write commits, by queueing jobs (`queue` checks each payload now). */
export function afterCommit<P>(moment: Moment<P>, by: string, run: (payload: P, queue: QueueJob) => void): Listener {
  return { moment: moment.name, reaction: { by, side: "after_commit", run: run as (payload: unknown, queue: QueueJob) => void } };
}

/** The runtime's table of reactions by moment, in list order; a listener named twice for one moment is refused. */
export function reactionTable(listeners: readonly Listener[]): Reactions {
  const table = new Map<string, Reaction[]>();
  for (const { moment, reaction } of listeners) {
    if (!names.has(moment)) throw new Error(`a reaction to moment "${moment}", which is not defined`);
    const list = table.get(moment) ?? [];
    if (list.some((r) => r.by === reaction.by)) throw new Error(`"${reaction.by}" reacts to "${moment}" twice`);
    list.push(reaction);
    table.set(moment, list);
  }
  return table;
}

/** Announce a moment inside a write (`s` its scope): in-transaction reactions run now, after-commit ones queue their jobs. */
export function* announce<P>(s: TxScope, moment: Moment<P>, payload: P): Work<void> {
  const reactions = s.reactions.get(moment.name);
  if (!reactions) return;
  for (const reaction of reactions) {
    if (reaction.side === "in_transaction") yield* reaction.run(s, payload);
    else reaction.run(payload, (job, jobPayload, options) => queueJob(s, job, jobPayload, options));
  }
}
