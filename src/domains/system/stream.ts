import type { PlatformRuntime } from "@/platform/runtime";
import type { EventEnvelope } from "@/platform/events/envelope";

export const KEEP_ALIVE_MS = 15_000;
const encoder = new TextEncoder();

// An event goes to every open stream of its org one after another: it is
// encoded once, and the bytes are shared (enqueue does not take them over).
let lastEvent: EventEnvelope | undefined;
let lastFrame: Uint8Array | undefined;
const frame = (e: EventEnvelope, raw: string) => {
  if (e !== lastEvent) {
    lastEvent = e;
    lastFrame = encoder.encode(`id: ${e.id}\nevent: ${e.type}\ndata: ${raw}\n\n`);
  }
  return lastFrame!;
};

/** Open streams, so shutdown can end them before waiting for in-flight requests. */
export const openStreams = new Set<ReadableStreamDefaultController<Uint8Array>>();

/**
 * One client's server-sent event stream: events published after it connected
 * (no replay), optionally only one practice's, and a keep-alive comment.
 */
export function eventStream(rt: PlatformRuntime, orgId: string, practiceId: string, keepAliveMs = KEEP_ALIVE_MS): Response {
  let unsubscribe = () => {};
  let timer: ReturnType<typeof setInterval> | undefined;
  let ctrl: ReadableStreamDefaultController<Uint8Array>;
  const stop = () => {
    unsubscribe();
    if (timer) clearInterval(timer);
    openStreams.delete(ctrl);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      ctrl = controller;
      openStreams.add(controller);
      controller.enqueue(encoder.encode(": connected\n\n"));
      unsubscribe = rt.events.subscribe(orgId, (envelope, raw) => {
        if (practiceId && envelope.practice_id !== practiceId) return;
        try {
          controller.enqueue(frame(envelope, raw));
        } catch {
          stop();
        }
      });
      timer = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
        } catch {
          stop();
        }
      }, keepAliveMs);
    },
    cancel: stop,
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive", "x-accel-buffering": "no" },
  });
}

export function closeAllStreams() {
  for (const c of [...openStreams]) {
    try {
      c.close();
    } catch {}
    openStreams.delete(c);
  }
}
