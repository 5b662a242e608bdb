import type { MessageBus } from "@/platform/cache/types";
import type { Logger } from "@/platform/logger";
import type { EventEnvelope, PendingEvent } from "./envelope";

export const orgChannel = (orgId: string) => `cusp:events:${orgId}`;

// Only these value shapes may travel in `data`: ids, field names, enums, numbers.
function clientSafe(data: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data ?? {})) {
    if (v === null || typeof v === "number" || typeof v === "boolean") out[k] = v;
    else if (typeof v === "string" && v.length <= 64) out[k] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === "string" && x.length <= 64)) out[k] = v;
  }
  return out;
}

/** Events kept while the bus does not answer, oldest first; past this many the oldest are dropped (and counted). */
const PENDING_MAX = 10_000;
const RETRY_EVERY_MS = 1_000;

/**
 * The one publish call every domain uses after a committed write. Publishing
 * never fails the write: an event the bus does not take now is kept (in this
 * process, in order) and published again every second until the bus takes it,
 * so streams on every instance get what was written during an outage once the
 * bus is back. `pending()` is what /api/health reports.
 */
export class EventPublisher {
  private readonly waiting: { orgId: string; raw: string; type: string }[] = [];
  private dropped = 0;
  private retry: ReturnType<typeof setInterval> | undefined;
  private flushing = false;

  constructor(
    private readonly bus: MessageBus,
    private readonly logger: Logger,
  ) {}

  /** Events not yet handed to the bus, and how many were dropped since the process started (over PENDING_MAX). */
  pending(): { events: number; dropped: number } {
    return { events: this.waiting.length, dropped: this.dropped };
  }

  async publish(orgId: string, event: PendingEvent): Promise<EventEnvelope> {
    const envelope: EventEnvelope = {
      id: Bun.randomUUIDv7(),
      type: event.type,
      org_id: orgId,
      practice_id: event.practice_id ?? null,
      resource_type: event.resource_type,
      resource_id: event.resource_id,
      occurred_at: new Date().toISOString(),
      data: clientSafe(event.data),
    };
    const raw = JSON.stringify(envelope);
    // in order: while older events wait, a new one waits behind them
    if (this.waiting.length) {
      this.keep(orgId, raw, event.type);
      await this.flush();
    } else {
      try {
        await this.bus.publish(orgChannel(orgId), raw);
      } catch (err) {
        // the write is committed: its event is published when the bus is back
        this.logger.warn({ err: (err as Error).message, type: event.type }, "event publish failed; kept for later");
        this.keep(orgId, raw, event.type);
      }
    }
    return envelope;
  }

  private keep(orgId: string, raw: string, type: string) {
    this.waiting.push({ orgId, raw, type });
    if (this.waiting.length > PENDING_MAX) {
      this.waiting.shift();
      if (this.dropped++ % 1000 === 0) this.logger.error({ dropped: this.dropped }, "events dropped: the bus has not answered for too long");
    }
    if (!this.retry) {
      this.retry = setInterval(() => void this.flush(), RETRY_EVERY_MS);
      this.retry.unref?.();
    }
  }

  /** Publish what waits, in order, until the bus refuses again or nothing is left. */
  async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.waiting.length) {
        const next = this.waiting[0]!;
        await this.bus.publish(orgChannel(next.orgId), next.raw);
        this.waiting.shift();
      }
      clearInterval(this.retry);
      this.retry = undefined;
      this.logger.info("kept events published: the bus is back");
    } catch {
      // still down: the next tick tries again
    } finally {
      this.flushing = false;
    }
  }

  /** Stop retrying (the runtime is closing); what waits is lost with the process. */
  close(): void {
    clearInterval(this.retry);
    this.retry = undefined;
  }

  /** Every open stream of an org subscribes: a message is parsed once for all of them (handlers must not change it). */
  subscribe(orgId: string, handler: (envelope: EventEnvelope, raw: string) => void): () => void {
    return this.bus.subscribe(orgChannel(orgId), (raw) => handler(this.parsed(raw), raw));
  }

  private lastRaw: string | undefined;
  private lastEnvelope: EventEnvelope | undefined;
  private parsed(raw: string): EventEnvelope {
    if (raw !== this.lastRaw) {
      this.lastEnvelope = Object.freeze(JSON.parse(raw) as EventEnvelope);
      this.lastRaw = raw;
    }
    return this.lastEnvelope!;
  }
}
