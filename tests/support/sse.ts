import { expect } from "bun:test";
import { waitFor } from "./wait";

/** An SSE event's `data`, as the service sends it (the envelope). */
export type StreamedEvent = { id: string; type: string; org_id: string; resource_id: string };

/**
 * An org's event stream opened over real HTTP (`base` is a listening server):
 * the raw text so far, the envelopes parsed from its frames, and whether the
 * `: connected` comment came. Resolves once connected.
 */
export async function openEventStream(base: string, orgId: string, token: string) {
  const abort = new AbortController();
  const res = await fetch(`${base}/api/v1/${orgId}/events/stream`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: StreamedEvent[] = [];
  let text = "";
  let parsed = 0;
  const pump = (async () => {
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return;
        text += decoder.decode(chunk.value, { stream: true });
        let end = text.indexOf("\n\n", parsed);
        while (end >= 0) {
          const data = text
            .slice(parsed, end)
            .split("\n")
            .find((l) => l.startsWith("data: "));
          if (data) events.push(JSON.parse(data.slice(6)));
          parsed = end + 2;
          end = text.indexOf("\n\n", parsed);
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  const stream = {
    orgId,
    events,
    get text() {
      return text;
    },
    until: (predicate: (text: string) => boolean, what: string) => waitFor(() => predicate(text), { timeoutMs: 5_000, intervalMs: 5, what }),
    async close() {
      abort.abort();
      await pump;
    },
  };
  await stream.until((x) => x.includes(": connected"), `the stream of org ${orgId} to connect`);
  return stream;
}
