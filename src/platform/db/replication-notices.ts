import type { MessageBus } from "@/platform/cache/types";
import type { OrgDatabases } from "./org-databases";
import type { Replicated } from "./replication-state";

// Replication notices (docs/platform/edge-replicas.md): once a push has carried a
// replicated org database to position N, the primary says so on the bus
// (Redis between processes); an edge holding a replica of that org behind N
// pulls at once, instead of at its next read's background refresh. So
// another client's write is visible at an edge about one push and one pull
// after it committed, whether or not anyone reads there. A lost notice costs
// nothing but that speed: reads still refresh and read-your-writes still waits.

const channel = (orgId: string) => `replication:${orgId}`;

export function replicationNotices(orgDbs: OrgDatabases, bus: MessageBus): void {
  if (orgDbs.sync.role === "primary") {
    orgDbs.onPushed = (orgId, position) => void bus.publish(channel(orgId), String(position)).catch(() => undefined);
    return;
  }
  // an edge listens for each org from the first time it opens the org's database, for as long as it runs
  const listening = new Set<string>();
  orgDbs.onFirstReplicaOpen = (orgId) => {
    if (listening.has(orgId)) return;
    listening.add(orgId);
    bus.subscribe(channel(orgId), (message) => {
      const open = orgDbs.peek(orgId);
      if (open?.kind === "sync") (open as unknown as Replicated).noticed(Number(message));
    });
  };
}
