// Row (s1) of `bun run bench`: many open event streams (GET {P}/events/stream)
// held by one process while the booking pipeline runs. It opens
// `streams_per_org` streams on each org of the config, prints STREAMS_READY
// once all are connected, and on SIGTERM prints STREAMS_JSON: how many events
// each org's streams got, how late (receive time minus the event's
// occurred_at, both on this machine's clock, in whole milliseconds), events
// of another org (must be 0), and events one of an org's streams missed while
// another got them (must be 0).

export {};

type Config = { base: string; token: string; orgs: string[]; streams_per_org: number };
const cfg = JSON.parse(await Bun.file(process.argv[2]!).text()) as Config;

type Stream = { org: string; ids: Set<string>; duplicates: number; foreign: number };
const streams: Stream[] = [];
const delays: number[] = [];
let connected = 0;
const aborts: AbortController[] = [];

async function open(org: string) {
  const s: Stream = { org, ids: new Set(), duplicates: 0, foreign: 0 };
  streams.push(s);
  const abort = new AbortController();
  aborts.push(abort);
  const res = await fetch(`${cfg.base}/api/v1/${org}/events/stream`, { headers: { authorization: `Bearer ${cfg.token}` }, signal: abort.signal });
  if (res.status !== 200) throw new Error(`stream on ${org}: ${res.status}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      const now = Date.now();
      buffer += decoder.decode(chunk.value, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith(": connected")) connected++;
        const line = block.split("\n").find((l) => l.startsWith("data: "));
        if (line) {
          const e = JSON.parse(line.slice(6)) as { id: string; org_id: string; occurred_at: string };
          if (e.org_id !== org) s.foreign++;
          else if (s.ids.has(e.id)) s.duplicates++;
          else s.ids.add(e.id);
          delays.push(now - Date.parse(e.occurred_at));
        }
        end = buffer.indexOf("\n\n");
      }
    }
  } catch {
    // aborted at the end
  }
}

const total = cfg.orgs.length * cfg.streams_per_org;
const pumps: Promise<void>[] = [];
for (const org of cfg.orgs) for (let i = 0; i < cfg.streams_per_org; i++) pumps.push(open(org));
const deadline = Date.now() + 60_000;
while (connected < total) {
  if (Date.now() > deadline) throw new Error(`only ${connected} of ${total} streams connected`);
  await Bun.sleep(20);
}
console.log(`STREAMS_READY ${connected}`);

process.on("SIGTERM", () => {
  for (const a of aborts) a.abort();
  const byOrg = new Map<string, Set<string>>();
  for (const s of streams) {
    const all = byOrg.get(s.org) ?? new Set<string>();
    for (const id of s.ids) all.add(id);
    byOrg.set(s.org, all);
  }
  const missed = streams.reduce((n, s) => n + (byOrg.get(s.org)!.size - s.ids.size), 0);
  delays.sort((a, b) => a - b);
  const q = (p: number) => (delays.length ? delays[Math.min(delays.length - 1, Math.floor(p * delays.length))]! : null);
  console.log(
    `STREAMS_JSON ${JSON.stringify({
      streams: total,
      connected,
      deliveries: delays.length,
      events_per_org: Object.fromEntries([...byOrg].map(([org, ids]) => [org, ids.size])),
      foreign: streams.reduce((n, s) => n + s.foreign, 0),
      duplicates: streams.reduce((n, s) => n + s.duplicates, 0),
      missed,
      delay_ms: { p50: q(0.5), p99: q(0.99), max: delays.at(-1) ?? null },
    })}`,
  );
  process.exit(0);
});
await Promise.all(pumps);
