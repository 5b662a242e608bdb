import { csvLine } from "@/platform/http/csv";
import { anyContains } from "@/platform/records/search";
import { and, asc, count, countDistinct, desc, eq, gte, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { auditIndex, orgs } from "@db/control/schema";
import { auditEntries } from "@db/tenant/audit";
import { all, get, type Work } from "@/platform/db/work";
import { NotFound } from "@/platform/errors";
import { UUID_RE } from "@/platform/ids";
import { pageFrom } from "@/platform/records/paging";
import type { PlatformRuntime } from "@/platform/runtime";
import {
  EXPORT_COLUMNS,
  parseTimeBound,
  type AuditEntry,
  type AuditEntrySummary,
  type AuditFilters,
  type AuditListQuery,
  type AuditStats,
  type AuditStatsQuery,
} from "./schemas";

// The platform audit log reads the control database's audit_index (one row per
// entry, every org); before/after snapshots stay in each org's own database and
// are fetched only for a single entry.

/** How long reading one entry's snapshots from an org database may take. */
export const TENANT_READ_TIMEOUT_MS = 3000;
/** Rows per keyset batch of the CSV export. */
export const EXPORT_BATCH_SIZE = 500;

const columns = {
  id: auditIndex.id,
  action: auditIndex.action,
  actor_id: auditIndex.actor_id,
  actor_type: auditIndex.actor_type,
  actor_display_name: auditIndex.actor_display_name,
  resource_type: auditIndex.resource_type,
  resource_id: auditIndex.resource_id,
  org_id: auditIndex.org_id,
  // the org's current name; the name at write time once the org row is gone
  org_name: sql<string | null>`coalesce(${orgs.name}, ${auditIndex.org_name})`,
  ip_address: auditIndex.ip_address,
  request_id: auditIndex.request_id,
  created_at: auditIndex.created_at,
};
type IndexRow = Omit<typeof auditIndex.$inferSelect, "org_name"> & { org_name: string | null };

const ACTOR_TYPES = new Set(["user", "system", "api_key"]);

function serialize(r: IndexRow): AuditEntrySummary {
  return {
    id: r.id,
    action: r.action,
    actor_id: r.actor_id,
    actor_type: (ACTOR_TYPES.has(r.actor_type) ? r.actor_type : "system") as AuditEntrySummary["actor_type"],
    actor_display_name: r.actor_display_name,
    resource_type: r.resource_type,
    resource_display_id: r.resource_id,
    org_id: r.org_id,
    org_name: r.org_name,
    ip_address: r.ip_address,
    trace_id: r.request_id,
    created_at: r.created_at,
  };
}

function filterWhere(f: AuditFilters): SQL | undefined {
  const conds: (SQL | undefined)[] = [];
  if (f.org_uuid) conds.push(eq(auditIndex.org_id, f.org_uuid));
  if (f.actor_id) conds.push(eq(auditIndex.actor_id, f.actor_id));
  if (f.action?.length) conds.push(inArray(auditIndex.action, f.action));
  if (f.resource_type) conds.push(eq(auditIndex.resource_type, f.resource_type));
  if (f.search) {
    conds.push(
      anyContains(
        [auditIndex.action, auditIndex.resource_type, auditIndex.resource_id, auditIndex.actor_display_name, orgs.name, auditIndex.org_name],
        f.search,
      ),
    );
  }
  const start = f.start_date ? parseTimeBound(f.start_date) : null;
  const end = f.end_date ? parseTimeBound(f.end_date) : null;
  if (start) conds.push(gte(auditIndex.created_at, start.from));
  if (end) conds.push(lt(auditIndex.created_at, end.until));
  const present = conds.filter((c): c is SQL => !!c);
  return present.length ? and(...present) : undefined;
}

const SORT_COLUMNS = {
  created_at: auditIndex.created_at,
  action: auditIndex.action,
  resource_type: auditIndex.resource_type,
  actor_id: auditIndex.actor_id,
} as const;

// Left join on the org's primary key: cheap, and gives the current org name.
const fromIndex = (db: any, select: Record<string, unknown>) => db.select(select).from(auditIndex).leftJoin(orgs, eq(orgs.id, auditIndex.org_id));

export async function listAuditEntries(rt: PlatformRuntime, q: AuditListQuery) {
  const page = await rt.control.read((db) => {
    const where = filterWhere(q);
    const dir = q.sort_order === "asc" ? asc : desc;
    return pageFrom<IndexRow>(
      q,
      fromIndex(db, { n: count() }).where(where),
      fromIndex(db, columns).where(where).orderBy(dir(SORT_COLUMNS[q.sort_by]), dir(auditIndex.id)),
    );
  });
  return { ...page, items: page.items.map(serialize) };
}

export async function getAuditEntry(rt: PlatformRuntime, entryId: string): Promise<AuditEntry> {
  if (!UUID_RE.test(entryId)) throw new NotFound("Audit entry");
  const row = await rt.control.read((db) => get<IndexRow>(fromIndex(db, columns).where(eq(auditIndex.id, entryId))));
  if (!row) throw new NotFound("Audit entry");
  const snapshots = row.org_id ? await readSnapshots(rt, row.org_id, row.id) : null;
  return { ...serialize(row), before: snapshots?.before ?? null, after: snapshots?.after ?? null };
}

type Snapshots = { before: Record<string, unknown> | null; after: Record<string, unknown> | null };

/**
 * The entry's before/after from the org's own database, or null when that is
 * unavailable: org gone, database missing, shard unreachable or slow, entry
 * purged. Archived orgs keep their data, so they are read too.
 */
async function readSnapshots(rt: PlatformRuntime, orgId: string, entryId: string): Promise<Snapshots | null> {
  try {
    const read = rt.orgs.readExisting(orgId, (db) =>
      get<Snapshots>(db.select({ before: auditEntries.before, after: auditEntries.after }).from(auditEntries).where(eq(auditEntries.id, entryId))),
    );
    return (await withTimeout(read, TENANT_READ_TIMEOUT_MS)) ?? null;
  } catch (err) {
    rt.logger.warn({ org_id: orgId, entry_id: entryId, err: (err as Error).message }, "audit snapshots unavailable");
    return null;
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  p.catch(() => {}); // a late failure after the timeout must not surface as unhandled
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export async function listResourceTypes(rt: PlatformRuntime): Promise<{ items: string[] }> {
  const rows = await rt.control.read((db) =>
    all<{ t: string }>(db.selectDistinct({ t: auditIndex.resource_type }).from(auditIndex).orderBy(asc(auditIndex.resource_type))),
  );
  return { items: rows.map((r) => r.t) };
}

export async function auditStats(rt: PlatformRuntime, q: AuditStatsQuery, now = new Date()): Promise<AuditStats> {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const tomorrow = new Date(today.getTime() + 86_400_000);
  return rt.control.read(function* (db) {
    const where = filterWhere(q);
    const total = yield* get<{ n: number } | undefined>(db.select({ n: count() }).from(auditIndex).where(where));
    const actions = yield* all<{ action: string; n: number }>(
      db.select({ action: auditIndex.action, n: count() }).from(auditIndex).where(where).groupBy(auditIndex.action).orderBy(asc(auditIndex.action)),
    );
    const types = yield* all<{ resource_type: string; n: number }>(
      db
        .select({ resource_type: auditIndex.resource_type, n: count() })
        .from(auditIndex)
        .where(where)
        .groupBy(auditIndex.resource_type)
        .orderBy(desc(count()), asc(auditIndex.resource_type)),
    );
    const todayWhere = and(
      q.org_uuid ? eq(auditIndex.org_id, q.org_uuid) : undefined,
      gte(auditIndex.created_at, today.toISOString()),
      lt(auditIndex.created_at, tomorrow.toISOString()),
    );
    const todayRow = yield* get<{ n: number; actors: number } | undefined>(
      db
        .select({ n: count(), actors: countDistinct(auditIndex.actor_id) })
        .from(auditIndex)
        .where(todayWhere),
    );
    return {
      total_entries: total?.n ?? 0,
      by_action: Object.fromEntries(actions.map((a) => [a.action, a.n])),
      by_resource_type: types.map((t) => ({ resource_type: t.resource_type, count: t.n })),
      today_count: todayRow?.n ?? 0,
      active_actors_today: todayRow?.actors ?? 0,
    };
  });
}

// ---- CSV export ----------------------------------------------------------------

const csvRow = (e: AuditEntrySummary) => csvLine(EXPORT_COLUMNS.map((c) => e[c]));

function* exportBatch(db: any, where: SQL | undefined, after: { created_at: string; id: string } | null, limit: number): Work<IndexRow[]> {
  const cursor = after
    ? or(lt(auditIndex.created_at, after.created_at), and(eq(auditIndex.created_at, after.created_at), lt(auditIndex.id, after.id)))
    : undefined;
  return yield* all<IndexRow>(fromIndex(db, columns).where(and(where, cursor)).orderBy(desc(auditIndex.created_at), desc(auditIndex.id)).limit(limit));
}

/**
 * The matching entries as CSV, newest first, read in keyset batches so memory
 * stays flat however large the log is. The first batch is read before the
 * stream starts, so a failing database still answers with an error status.
 */
export async function exportAuditCsv(rt: PlatformRuntime, f: AuditFilters, batchSize = EXPORT_BATCH_SIZE): Promise<ReadableStream<Uint8Array>> {
  const where = filterWhere(f);
  const encoder = new TextEncoder();
  const next = (after: { created_at: string; id: string } | null) => rt.control.read((db) => exportBatch(db, where, after, batchSize));
  let batch: IndexRow[] | null = await next(null);
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csvLine([...EXPORT_COLUMNS])));
    },
    async pull(controller) {
      try {
        if (!batch) return;
        const rows = batch;
        if (rows.length) controller.enqueue(encoder.encode(rows.map((r) => csvRow(serialize(r))).join("")));
        if (rows.length < batchSize) {
          batch = null;
          controller.close();
          return;
        }
        const last = rows[rows.length - 1]!;
        batch = cancelled ? null : await next({ created_at: last.created_at, id: last.id });
      } catch (err) {
        // Headers are gone: abort the download rather than end it looking complete.
        rt.logger.error({ err: (err as Error).message }, "audit export failed mid-stream");
        controller.error(err);
      }
    },
    cancel() {
      cancelled = true;
    },
  });
}
