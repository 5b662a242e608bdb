import type { PlatformRuntime } from "@/platform/runtime";
import { expectedSchemaVersion } from "@/platform/db/database";
import { MIGRATIONS } from "@/platform/db/open";
import type { ReplicationStatus } from "@/platform/db/replication-state";
import type { Breaker } from "@/platform/async/breaker";

export type Check = { name: string; ok: boolean; detail?: string };

async function check(name: string, fn: () => Promise<string | void> | string | void, timeoutMs = 2000): Promise<Check> {
  try {
    const detail = await Promise.race([
      Promise.resolve().then(fn),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timed out")), timeoutMs)),
    ]);
    return { name, ok: true, ...(detail ? { detail } : {}) };
  } catch (err) {
    return { name, ok: false, detail: (err as Error).message.slice(0, 200) };
  }
}

/**
 * This instance's replicated org databases (docs/operations/deploy.md, "Edge regions"):
 * at an edge, how long ago the stalest replica last pulled (`max_lag_ms`, the
 * bound on what another client's write may wait to be seen here); at the
 * primary, the commits not yet taken by their shards. Aggregates only: the
 * endpoint is public.
 */
export function replicationStatus(rt: PlatformRuntime) {
  const { region, primary, edge } = rt.config.regions;
  const now = Date.now();
  const all: ReplicationStatus[] = rt.orgs.replicationStatuses();
  const lags = all.map((s) => (s.synced_at === null ? null : now - s.synced_at));
  return {
    region,
    primary_region: primary,
    role: edge ? ("edge" as const) : ("primary" as const),
    databases: all.length,
    max_lag_ms: edge && lags.length ? (lags.some((l) => l === null) ? null : Math.max(...(lags as number[]))) : 0,
    unpushed: all.reduce((n, s) => n + s.unpushed, 0),
    errors: all.filter((s) => s.error !== null).length,
  };
}

/**
 * What writes left to deliver because a shared service did not take it
 * (docs/platform/reliability.md): events kept for the bus, jobs recorded and
 * not yet handed to the queue; and whether this instance is refusing calls to
 * Redis or the queue at once (a breaker open). Counts only: the endpoint is public.
 */
export function pendingEffects(rt: PlatformRuntime) {
  const events = rt.events.pending();
  const jobs = rt.orgs.jobRelay.pending();
  const redis = "breaker" in rt.cache ? (rt.cache.breaker as Breaker).state : null;
  return {
    events_pending: events.events,
    events_dropped: events.dropped,
    jobs_pending: jobs.jobs,
    orgs_with_pending_jobs: jobs.orgs,
    breakers: { redis, queue: rt.queue ? rt.orgs.jobRelay.breaker.state : null },
  };
}

/** database, cache store, storage and schema_version; 503 names the failing checks. */
export async function health(rt: PlatformRuntime) {
  const expected = expectedSchemaVersion(MIGRATIONS.control);
  const checks = await Promise.all([
    check("database", () => rt.control.ping()),
    check("cache_store", () => rt.cache.ping()),
    check("storage", () => rt.storage.ping()),
    check("schema_version", async () => {
      const actual = await rt.control.schemaVersion();
      if (actual !== expected) throw new Error(`control schema at ${actual}, code expects ${expected}`);
      return `control ${actual}, tenant ${rt.orgs.tenantSchemaVersion}`;
    }),
    ...(rt.queue ? [check("queue", () => rt.queue!.ping())] : []),
  ]);
  const failing = checks.filter((c) => !c.ok).map((c) => c.name);
  return {
    status: (failing.length ? "fail" : "ok") as "fail" | "ok",
    failing,
    checks,
    uptime_seconds: Math.round((Date.now() - rt.startedAt) / 1000),
    replication: replicationStatus(rt),
    effects: pendingEffects(rt),
  };
}
