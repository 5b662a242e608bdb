import { and, asc, count, eq, gte, inArray, isNull, lte, ne, or, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { definitions } from "@db/tenant/definitions";
import { patients } from "@db/tenant/patients";
import { locations } from "@db/tenant/practice";
import { patientRecalls, recallTypes } from "@db/tenant/recall";
import { all, get } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { limitToPage, pageOf } from "@/platform/records/paging";
import { todayIn, todayUtc } from "@/platform/time/dates";
import type { RecallStatus } from "@/domains/recall/patient-recalls/schemas";
import type { RecallListQuery, RecallListRow, RecallSummary, RecallSummaryQuery } from "./schemas";

// The recall list and its summary (docs/recall/recall.md, "The recall list"):
// one query per page over the due-date index, the patient, their last contact
// and their family's due recalls read in it by correlated subqueries.

const R = patientRecalls;
const P = patients;

type Today = { utc: string; days: { id: string; today: string }[] };

/**
 * Today at each location (the org's time zones are read once and kept while the
 * database is unchanged); its text is part of a kept list's key, so an answer is
 * never handed out again once any location's day has turned.
 */
async function todayOf(ctx: OrgContext): Promise<Today> {
  const locs = await ctx.db.readKept("recall.location-zones", (db) =>
    all<{ id: string; timezone: string }>(db.select({ id: locations.id, timezone: locations.timezone }).from(locations)),
  );
  return { utc: todayUtc(), days: locs.map((l) => ({ id: l.id, today: todayIn(l.timezone) })) };
}

/**
 * Today at each patient's home location, as SQL: the one date when every
 * location is on the same day (the usual case), else a CASE over the
 * patient's location (UTC for a patient without one).
 */
function todaySql({ utc, days }: Today): SQL {
  if (days.every((d) => d.today === utc)) return sql`${utc}`;
  return sql`(CASE ${R.patient_location_id} ${sql.join(
    days.map((d) => sql`WHEN ${d.id} THEN ${d.today}`),
    sql` `,
  )} ELSE ${utc} END)`;
}

/** The status as of today: a stored due or overdue is read against today's date, so a recall is never shown due after its date. */
const statusSql = (today: SQL) =>
  sql<RecallStatus>`(CASE WHEN ${R.status} IN ('due', 'overdue') THEN (CASE WHEN ${R.date_due} < ${today} THEN 'overdue' ELSE 'due' END) ELSE ${R.status} END)`;

/** The conditions every row of the list and the summary meets, and the caller's filters. */
function filters(q: { recall_type_uuid?: string; location_uuid?: string; provider_uuid?: string }): SQL[] {
  // the patient's facts are read from the recall's copies of them (kept by triggers: db/tenant/recall.ts), so a
  // window of recalls is counted without reading a patient
  const out: SQL[] = [isNull(R.deleted_at), eq(R.patient_active, true), isNull(recallTypes.archived_at)];
  if (q.recall_type_uuid) out.push(eq(R.recall_type_id, q.recall_type_uuid));
  if (q.location_uuid) out.push(eq(R.patient_location_id, q.location_uuid));
  if (q.provider_uuid) out.push(or(eq(R.patient_primary_provider_id, q.provider_uuid), eq(R.patient_secondary_provider_id, q.provider_uuid))!);
  return out;
}

const familyOf = sql`coalesce(${P.responsible_party_id}, ${P.id})`;

export async function listRecalls(ctx: OrgContext, q: RecallListQuery) {
  if (q.due_from && q.due_to && q.due_to < q.due_from)
    throw invalid(["query", "due_to"], "due_to must not be before due_from", "value_error", "invalid_date_range");
  const today = await todayOf(ctx);
  // the answer depends on the database and the day only: kept while both are unchanged (docs/decisions.md, kept reads)
  return ctx.db.readKept(`recall.list:${JSON.stringify(today)}:${JSON.stringify(q)}`, function* (db) {
    const status = statusSql(todaySql(today));
    const where = filters(q);
    if (q.due_from) where.push(gte(R.date_due, q.due_from));
    if (q.due_to) where.push(lte(R.date_due, q.due_to));
    const statuses = q.status ?? (["due", "overdue", "scheduled"] as RecallStatus[]);
    where.push(inArray(status, q.unscheduled_only ? statuses.filter((s) => s !== "scheduled") : statuses));

    // the other members of the family (one guarantor) with a recall due in the same window: the guarantor
    // and the patients naming them, each found by an index (an OR of the two would scan every patient)
    const window = [q.due_from ? sql` AND r2.date_due >= ${q.due_from}` : sql``, q.due_to ? sql` AND r2.date_due <= ${q.due_to}` : sql``];
    const familyDue = sql<string | null>`(SELECT json_group_array(json_object('patient_id', m.id, 'first_name', m.first_name, 'last_name', m.last_name,
        'recall_id', r2.id, 'type_id', r2.recall_type_id, 'type_name', t2.name, 'date_due', r2.date_due, 'status', r2.status))
      FROM patients m JOIN patient_recalls r2 ON r2.patient_id = m.id AND r2.deleted_at IS NULL
      JOIN recall_types t2 ON t2.id = r2.recall_type_id AND t2.archived_at IS NULL
      WHERE r2.patient_id IN (SELECT ${familyOf} UNION ALL SELECT f.id FROM patients f WHERE f.responsible_party_id = ${familyOf})
        AND m.id <> ${P.id} AND m.deleted_at IS NULL AND +m.status = 'active' AND r2.status <> 'disabled'${window[0]}${window[1]})`;
    const lastContact = sql<string | null>`(SELECT json_object('communicated_at', c.communicated_at, 'mode', c.mode, 'direction', c.direction)
      FROM communication_logs c WHERE c.patient_id = ${P.id} ORDER BY c.communicated_at DESC LIMIT 1)`;

    // biome-ignore lint/suspicious/noExplicitAny: the same joins and conditions on the count and on the page
    const joined = (qb: any): any =>
      qb
        .innerJoin(P, eq(P.id, R.patient_id))
        .innerJoin(recallTypes, eq(recallTypes.id, R.recall_type_id))
        .where(and(...where));
    // the window's size from the due-date index and the recall types alone
    const total =
      (yield* get<{ n: number }>(
        db
          .select({ n: count() })
          .from(R)
          .innerJoin(recallTypes, eq(recallTypes.id, R.recall_type_id))
          .where(and(...where)),
      ))?.n ?? 0;

    // the page's ids and sort keys first (the due-date index, no subquery per row), then only its rows read whole:
    // a scalar subquery in the sorted select would run for every recall of the window
    const byName = q.sort === "last_name";
    const keys = joined(
      db
        .select({
          rid: sql<string>`${R.id}`.as("rid"),
          k_due: sql<string | null>`${R.date_due}`.as("k_due"),
          k_last: sql<string>`${P.last_name}`.as("k_last"),
          k_first: sql<string>`${P.first_name}`.as("k_first"),
          k_family: sql<string>`${familyOf}`.as("k_family"),
          k_family_first: (q.include_family ? sql`min(${byName ? P.last_name : R.date_due}) OVER (PARTITION BY ${familyOf})` : sql`NULL`).as("k_family_first"),
        })
        .from(R),
    );
    const order = (k: {
      due: SQL | SQLiteColumn;
      last: SQL | SQLiteColumn;
      first: SQL | SQLiteColumn;
      family: SQL;
      familyFirst: SQL;
      id: SQL | SQLiteColumn;
    }) =>
      q.include_family
        ? [asc(k.familyFirst), asc(k.family), asc(k.due), asc(k.id)]
        : byName
          ? [asc(k.last), asc(k.first), asc(k.due), asc(k.id)]
          : [asc(k.due), asc(k.last), asc(k.first), asc(k.id)];
    const page = limitToPage(
      keys.orderBy(
        ...order({
          due: R.date_due,
          last: P.last_name,
          first: P.first_name,
          family: familyOf,
          familyFirst: sql`k_family_first`,
          id: R.id,
        }),
      ),
      q,
    ).as("pg");
    const items = yield* all<ListRow>(
      db
        .select({
          id: R.id,
          version: R.version,
          type_id: R.recall_type_id,
          type_name: recallTypes.name,
          is_perio: recallTypes.is_perio,
          date_previous: R.date_previous,
          date_due: R.date_due,
          date_scheduled: R.date_scheduled,
          appointment_id: R.scheduled_appointment_id,
          status,
          note: R.note,
          recall_status_id: R.recall_status_id,
          recall_status_name: sql<string | null>`(SELECT ${definitions.item_name} FROM ${definitions} WHERE ${definitions.id} = ${R.recall_status_id})`,
          patient_id: P.id,
          first_name: P.first_name,
          last_name: P.last_name,
          preferred_name: P.preferred_name,
          date_of_birth: P.date_of_birth,
          home_phone: P.home_phone,
          mobile_phone: P.mobile_phone,
          work_phone: P.work_phone,
          email: P.email,
          preferred_contact_method: P.preferred_contact_method,
          preferred_confirmation_method: P.preferred_confirmation_method,
          receives_sms: P.receives_sms,
          receives_email: P.receives_email,
          location_id: P.location_id,
          primary_provider_id: P.primary_provider_id,
          secondary_provider_id: P.secondary_provider_id,
          guarantor_id: sql<string>`${familyOf}`,
          last_contact: lastContact,
          family_due: familyDue,
        })
        .from(page)
        .innerJoin(R, eq(R.id, page.rid))
        .innerJoin(P, eq(P.id, R.patient_id))
        .innerJoin(recallTypes, eq(recallTypes.id, R.recall_type_id))
        .orderBy(
          ...order({
            due: page.k_due,
            last: page.k_last,
            first: page.k_first,
            family: sql`${page.k_family}`,
            familyFirst: sql`${page.k_family_first}`,
            id: page.rid,
          }),
        ),
    );
    return pageOf(items.map(rowOf), total, q);
  });
}

type ListRow = {
  id: string;
  version: number;
  type_id: string;
  type_name: string;
  is_perio: boolean | number;
  date_previous: string | null;
  date_due: string | null;
  date_scheduled: string | null;
  appointment_id: string | null;
  status: RecallStatus;
  note: string;
  recall_status_id: string | null;
  recall_status_name: string | null;
  patient_id: string;
  first_name: string;
  last_name: string;
  preferred_name: string | null;
  date_of_birth: string | null;
  home_phone: string | null;
  mobile_phone: string | null;
  work_phone: string | null;
  email: string | null;
  preferred_contact_method: string | null;
  preferred_confirmation_method: string | null;
  receives_sms: boolean | number;
  receives_email: boolean | number;
  location_id: string | null;
  primary_provider_id: string | null;
  secondary_provider_id: string | null;
  guarantor_id: string;
  last_contact: string | null;
  family_due: string | null;
};

type FamilyDue = {
  patient_id: string;
  first_name: string;
  last_name: string;
  recall_id: string;
  type_id: string;
  type_name: string;
  date_due: string | null;
  status: RecallStatus;
};

const uuidOnly = (id: string | null) => (id ? { uuid: id, name: null } : null);

const rowOf = (r: ListRow): RecallListRow => ({
  patient: {
    uuid: r.patient_id,
    first_name: r.first_name,
    last_name: r.last_name,
    preferred_name: r.preferred_name,
    date_of_birth: r.date_of_birth,
    home_phone: r.home_phone,
    mobile_phone: r.mobile_phone,
    work_phone: r.work_phone,
    email: r.email,
    preferred_contact_method: r.preferred_contact_method,
    preferred_confirmation_method: r.preferred_confirmation_method,
    receives_sms: !!r.receives_sms,
    receives_email: !!r.receives_email,
    location: uuidOnly(r.location_id),
    primary_provider: uuidOnly(r.primary_provider_id),
    secondary_provider: uuidOnly(r.secondary_provider_id),
  },
  family: { guarantor_uuid: r.guarantor_id },
  recall: {
    id: r.id,
    version: r.version,
    recall_type: { uuid: r.type_id, name: r.type_name },
    is_perio: !!r.is_perio,
    date_previous: r.date_previous,
    date_due: r.date_due,
    date_scheduled: r.date_scheduled,
    scheduled_appointment: uuidOnly(r.appointment_id),
    status: r.status,
    recall_status: r.recall_status_id ? { uuid: r.recall_status_id, name: r.recall_status_name } : null,
    note: r.note,
  },
  last_contact: r.last_contact ? JSON.parse(r.last_contact) : null,
  family_due: (JSON.parse(r.family_due ?? "[]") as FamilyDue[])
    .sort((a, b) => (a.date_due ?? "").localeCompare(b.date_due ?? "") || a.recall_id.localeCompare(b.recall_id))
    .map((f) => ({
      patient: { uuid: f.patient_id, first_name: f.first_name, last_name: f.last_name },
      recall_uuid: f.recall_id,
      recall_type: { uuid: f.type_id, name: f.type_name },
      date_due: f.date_due,
      status: f.status,
    })),
});

/** The weeks of a month: days 1-7, 8-14, 15-21, 22-28, and the 29th to the end when the month has one. */
export function weeksOf(month: string): { week: number; date_from: string; date_to: string }[] {
  const days = Temporal.PlainYearMonth.from(month).daysInMonth;
  const out = [];
  for (let w = 0; w * 7 < days; w++) {
    const from = w * 7 + 1;
    const to = Math.min(from + 6, days);
    out.push({ week: w + 1, date_from: `${month}-${String(from).padStart(2, "0")}`, date_to: `${month}-${String(to).padStart(2, "0")}` });
  }
  return out;
}

export async function recallSummary(ctx: OrgContext, q: RecallSummaryQuery): Promise<RecallSummary> {
  const weeks = weeksOf(q.month);
  const today = await todayOf(ctx);
  return ctx.db.readKept(`recall.summary:${JSON.stringify(today)}:${JSON.stringify(q)}`, function* (db) {
    const status = statusSql(todaySql(today));
    const week = sql<number>`((CAST(substr(${R.date_due}, 9, 2) AS INTEGER) - 1) / 7 + 1)`;
    const rows = yield* all<{ week: number; status: RecallStatus; n: number }>(
      db
        .select({ week, status, n: count() })
        .from(R)
        .innerJoin(recallTypes, eq(recallTypes.id, R.recall_type_id))
        .where(and(...filters(q), gte(R.date_due, weeks[0]!.date_from), lte(R.date_due, weeks.at(-1)!.date_to), ne(R.status, "disabled")))
        .groupBy(week, status),
    );
    const zero = () => ({ due: 0, scheduled: 0, overdue: 0, total: 0 });
    const totals = zero();
    const byWeek = weeks.map((w) => ({ ...w, ...zero() }));
    for (const r of rows) {
      const w = byWeek[r.week - 1];
      if (!w || r.status === "disabled") continue;
      w[r.status] += r.n;
      w.total += r.n;
      totals[r.status] += r.n;
      totals.total += r.n;
    }
    return { month: q.month, weeks: byWeek, totals };
  });
}
