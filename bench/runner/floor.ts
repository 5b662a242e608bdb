// The floor server (bench/servers/floor.ts) as the rows (b0), (c0), (e30) and
// (d0) use it: started on one org of the Cusp server's data directory while
// that server sits idle, and checked to do the same work before it is
// measured: its answers must equal Cusp's (reads: deep-equal; writes: equal
// but for the new record's id and times, with the same audit row and its
// audit index row), else the row throws.

import { Database } from "bun:sqlite";
import { join } from "node:path";
import { orgDbFile } from "./api";
import { type Server, startServer } from "./servers";
import { BENCH } from "./settings";

/** Who the floor's audit rows name (taken from an audit row Cusp wrote for the same administrator). */
export type FloorActor = { actor_id: string; actor_type: string; actor_display_name: string | null };

/** A floor server on `orgId`'s database file (and the control database) of the Cusp data directory. */
export function startFloor(dataDir: string, orgId: string, label: string, actor?: FloorActor): Promise<Server> {
  return startServer(
    `floor-${label}`,
    join(BENCH, "servers", "floor.ts"),
    {
      FLOOR_ORG: orgId,
      FLOOR_ORG_DB: orgDbFile(dataDir, orgId),
      FLOOR_CONTROL_DB: join(dataDir, "control.db"),
      ...(actor ? { FLOOR_ACTOR: JSON.stringify(actor) } : {}),
    },
    "/ping",
  );
}

/** The first place two JSON values differ ("" when they are equal). */
export function difference(a: unknown, b: unknown, at = "$"): string {
  if (a === b) return "";
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b))
    return `${at}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    const d = difference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
    if (d) return d;
  }
  return "";
}

async function getJson(base: string, path: string, headers: Record<string, string>) {
  const r = await fetch(base + path, { headers });
  return { status: r.status, body: (await r.json()) as unknown };
}

/** Every path answers 200 with the same JSON from Cusp and from the floor; throws at the first that does not. */
export async function assertSameReads(row: string, cusp: Server, floor: Server, paths: readonly string[], headers: Record<string, string>) {
  for (const path of paths) {
    const [c, f] = await Promise.all([getJson(cusp.base, path, headers), getJson(floor.base, path, headers)]);
    const d = c.status !== 200 || f.status !== 200 ? `status ${c.status} vs ${f.status}` : difference(c.body, f.body);
    if (d) throw new Error(`(${row}) the floor does not answer ${path} as Cusp does: ${d} (Cusp first, then the floor)`);
  }
  console.log(`  (${row}) the floor's answers equal Cusp's for ${paths.length} requests`);
}

type AuditRow = FloorActor & Record<string, unknown> & { id: string; before: string | null; after: string | null };

/** The audit row of the write that created `resourceId`, read from the org's file. */
export function auditRowOf(dbFile: string, resourceId: string): AuditRow {
  const db = new Database(dbFile, { readonly: true });
  try {
    const row = db.query("SELECT * FROM audit_entries WHERE resource_id = ? ORDER BY created_at LIMIT 1").get(resourceId) as AuditRow | null;
    if (!row) throw new Error(`no audit row for ${resourceId} in ${dbFile}`);
    return row;
  } finally {
    db.close();
  }
}

const without = (value: unknown, keys: readonly string[]) =>
  Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([k]) => !keys.includes(k)));

/**
 * The floor's create answered as Cusp's did, but for `ignore` (the new
 * record's id and times, and whatever the two requests meant to differ in);
 * its audit row as Cusp's (the same columns, its snapshot likewise), and its
 * audit index row in the control database. Throws at the first difference.
 */
export function assertSameWrite(
  row: string,
  dataDir: string,
  orgId: string,
  cusp: Record<string, unknown>,
  floor: Record<string, unknown>,
  ignore: readonly string[],
) {
  const keys = ["id", "uuid", "created_at", "updated_at", ...ignore];
  const d = difference(without(cusp, keys), without(floor, keys));
  if (d) throw new Error(`(${row}) the floor's answer differs from Cusp's: ${d}`);
  const dbFile = orgDbFile(dataDir, orgId);
  const [a, b] = [auditRowOf(dbFile, cusp.id as string), auditRowOf(dbFile, floor.id as string)];
  // the entry's own id, request and time differ; index_pending is cleared by the writer's next write
  const own = ["id", "resource_id", "request_id", "created_at", "index_pending", "before", "after"];
  const snapshot = (s: string | null) => (s === null ? null : without(JSON.parse(s), keys));
  const da =
    difference(without(a, own), without(b, own)) || difference(snapshot(a.before), snapshot(b.before)) || difference(snapshot(a.after), snapshot(b.after));
  if (da) throw new Error(`(${row}) the floor's audit row differs from Cusp's: ${da}`);
  const control = new Database(join(dataDir, "control.db"), { readonly: true });
  try {
    const indexed = control.query("SELECT org_id FROM audit_index WHERE id = ?").get(b.id) as { org_id: string } | null;
    if (indexed?.org_id !== orgId) throw new Error(`(${row}) the floor's audit entry ${b.id} is not in the control database's audit index`);
  } finally {
    control.close();
  }
  console.log(`  (${row}) the floor's create answers as Cusp's, with the same audit row and index row`);
}
