import { and, asc, count, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { locations, providers } from "@db/tenant/practice";
import { patients, patientTags, tagDefinitions } from "@db/tenant/patients";
import { all, allPrepared, get, type PreparedDef, type Work } from "@/platform/db/work";
import { NotFound, ValidationFailed } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { offsetOf, pageOf } from "@/platform/records/paging";
import { PATIENT_STATUSES, type PatientListQuery } from "./schemas";
import { patientFrom, preparedRows } from "./rows";
import { hasNameReading, inline, searchCondition, type Bind } from "./search";
import { ftsLookupOf } from "@/platform/db/search-index";
import { nameIndexOf, type NameIndex } from "./name-index";
import type { WithSubquery } from "drizzle-orm";
import { refNames, serializePatient, type PatientRow } from "./service";

// The patient list and search (GET /patients, a benchmarked hot path): the
// filter letting the fewest rows through drives, and a search with few
// candidates is answered by one prepared statement.

/** Sort keys (then id) and the index that yields them in order (db/tenant/patients.ts). */
const SORTS: Record<PatientListQuery["sort_by"], { columns: SQLiteColumn[]; index: string }> = {
  last_name: { columns: [patients.last_name, patients.first_name], index: "patients_name_idx" },
  first_name: { columns: [patients.first_name, patients.last_name], index: "patients_first_name_idx" },
  chart_number: { columns: [patients.chart_number], index: "patients_chart_idx" },
  created_at: { columns: [patients.created_at], index: "patients_created_idx" },
  date_of_birth: { columns: [patients.date_of_birth], index: "patients_dob_idx" },
  status: { columns: [patients.status, patients.last_name, patients.first_name], index: "patients_status_name_idx" },
};

/** Filters referring to records that do not exist answer 404 (archived ones still filter). */
function* checkFilterRefs(db: TenantDb, q: PatientListQuery): Work<void> {
  if (q.primary_provider_uuid && !(yield* get(db.select({ id: providers.id }).from(providers).where(eq(providers.id, q.primary_provider_uuid))))) {
    throw new NotFound("Provider");
  }
  if (q.location_uuid && !(yield* get(db.select({ id: locations.id }).from(locations).where(eq(locations.id, q.location_uuid))))) {
    throw new NotFound("Location");
  }
  if (q.tag_definition_uuid && !(yield* get(db.select({ id: tagDefinitions.id }).from(tagDefinitions).where(eq(tagDefinitions.id, q.tag_definition_uuid))))) {
    throw new NotFound("Tag definition");
  }
}

/**
 * One filter written three ways: `indexed` lets SQLite drive the query from an
 * index; `plain` (unary +) is only checked row by row; `candidates` counts the
 * rows the filter alone lets through, from its index only. The filter with the
 * fewest candidates drives and the others are checked row by row, so the plan
 * never depends on table statistics (org databases have none: nobody runs
 * ANALYZE on them) and stays fast at 100,000 patients.
 */
type Filter = { indexed: SQL; plain: SQL; candidates: (db: TenantDb) => Work<number>; notArchived?: true; search?: { key: string; sets: SQL[] } };

function* countWhere(db: TenantDb, where: SQL | undefined): Work<number> {
  return (yield* get(db.select({ n: count() }).from(patients).where(where)))?.n ?? 0;
}

const NOT_ARCHIVED = PATIENT_STATUSES.filter((st) => st !== "archived").map((st) => sql`${st}`);

/** The list's filters (values through `bind`); the status filter (always present) comes last. */
function listFilters(q: PatientListQuery, bind: Bind, handle: unknown, names?: NameIndex): Filter[] {
  const out: Filter[] = [];
  const add = (indexed: SQL, plain: SQL) => out.push({ indexed, plain, candidates: (db) => countWhere(db, indexed) });
  const term = q.search || q.query;
  if (term) {
    const { key, sets, rows, distinct } = searchCondition(term, bind, handle, names);
    out.push({
      search: { key, sets },
      indexed: sql`${patients}.rowid IN ${rows}`,
      plain: sql`+${patients}.rowid IN ${rows}`,
      candidates: function* (db) {
        // counted in the search indexes alone
        return (yield* get(db.select({ n: count() }).from(sql`${distinct} AS matches`)))?.n ?? 0;
      },
    });
  }
  if (q.tag_definition_uuid) {
    const tagged = sql`(SELECT ${patientTags.patient_id} FROM ${patientTags} WHERE ${patientTags.tag_definition_id} = ${bind(q.tag_definition_uuid)})`;
    add(sql`${patients.id} IN ${tagged}`, sql`+${patients.id} IN ${tagged}`);
  }
  const equal = (col: SQLiteColumn, v: string) => {
    const value = bind(v);
    add(sql`${col} = ${value}`, sql`+${col} = ${value}`);
  };
  if (q.primary_provider_uuid) equal(patients.primary_provider_id, q.primary_provider_uuid);
  if (q.location_uuid) equal(patients.location_id, q.location_uuid);
  if (q.dob_from || q.dob_to) {
    const from = q.dob_from ? bind(q.dob_from) : undefined;
    const to = q.dob_to ? bind(q.dob_to) : undefined;
    const range = (plus: boolean) => {
      const col = plus ? sql`+${patients.date_of_birth}` : sql`${patients.date_of_birth}`;
      const parts = [from ? sql`${col} >= ${from}` : undefined, to ? sql`${col} <= ${to}` : undefined];
      return sql.join(
        parts.filter((x): x is SQL => !!x),
        sql` AND `,
      );
    };
    add(range(false), range(true));
  }
  // archived <=> status archived (and deleted_at set): archived patients appear only when asked for
  if (q.status) equal(patients.status, q.status);
  else {
    out.push({
      indexed: sql`${patients.status} IN (${sql.join(NOT_ARCHIVED, sql`, `)})`,
      plain: sql`+${patients.status} IN (${sql.join(NOT_ARCHIVED, sql`, `)})`,
      // every row minus the (few) archived ones: two cheap covering-index counts
      candidates: function* (db) {
        return (yield* countWhere(db, undefined)) - (yield* countWhere(db, eq(patients.status, "archived")));
      },
      notArchived: true,
    });
  }
  return out;
}

const whereOf = (filters: Filter[], driver: number | null) => and(...filters.map((f, i) => (i === driver ? f.indexed : f.plain)));

/**
 * The exact number of matches; `counts` are the filters' candidates and the
 * first filter drives. The usual shape, one filter plus "not archived", is its
 * candidates minus its archived rows, which the status index finds at once.
 */
function* countMatches(db: TenantDb, filters: Filter[], counts: number[]): Work<number> {
  if (filters.length === 1) return counts[0]!;
  if (filters.length === 2) {
    const other = filters[0]!.notArchived ? 1 : filters[1]!.notArchived ? 0 : -1;
    if (other >= 0) return counts[other]! - (yield* countWhere(db, and(filters[other]!.plain, eq(patients.status, "archived"))));
  }
  return yield* countWhere(db, whereOf(filters, 0));
}

/**
 * The shape of a search list: the SQL text of its statement depends on these
 * only, never on the values. The page size is written into the statement
 * (SQLite sorts a literal LIMIT ~40 µs faster than a bound one).
 */
function searchShapeKey(q: PatientListQuery, searchKey: string): string {
  return [
    searchKey,
    q.page_size,
    q.tag_definition_uuid ? "t" : "",
    q.primary_provider_uuid ? "p" : "",
    q.location_uuid ? "l" : "",
    q.dob_from ? "f" : "",
    q.dob_to ? "u" : "",
    q.status ? "s" : "",
    q.sort_by,
    q.sort_dir,
  ].join("|");
}

type SearchPageRow = { candidates: number; total: number | null; row: PatientRow | null };

/**
 * Prepared search statements by shape key (readings x filters x sort x page
 * size). Each connection keeps the statements it ran for good, so past this
 * many shapes a new one is compiled for the request only.
 */
const searchPages = new Map<string, PreparedDef<SearchPageRow>>();
const MAX_SEARCH_SHAPES = 500;

/**
 * A search's page in one statement, running the name (and other) index
 * lookups once: `m` holds the matching rowids, `c` counts them (the search's
 * candidates), and when they are few (<= SORT_IN_MEMORY_MAX) `k` checks the
 * other filters on each, counts and sorts them and keeps the page, whose rows
 * are joined in. One row with a null total when the page is empty or the
 * candidates are too many to sort. `k` walks `m` and looks each patient up by
 * rowid (CROSS JOIN fixes that order): never a pass over the patients table,
 * which the sync engine's planner would make for `rowid IN m` (docs/platform/edge-replicas.md).
 *
 * On a replicated database (`syncEngine`: the sync engine runs it) the same
 * answer is written the way that engine runs fast (measured on 1,000
 * patients: 62 µs against 1.46 ms): `m` as DISTINCT over UNION ALL (its
 * compound UNION is slow), and the total counted from `f`, the filtered
 * matches, instead of a window function.
 */
function searchPageQuery(db: TenantDb, q: PatientListQuery, filters: Filter[], sets: SQL[], syncEngine: boolean) {
  const columns = [...SORTS[q.sort_by].columns, patients.id];
  const dir = q.sort_dir === "desc" ? sql` DESC` : sql` ASC`;
  const inner = sql.join(
    columns.map((c) => sql`+${c}${dir}`),
    sql`, `,
  );
  const outer = sql.join(
    columns.map((c) => sql`${c}${dir}`),
    sql`, `,
  );
  const others = filters.slice(1).map((f) => sql` AND ${f.plain}`);
  const page = sql`ORDER BY ${inner} LIMIT ${sql.raw(String(q.page_size))} OFFSET ${sql.placeholder("offset")}`;
  const few = sql`(SELECT n FROM "c") <= ${sql.raw(String(SORT_IN_MEMORY_MAX))}`;
  const m = db
    .$with("m", { rowid: sql<number>`rowid`.as("rowid") })
    .as(syncEngine ? sql`SELECT DISTINCT rowid FROM (${sql.join(sets, sql` UNION ALL `)})` : sql.join(sets, sql` UNION `));
  const c = db.$with("c", { n: sql<number>`n`.as("n") }).as(sql`SELECT count(*) AS n FROM "m"`);
  const kColumns = { rid: sql<number>`rid`.as("rid"), total: sql<number>`total`.as("total") };
  let ctes: WithSubquery[];
  let k;
  if (syncEngine) {
    const f = db
      .$with("f", { rid: sql<number>`rid`.as("rid") })
      .as(sql`SELECT ${patients}.rowid AS rid FROM "m" CROSS JOIN ${patients} ON ${patients}.rowid = "m".rowid WHERE ${few}${sql.join(others)}`);
    const t = db.$with("t", { total: sql<number>`total`.as("total") }).as(sql`SELECT count(*) AS total FROM "f"`);
    k = db
      .$with("k", kColumns)
      .as(sql`SELECT "f".rid AS rid, (SELECT total FROM "t") AS total FROM "f" CROSS JOIN ${patients} ON ${patients}.rowid = "f".rid ${page}`);
    ctes = [m, c, f, t, k];
  } else {
    k = db
      .$with("k", kColumns)
      .as(
        sql`SELECT ${patients}.rowid AS rid, count(*) OVER () AS total FROM "m" CROSS JOIN ${patients} ON ${patients}.rowid = "m".rowid WHERE ${few}${sql.join(others)} ${page}`,
      );
    ctes = [m, c, k];
  }
  return db
    .with(...ctes)
    .select({ candidates: c.n, total: k.total, row: patients })
    .from(c)
    .leftJoin(k, sql`1`)
    .leftJoin(patients, sql`${patients}.rowid = ${k.rid}`)
    .orderBy(outer);
}

/** Up to this many candidates the page is sorted from the driving filter's rows; above, read in index order. */
const SORT_IN_MEMORY_MAX = 5_000;

export async function listPatients(ctx: OrgContext, q: PatientListQuery) {
  if (q.dob_from && q.dob_to && q.dob_from > q.dob_to) {
    throw new ValidationFailed([{ loc: ["query", "dob_to"], msg: "Must not be before dob_from", type: "value_error" }]);
  }
  const sort = SORTS[q.sort_by];
  const columns = [...sort.columns, patients.id];
  const offset = offsetOf(q);
  const rowid = sql<number>`${patients}.rowid`;
  const term = q.search || q.query;
  // a replicated database's search statement is written for the sync engine (searchPageQuery),
  // and its names are found in its derived FTS index; elsewhere in the org's in-memory name index
  const syncEngine = !!ftsLookupOf(ctx.db);
  const nameIndex = term && !syncEngine && hasNameReading(term) ? nameIndexOf(ctx.db) : undefined;
  // the filters with their values inline, for every list but a search answered by its one statement
  let inlineFilters: Filter[] | undefined;
  const filtersInline = () => (inlineFilters ??= listFilters(q, inline, ctx.db, nameIndex));
  /** A search: its filters again, with placeholders, for the prepared one-statement page (after the name index caught up). */
  const searchStatement = () => {
    const params: Record<string, unknown> = { offset };
    let n = 0;
    const bind: Bind = (value) => {
      const name = `v${n++}`;
      params[name] = value;
      return sql`${sql.placeholder(name)}`;
    };
    const bound = listFilters(q, bind, ctx.db, nameIndex);
    const { key, sets } = bound[0]!.search!;
    const shape = searchShapeKey(q, key);
    let def = searchPages.get(shape);
    if (!def && searchPages.size < MAX_SEARCH_SHAPES) {
      def = preparedRows<SearchPageRow>(
        (db) => searchPageQuery(db, q, bound, sets, syncEngine).prepare(),
        (v) => ({
          candidates: v[0] as number,
          total: v[1] as number | null,
          row: v[2] === null ? null : patientFrom(v, 2),
        }),
      );
      searchPages.set(shape, def);
    }
    return { def, query: (db: TenantDb) => searchPageQuery(db, q, bound, sets, syncEngine), params };
  };
  return ctx.db.read(function* (db) {
    yield* checkFilterRefs(db, q);
    if (nameIndex) yield* nameIndex.catchUp(db);
    const search = term ? searchStatement() : undefined;
    const counts: number[] = [];
    if (search) {
      // the search filter comes first; when its candidates are few it drives and this is the whole list
      const { def, query, params } = search;
      const found = def ? yield* allPrepared(db, def, params) : ((yield* all({ all: () => query(db).prepare().all(params) })) as SearchPageRow[]);
      const candidates = found[0]!.candidates;
      if (candidates <= SORT_IN_MEMORY_MAX) {
        let total: number;
        let rows: PatientRow[] = [];
        if (found[0]!.total !== null) {
          total = found[0]!.total;
          rows = found.map((f) => f.row!);
        } else {
          const filters = filtersInline();
          total = offset === 0 ? 0 : yield* countMatches(db, filters, [candidates, ...filters.slice(1).map(() => Infinity)]);
        }
        const names = yield* refNames(db, rows);
        return pageOf(
          rows.map((r) => serializePatient(r, names)),
          total,
          q,
        );
      }
      counts.push(candidates);
    }
    const filters = filtersInline();
    for (const [i, f] of filters.entries()) {
      if (i < counts.length) continue;
      // the status filter (last) is not worth counting once another filter is small
      const skip = i === filters.length - 1 && i > 0 && Math.min(...counts) <= SORT_IN_MEMORY_MAX;
      counts.push(skip ? Infinity : yield* f.candidates(db));
    }
    // the filter letting the fewest rows through drives: moved to the front
    const best = counts.indexOf(Math.min(...counts));
    filters.unshift(...filters.splice(best, 1));
    counts.unshift(...counts.splice(best, 1));
    let total: number;
    let page: number[] = [];
    if (counts[0]! <= SORT_IN_MEMORY_MAX) {
      // Few: through the driving filter, count and sort them in one query on
      // the sort keys only (unary + keeps SQLite off the sort index).
      const orderBy = columns.map((c) => (q.sort_dir === "desc" ? sql`+${c} DESC` : sql`+${c} ASC`));
      const keys = yield* all(
        db
          .select({ rowid, total: sql<number>`count(*) OVER ()` })
          .from(patients)
          .where(whereOf(filters, 0))
          .orderBy(...orderBy)
          .limit(q.page_size)
          .offset(offset),
      );
      total = keys.length ? keys[0]!.total : offset === 0 ? 0 : yield* countMatches(db, filters, counts);
      page = keys.map((k) => k.rowid);
    } else {
      // Many: count, then walk the sort index, checking each row, until the page is full.
      total = yield* countMatches(db, filters, counts);
      if (offset < total) {
        const dir = q.sort_dir === "desc" ? desc : asc;
        const inOrder = sql`${patients} INDEXED BY ${sql.identifier(sort.index)}`;
        const keys = yield* all(
          db
            .select({ rowid })
            .from(inOrder)
            .where(whereOf(filters, null))
            .orderBy(...columns.map((c) => dir(c)))
            .limit(q.page_size)
            .offset(offset),
        );
        page = keys.map((k) => k.rowid);
      }
    }
    let rows: PatientRow[] = [];
    if (page.length) {
      const found = yield* all(db.select({ rowid, row: patients }).from(patients).where(inArray(rowid, page)));
      const byRowid = new Map(found.map((f) => [f.rowid, f.row]));
      rows = page.map((r) => byRowid.get(r)!);
    }
    const names = yield* refNames(db, rows);
    return pageOf(
      rows.map((r) => serializePatient(r, names)),
      total,
      q,
    );
  });
}
