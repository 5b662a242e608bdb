import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN } from "@tests/helpers";
import { startServer, type ServerProcess } from "@tests/support/server-process";
import { waitFor } from "@tests/support/wait";

// Crash safety (issue 14): the real service process is killed with SIGKILL while
// many writes to several org databases are in flight, then started again on the
// same DATA_DIR. Every database must pass integrity_check, every write that was
// answered 2xx must be there with the answered values, and the org audit trail
// must match the records exactly (no entry without its write, no write without
// its entry). Requests cut off by the kill are unknown outcomes: either is fine.

const ORGS = 4;
const WRITERS = 12;
/** The kill comes once this many writes were acknowledged (or after KILL_DEADLINE_MS)... */
const KILL_AFTER_ACKS = 600;
const KILL_DEADLINE_MS = 10_000;
/** ...and the checks mean something only if at least this many were. */
const MIN_ACKS = 50;
const TIMEZONES = ["America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles"];

type Kind = "location" | "patient";
const TABLE: Record<Kind, string> = { location: "locations", patient: "patients" };

/** A record written by one writer loop (only that loop patches it, so its versions are known). */
type Tracked = {
  org: string;
  kind: Kind;
  id: string;
  /** The last acknowledged version, and the values acknowledged with it. */
  version: number;
  fields: Record<string, unknown>;
  /** A PATCH the kill cut off: it may or may not have committed. */
  pending?: { version: number; fields: Record<string, unknown> };
};

const dataDir = mkdtempSync(join(tmpdir(), "cusp-crash-"));
const imageDir = mkdtempSync(join(tmpdir(), "cusp-crash-image-"));
const servers: ServerProcess[] = [];
const orgIds: string[] = [];
const tracked: Tracked[] = [];
let token = "";
let restarted: ServerProcess | undefined;
const stats = { acks: 0, creates: 0, patches: 0, interrupted: 0, startMs: 0, restartMs: 0, writeMs: 0 };

const orgFile = (dir: string, orgId: string) => join(dir, "shards", "local", `${orgId}.db`);

afterAll(async () => {
  for (const s of servers) await s.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(imageDir, { recursive: true, force: true });
});

type Answer = { status: number; body: any } | null;

/** One JSON request; null when no answer came (connection refused or cut). */
async function call(base: string, method: string, path: string, body?: unknown): Promise<Answer> {
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  } catch {
    return null;
  }
}

/** Why a stored record does not match what was acknowledged (null when it does). */
function mismatch(t: Tracked, actual: Record<string, unknown> | null | undefined): string | null {
  if (!actual) return `${t.kind} ${t.id} (org ${t.org}, acknowledged at version ${t.version}) is missing`;
  const candidates = [{ version: t.version, fields: t.fields }, ...(t.pending ? [t.pending] : [])];
  const same = candidates.find((c) => c.version === actual.version);
  if (!same) return `${t.kind} ${t.id} is at version ${actual.version}, acknowledged ${t.version}${t.pending ? ` (or cut-off ${t.pending.version})` : ""}`;
  for (const [k, v] of Object.entries(same.fields))
    if (actual[k] !== v) return `${t.kind} ${t.id} v${actual.version}: ${k} is ${JSON.stringify(actual[k])}, expected ${JSON.stringify(v)}`;
  return null;
}

/**
 * The org trail against the records, for the kinds written here: an entry for a
 * missing record, a record without its `<kind>.created` entry, or a record whose
 * entries do not cover exactly versions 1..version (one entry per committed write).
 */
function auditProblems(db: Database): string[] {
  const problems: string[] = [];
  for (const kind of Object.keys(TABLE) as Kind[]) {
    const table = TABLE[kind];
    for (const r of db
      .query(
        `SELECT a.id, a.action, a.resource_id FROM audit_entries a WHERE a.resource_type = ? AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.id = a.resource_id)`,
      )
      .all(kind) as { id: string; action: string; resource_id: string }[])
      problems.push(`audit entry ${r.id} (${r.action}) names ${kind} ${r.resource_id}, which does not exist`);
    for (const r of db
      .query(`SELECT t.id FROM ${table} t WHERE NOT EXISTS (SELECT 1 FROM audit_entries a WHERE a.resource_type = ? AND a.resource_id = t.id AND a.action = ?)`)
      .all(kind, `${kind}.created`) as { id: string }[])
      problems.push(`${kind} ${r.id} has no ${kind}.created audit entry`);
    for (const r of db
      .query(
        `SELECT t.id, t.version, COUNT(a.id) AS entries, COUNT(DISTINCT json_extract(a."after", '$.version')) AS versions,
                MIN(json_extract(a."after", '$.version')) AS lo, MAX(json_extract(a."after", '$.version')) AS hi
           FROM ${table} t JOIN audit_entries a ON a.resource_type = ? AND a.resource_id = t.id
          GROUP BY t.id, t.version
         HAVING entries != t.version OR versions != t.version OR lo != 1 OR hi != t.version`,
      )
      .all(kind) as { id: string; version: number; entries: number; versions: number; lo: number; hi: number }[])
      problems.push(
        `${kind} ${r.id} is at version ${r.version} but has ${r.entries} audit entries covering versions ${r.lo}..${r.hi} (${r.versions} distinct)`,
      );
  }
  return problems;
}

/** The platform audit index (control database) names only entries the org trail holds, and holds every acknowledged one. */
function indexProblems(control: Database, orgDbs: Map<string, Database>): string[] {
  const problems: string[] = [];
  for (const [orgId, db] of orgDbs) {
    const indexed = new Set(
      (
        control.query(`SELECT id FROM audit_index WHERE org_id = ? AND resource_type IN ('location', 'patient')`).all(orgId) as {
          id: string;
        }[]
      ).map((r) => r.id),
    );
    const exists = db.query("SELECT 1 FROM audit_entries WHERE id = ?");
    for (const id of indexed) if (!exists.get(id)) problems.push(`audit_index entry ${id} (org ${orgId}) is not in the org's audit trail`);
    const acked = db.query(`SELECT id FROM audit_entries WHERE resource_id = ? AND json_extract("after", '$.version') <= ?`);
    for (const t of tracked.filter((x) => x.org === orgId))
      for (const r of acked.all(t.id, t.version) as { id: string }[])
        if (!indexed.has(r.id)) problems.push(`acknowledged write ${r.id} to ${t.kind} ${t.id} is missing from audit_index`);
  }
  return problems;
}

function integrity(db: Database): string[] {
  return (db.query("PRAGMA integrity_check").all() as { integrity_check: string }[]).map((r) => r.integrity_check);
}

/** Opens the control database and every org database under `dir`, runs `check`, closes them. */
function withDatabases<T>(dir: string, readonly: boolean, check: (control: Database, orgDbs: Map<string, Database>) => T): T {
  const open = (path: string) => {
    if (!existsSync(path)) throw new Error(`${path} does not exist`);
    return new Database(path, readonly ? { readonly: true } : { readwrite: true });
  };
  const control = open(join(dir, "control.db"));
  const orgDbs = new Map(orgIds.map((id) => [id, open(orgFile(dir, id))]));
  try {
    return check(control, orgDbs);
  } finally {
    for (const db of orgDbs.values()) db.close();
    control.close();
  }
}

describe("crash safety: SIGKILL during concurrent writes to several org databases", () => {
  test("writes are acknowledged while the process is killed mid-flight", async () => {
    let t0 = Date.now();
    const server = await startServer(dataDir);
    servers.push(server);
    stats.startMs = Date.now() - t0;
    const base = server.base;

    const login = await fetch(`${base}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ADMIN),
    });
    expect(login.status).toBe(200);
    token = ((await login.json()) as { access_token: string }).access_token;
    for (let i = 0; i < ORGS; i++) {
      const slug = `crash-${i}-${Date.now().toString(36)}`;
      const r = await call(base, "POST", "/api/v1/admin/orgs", { name: `Crash Org ${i}`, slug });
      expect(r?.status).toBe(201);
      orgIds.push(r!.body.id);
    }

    let killed = false;
    const unexpected: string[] = [];

    /** One writer: creates in its org, and every third request patches one of its own records. */
    async function writer(loop: number) {
      const org = orgIds[loop % ORGS]!;
      const mine: Tracked[] = [];
      for (let n = 0; !killed; n++) {
        const target = n % 3 === 2 && mine.length > 0 ? mine[Math.floor(n / 3) % mine.length] : undefined;
        let method: string;
        let path: string;
        let body: Record<string, unknown>;
        let fields: Record<string, unknown>;
        const kind: Kind = target?.kind ?? (n % 2 === 0 ? "location" : "patient");
        if (target) {
          fields =
            kind === "location"
              ? { ...target.fields, name: `Loc ${loop}-${n} v${target.version + 1}`, city: `City ${n}` }
              : { ...target.fields, city: `Town ${loop}-${n}`, preferred_name: `Pref ${target.version + 1}` };
          const { timezone: _tz, first_name: _f, last_name: _l, ...changed } = fields;
          method = "PATCH";
          path = `/api/v1/${org}/${TABLE[kind]}/${target.id}`;
          body = { base_version: target.version, ...changed };
          target.pending = { version: target.version + 1, fields };
        } else {
          fields =
            kind === "location"
              ? { name: `Loc ${loop}-${n}`, timezone: TIMEZONES[n % TIMEZONES.length], city: `City ${n}` }
              : { first_name: `Crash${loop}n${n}`, last_name: `Tester${loop}x${n}`, city: `Town ${loop}-${n}`, preferred_name: null };
          method = "POST";
          path = `/api/v1/${org}/${TABLE[kind]}`;
          body = fields;
        }
        const answer = await call(base, method, path, body);
        if (!answer) {
          if (killed) stats.interrupted++;
          else unexpected.push(`${method} ${path}: no answer before the kill`);
          return;
        }
        if (answer.status < 200 || answer.status > 299) {
          unexpected.push(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
          return;
        }
        stats.acks++;
        if (target) {
          expect(answer.body.version).toBe(target.version + 1);
          target.version++;
          target.fields = fields;
          target.pending = undefined;
          stats.patches++;
        } else {
          expect(answer.body.version).toBe(1);
          const t: Tracked = { org, kind, id: answer.body.id, version: 1, fields };
          mine.push(t);
          tracked.push(t);
          stats.creates++;
        }
      }
    }

    t0 = Date.now();
    const writers = Array.from({ length: WRITERS }, (_, i) => writer(i));
    await waitFor(() => stats.acks >= KILL_AFTER_ACKS || unexpected.length > 0 || Date.now() - t0 > KILL_DEADLINE_MS, {
      timeoutMs: KILL_DEADLINE_MS + 5_000,
      intervalMs: 1,
    });
    // SIGKILL: no shutdown hook, no checkpoint, no flush; whatever is in flight is cut off
    killed = true;
    server.proc.kill("SIGKILL");
    expect(await server.exited).not.toBe(0);
    await Promise.all(writers);
    stats.writeMs = Date.now() - t0;

    expect(unexpected).toEqual([]);
    expect(stats.acks).toBeGreaterThanOrEqual(MIN_ACKS);
    expect(stats.patches).toBeGreaterThan(0);
    for (const id of orgIds) expect(tracked.some((t) => t.org === id)).toBe(true);
  }, 120_000);

  test("the crash image (files as the killed process left them) is intact, complete and audited", () => {
    // A copy of the files (database and WAL, not the shared-memory index), so the
    // recovery SQLite runs on opening it leaves the server's own files untouched.
    const copy = (from: string, to: string) => {
      mkdirSync(join(to, ".."), { recursive: true });
      copyFileSync(from, to);
      if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`);
    };
    copy(join(dataDir, "control.db"), join(imageDir, "control.db"));
    for (const id of orgIds) copy(orgFile(dataDir, id), orgFile(imageDir, id));

    withDatabases(imageDir, false, (control, orgDbs) => {
      expect(integrity(control)).toEqual(["ok"]);
      const problems: string[] = [];
      for (const [orgId, db] of orgDbs) {
        expect({ org: orgId, integrity: integrity(db) }).toEqual({ org: orgId, integrity: ["ok"] });
        expect({ org: orgId, foreignKeys: db.query("PRAGMA foreign_key_check").all() }).toEqual({ org: orgId, foreignKeys: [] });
        for (const t of tracked.filter((x) => x.org === orgId)) {
          const m = mismatch(t, db.query(`SELECT * FROM ${TABLE[t.kind]} WHERE id = ?`).get(t.id) as Record<string, unknown> | null);
          if (m) problems.push(m);
        }
        problems.push(...auditProblems(db));
      }
      problems.push(...indexProblems(control, orgDbs));
      expect(problems).toEqual([]);
    });
  });

  test("the restarted service answers every acknowledged write with its acknowledged values, and takes new writes", async () => {
    const t0 = Date.now();
    restarted = await startServer(dataDir);
    servers.push(restarted);
    stats.restartMs = Date.now() - t0;
    const base = restarted.base;

    const problems: string[] = [];
    const queue = [...tracked];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let t = queue.pop(); t; t = queue.pop()) {
          const r = await call(base, "GET", `/api/v1/${t.org}/${TABLE[t.kind]}/${t.id}`);
          if (r?.status !== 200) problems.push(`GET ${t.kind} ${t.id}: ${r ? `${r.status} ${JSON.stringify(r.body)}` : "no answer"}`);
          else {
            const m = mismatch(t, r.body);
            if (m) problems.push(m);
          }
        }
      }),
    );
    expect(problems).toEqual([]);

    // (d) every org takes new writes: a create, a patch on it, and both read back
    for (const org of orgIds) {
      const created = await call(base, "POST", `/api/v1/${org}/locations`, { name: "After the crash", timezone: "UTC" });
      expect(created?.status).toBe(201);
      const patched = await call(base, "PATCH", `/api/v1/${org}/locations/${created!.body.id}`, { base_version: 1, city: "Recovered" });
      expect(patched?.status).toBe(200);
      const read = await call(base, "GET", `/api/v1/${org}/locations/${created!.body.id}`);
      expect(read?.body).toMatchObject({ name: "After the crash", city: "Recovered", version: 2 });
    }
  }, 120_000);

  test("after a graceful stop every database passes integrity_check and the audit trail matches the records", async () => {
    expect(restarted).toBeDefined();
    expect(await restarted!.kill("SIGTERM")).toBe(0);
    withDatabases(dataDir, true, (control, orgDbs) => {
      expect(integrity(control)).toEqual(["ok"]);
      const problems: string[] = [];
      for (const [orgId, db] of orgDbs) {
        expect({ org: orgId, integrity: integrity(db) }).toEqual({ org: orgId, integrity: ["ok"] });
        problems.push(...auditProblems(db));
        const afterCrash = db.query(`SELECT COUNT(*) AS n FROM locations WHERE name = 'After the crash'`).get() as { n: number };
        expect(afterCrash.n).toBe(1);
      }
      problems.push(...indexProblems(control, orgDbs));
      expect(problems).toEqual([]);
    });
    console.log(
      `crash-safety: ${stats.acks} writes acknowledged (${stats.creates} creates, ${stats.patches} patches) over ${ORGS} orgs in ${stats.writeMs} ms, ` +
        `${stats.interrupted} cut off by SIGKILL; first start ${stats.startMs} ms, restart ${stats.restartMs} ms`,
    );
  }, 60_000);
});
