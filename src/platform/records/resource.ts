import { and, count, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { getPrepared, prepared, type Work } from "@/platform/db/work";
import { insertRow, updateRowById } from "@/platform/db/prepared-writes";
import { newId } from "@/platform/ids";
import { NotFound } from "@/platform/errors";
import { audit } from "@/platform/audit/audit";
import type { TenantDb, TxScope } from "./context";
import type { OrgDatabase } from "@/platform/db/org-databases";
import type { Maybe } from "@/platform/async/maybe";
import type { PendingEvent } from "@/platform/events/envelope";
import { pageFrom, type Page, type Paging } from "./paging";
import { checkVersion, updatedOrConflict } from "./versions";
import { emit } from "./events";

type Row = { id: string; version: number; created_at: string; updated_at: string; deleted_at?: string | null } & Record<string, unknown>;

export type ResourceTable = SQLiteTable & {
  id: SQLiteColumn;
  version: SQLiteColumn;
  updated_at: SQLiteColumn;
  deleted_at?: SQLiteColumn;
};

export type ResourceOptions<R extends Row, Out> = {
  table: ResourceTable;
  /** singular snake_case name: audit resource_type and event prefix */
  name: string;
  /** human name for 404 messages */
  label: string;
  serialize: (row: R) => Out;
  /** the location (practice) an event belongs to, when one applies */
  practiceId?: (row: R) => string | null;
  /**
   * How update events name changed columns, where the API's name differs:
   * `rename` maps a column to its API field (null leaves it out, e.g. a UTC
   * copy that travels with its wall-clock field); `stripIdSuffix` names
   * reference columns as the API does (`operatory_id` -> `operatory`).
   */
  eventFields?: { rename?: Record<string, string | null>; stripIdSuffix?: boolean };
  /** Actions that are also another event, e.g. `{ checked_in: ["status_changed"] }`: the same data under both types. */
  eventAliases?: Record<string, readonly string[]>;
};

/**
 * How an update is reported: `action` names the audit action and event verb
 * (`event` overrides the verb); `eventData` joins the event's data (it may
 * replace `changed_fields`; `changedFields: false` leaves them out);
 * `practiceId` overrides the table's practice rule.
 */
export type UpdateOptions = {
  action?: string;
  /** The event verb (default: the action); false: audited, but no event (a step of a process that reports once, at its end). */
  event?: string | false;
  includeDeleted?: boolean;
  eventData?: Record<string, unknown>;
  changedFields?: false;
  practiceId?: string | null;
};

// each definition's kept answers get their own key space, whatever its name
let definitions = 0;

const changedColumns = (before: Record<string, unknown>, after: Record<string, unknown>) =>
  Object.keys(after).filter((k) => !["version", "updated_at"].includes(k) && JSON.stringify(before[k]) !== JSON.stringify(after[k]));

/** The changed columns under their API names (ResourceOptions.eventFields), each once. */
function apiFieldNames(columns: string[], fields: ResourceOptions<any, any>["eventFields"]): string[] {
  if (!fields) return columns;
  const out = new Set<string>();
  for (const c of columns) {
    const name = fields.rename && c in fields.rename ? fields.rename[c] : fields.stripIdSuffix && c.endsWith("_id") ? c.slice(0, -3) : c;
    if (name) out.add(name);
  }
  return [...out];
}

/**
 * The shared record mechanics every domain uses: create with id and version 1,
 * optimistic updates on `base_version`, soft delete and archive, audit rows in
 * the same transaction, and events after commit. Domains add their own rules.
 */
export function defineResource<R extends Row, Out extends Record<string, unknown>>(opts: ResourceOptions<R, Out>) {
  const t = opts.table as any;
  const notDeleted = t.deleted_at ? isNull(t.deleted_at) : undefined;
  const practice = (row: R) => opts.practiceId?.(row) ?? null;

  // the hottest query of every domain: compiled once per connection
  const byId = prepared<R>((db) =>
    db
      .select()
      .from(t)
      .where(notDeleted ? and(eq(t.id, sql.placeholder("id")), notDeleted) : eq(t.id, sql.placeholder("id")))
      .prepare(),
  );
  const byIdAny = prepared<R>((db) =>
    db
      .select()
      .from(t)
      .where(eq(t.id, sql.placeholder("id")))
      .prepare(),
  );

  function find(db: TenantDb, id: string, includeDeleted = false): Work<R | undefined> {
    return getPrepared(db, includeDeleted ? byIdAny : byId, { id });
  }

  // find hands back getPrepared's own generator, so `yield* find` adds no level
  function* require(db: TenantDb, id: string, includeDeleted = false): Work<R> {
    const row = yield* find(db, id, includeDeleted);
    if (!row) throw new NotFound(opts.label);
    return row;
  }

  /** The record a write applies to: 404 when missing, then 409 on a stale base_version (before any rule is judged). */
  function* requireCurrent(db: TenantDb, id: string, baseVersion: number | undefined, includeDeleted = false): Work<R> {
    const row = yield* require(db, id, includeDeleted);
    checkVersion(row, baseVersion);
    return row;
  }

  const keptKey = `${opts.name}#${++definitions}:`;
  function* serialized(db: TenantDb, id: string): Work<Out> {
    return opts.serialize(yield* require(db, id));
  }

  /**
   * The by-id GET of a plain resource: the serialized record (404 when missing
   * or archived), kept while the org's database is unchanged. Only for
   * resources whose `serialize` reads nothing but the row.
   */
  function read(database: OrgDatabase, id: string): Maybe<Out> {
    return database.readKept(keptKey + id, (db) => serialized(db, id));
  }

  function* list(
    db: TenantDb,
    paging: Paging,
    filter: { where?: (SQL | undefined)[]; orderBy?: (SQL | SQLiteColumn)[]; includeDeleted?: boolean } = {},
  ): Work<Page<R>> {
    const conds = [...(filter.where ?? [])];
    if (!filter.includeDeleted && notDeleted) conds.push(notDeleted);
    const where = conds.length ? and(...conds) : undefined;
    return (yield* pageFrom(
      paging,
      db.select({ n: count() }).from(t).where(where),
      db
        .select()
        .from(t)
        .where(where)
        .orderBy(...((filter.orderBy as SQL[]) ?? [t.id])),
    )) as Page<R>;
  }

  /** An event `<name>.<verb>`, and the same under each alias the definition declares for the verb. */
  function emitAs(scope: TxScope, verb: string, event: Omit<PendingEvent, "type">) {
    emit(scope, { type: `${opts.name}.${verb}`, ...event });
    for (const alias of opts.eventAliases?.[verb] ?? []) emit(scope, { type: `${opts.name}.${alias}`, ...event });
  }

  /** `eventData` joins the event's data; `practiceId` overrides the table's own practice rule (e.g. a patient's location). */
  function* create(scope: TxScope, values: Partial<R>, eventData: Record<string, unknown> = {}, practiceId?: string | null): Work<R> {
    const row = { ...values, id: (values.id as string) ?? newId(), version: 1, created_at: scope.now, updated_at: scope.now } as R;
    const inserted = yield* insertRow<R>(scope.tx, t, row as Record<string, unknown>, { returning: true });
    yield* audit(scope, { action: `${opts.name}.created`, resource_type: opts.name, resource_id: inserted.id, before: null, after: opts.serialize(inserted) });
    emitAs(scope, "created", {
      resource_type: opts.name,
      resource_id: inserted.id,
      practice_id: practiceId !== undefined ? practiceId : practice(inserted),
      data: { id: inserted.id, ...eventData },
    });
    return inserted;
  }

  /** Apply a patch when `baseVersion` is current; 404 when missing, 409 when stale. */
  function* update(scope: TxScope, id: string, baseVersion: number | undefined, patch: Partial<R>, opts2: UpdateOptions = {}): Work<R> {
    const before = yield* requireCurrent(scope.tx, id, baseVersion, opts2.includeDeleted);
    const next = { ...patch, version: before.version + 1, updated_at: scope.now };
    const updated = updatedOrConflict(yield* updateRowById<R>(scope.tx, t, id, next, before.version));
    const action = opts2.action ?? "updated";
    yield* audit(scope, {
      action: `${opts.name}.${action}`,
      resource_type: opts.name,
      resource_id: id,
      before: opts.serialize(before),
      after: opts.serialize(updated),
    });
    if (opts2.event === false) return updated;
    const changes = opts2.changedFields === false ? {} : { changed_fields: apiFieldNames(changedColumns(before, updated), opts.eventFields) };
    emitAs(scope, opts2.event ?? action, {
      resource_type: opts.name,
      resource_id: id,
      practice_id: opts2.practiceId !== undefined ? opts2.practiceId : practice(updated),
      data: { id, ...changes, ...opts2.eventData },
    });
    return updated;
  }

  /** Archive / soft delete: sets deleted_at (idempotent for already-archived rows when allowed). */
  function* archive(scope: TxScope, id: string, baseVersion?: number, action = "archived"): Work<R> {
    return yield* update(scope, id, baseVersion, { deleted_at: scope.now } as Partial<R>, { action });
  }

  return {
    table: opts.table,
    name: opts.name,
    label: opts.label,
    serialize: opts.serialize,
    find,
    require,
    requireCurrent,
    read,
    list,
    create,
    update,
    archive,
  };
}
