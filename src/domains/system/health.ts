import type { PlatformRuntime } from "@/platform/runtime";
import { expectedSchemaVersion } from "@/platform/db/database";
import { MIGRATIONS } from "@/platform/db/open";

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
  return { status: (failing.length ? "fail" : "ok") as "fail" | "ok", failing, checks, uptime_seconds: Math.round((Date.now() - rt.startedAt) / 1000) };
}
