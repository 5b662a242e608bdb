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

/** The one publish call every domain uses after a committed write. */
export class EventPublisher {
  constructor(
    private readonly bus: MessageBus,
    private readonly logger: Logger,
  ) {}

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
    try {
      await this.bus.publish(orgChannel(orgId), JSON.stringify(envelope));
    } catch (err) {
      // the write is committed; a lost notification must not fail the request
      this.logger.warn({ err: (err as Error).message, type: event.type }, "event publish failed");
    }
    return envelope;
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
