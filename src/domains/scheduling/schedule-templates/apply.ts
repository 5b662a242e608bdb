import { and, eq, gte, inArray, isNotNull, isNull, lt, lte, ne, or } from "drizzle-orm";
import { blockouts, providerSchedules, scheduleOverrides } from "@db/tenant/scheduling";
import type { TemplateBlock } from "@db/tenant/schedule-templates";
import { all, type Work } from "@/platform/db/work";
import { AppError, Conflict, invalid, ValidationFailed } from "@/platform/errors";
import { newId } from "@/platform/ids";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { queueJob } from "@/platform/queue/enqueue";
import { locationRecords } from "@/domains/providers/locations/service";
import { blockoutRecords, blockoutTimes } from "@/domains/scheduling/blockouts/service";
import { datesBetween, weekdayOf } from "@/domains/scheduling/provider-schedules/hours";
import { providerScheduleRecords } from "@/domains/scheduling/provider-schedules/service";
import { scheduleTemplatesApply } from "./apply.job";
import { MAX_APPLY_DAYS, type TemplateApplication, type TemplateApply } from "./schemas";
import {
  applicationRecords,
  assertNoApplicationRunning,
  assertNotArchived,
  checkBlockRefs,
  presentApplications,
  skippedDay,
  templateRecords,
  type ApplicationRow,
  type TemplateRow,
} from "./service";

// POST .../templates/{id}/apply (docs/scheduling/schedule-templates.md,
// "Applying"). A range of up to SYNC_MAX_DAYS dates is written in the
// request's own write (201, completed); a longer one by the job
// schedule-templates.apply (202, queued), CHUNK_DAYS dates per write:
//   - the first write checks the stored blocks again, clears the range when
//     replace_existing, writes one provider schedule per working block (a
//     weekly pattern, effective over the range) and its dates' blockouts;
//   - each further write, its dates' blockouts;
// and each moves the application's days_done forward with what it wrote, so a
// killed worker's retry starts at the first date no committed write covered.

/** A range of at most this many dates is applied in the request. */
export const SYNC_MAX_DAYS = 7;
/** Dates per write of the job: a week. */
export const CHUNK_DAYS = 7;

/** For tests: a hook that throws stands for a worker killed inside a chunk's write (it rolls back). */
export const applyHooks: { beforeChunkCommit?: (info: { applicationId: string; chunk: number; daysDone: number }) => void } = {};

const addDays = (date: string, n: number) => Temporal.PlainDate.from(date).add({ days: n }).toString();
const daysIn = (from: string, to: string) => Temporal.PlainDate.from(from).until(Temporal.PlainDate.from(to), { largestUnit: "days" }).days + 1;

/** 422 invalid_date_range: date_to before date_from, or more than MAX_APPLY_DAYS dates (checked before anything is looked up). */
export function checkApplyRange(input: { date_from: string; date_to: string }): number {
  if (input.date_to < input.date_from) throw invalid(["body", "date_to"], "Must not be before date_from", "value_error", "invalid_date_range");
  const days = daysIn(input.date_from, input.date_to);
  if (days > MAX_APPLY_DAYS)
    throw invalid(
      ["body", "date_to"],
      `At most ${MAX_APPLY_DAYS} days from date_from, inclusive (this range has ${days})`,
      "out_of_range",
      "invalid_date_range",
    );
  return days;
}

/** What an application writes with, whether it is stored yet or not. */
type Application = Pick<ApplicationRow, "id" | "date_from" | "date_to" | "replace_existing" | "include_override_days">;

const pairKey = (providerId: string | null, locationId: string) => `${providerId}|${locationId}`;
const working = (t: TemplateRow) => t.blocks.filter((b) => !b.blockout_type_id);
const reserved = (t: TemplateRow) => t.blocks.filter((b) => b.blockout_type_id);

/** A working block's dates in the range: its weekday's first and last; null when the range holds none of them. */
function effectiveRange(b: TemplateBlock, app: Application): { from: string; to: string } | null {
  const first = addDays(app.date_from, (b.weekday - weekdayOf(app.date_from) + 7) % 7);
  if (first > app.date_to) return null;
  return { from: first, to: addDays(app.date_to, -((weekdayOf(app.date_to) - b.weekday + 7) % 7)) };
}

type ScheduleRow = typeof providerSchedules.$inferSelect;

/** The live provider schedules of these providers (anywhere) in effect at some date of the range, not written by this application. */
function schedulesTouching(db: TenantDb, providerIds: string[], app: Application) {
  const t = providerSchedules;
  return all<ScheduleRow>(
    db
      .select()
      .from(t)
      .where(
        and(
          inArray(t.provider_id, providerIds),
          isNull(t.deleted_at),
          or(isNull(t.effective_from), lte(t.effective_from, app.date_to)),
          or(isNull(t.effective_to), gte(t.effective_to, app.date_from)),
          or(isNull(t.template_application_id), ne(t.template_application_id, app.id)),
        ),
      )
      .orderBy(t.id),
  );
}

/**
 * 409 schedule_overlap, naming the block, when a working block would overlap
 * a live provider schedule of its provider (at any location) on its weekday,
 * hours and dates overlapping. With replace_existing the provider's schedules
 * at the template's locations for that provider do not count: the range is
 * cleared of them first.
 */
export function* assertNoScheduleOverlap(db: TenantDb, template: TemplateRow, app: Application): Work<void> {
  const blocks = working(template);
  if (!blocks.length) return;
  const replaced = new Set(app.replace_existing ? blocks.map((b) => pairKey(b.provider_id, b.location_id)) : []);
  const existing = (yield* schedulesTouching(db, [...new Set(blocks.map((b) => b.provider_id))], app)).filter(
    (e) => !replaced.has(pairKey(e.provider_id, e.location_id)),
  );
  for (const b of blocks) {
    const range = effectiveRange(b, app);
    if (!range) continue;
    const clash = existing.find(
      (e) =>
        e.provider_id === b.provider_id &&
        e.weekday === b.weekday &&
        e.start_time < b.end_time &&
        b.start_time < e.end_time &&
        (!e.effective_from || e.effective_from <= range.to) &&
        (!e.effective_to || e.effective_to >= range.from),
    );
    if (clash) {
      const i = template.blocks.indexOf(b);
      throw new Conflict(
        `blocks[${i}] (weekday ${b.weekday}, ${b.start_time}-${b.end_time}) overlaps the provider's schedule ${clash.id} ` +
          `(${clash.start_time}-${clash.end_time}, effective ${clash.effective_from ?? "always"} to ${clash.effective_to ?? "open"}); ` +
          "apply with replace_existing, or change that schedule",
        "schedule_overlap",
      );
    }
  }
}

/**
 * replace_existing, in the first write: every live schedule of a working
 * block's provider at that block's location that is in effect during the
 * range leaves it. A part before the range stays (ended the day before
 * date_from); a part after it stays (starting the day after date_to: the
 * schedule itself when it started inside the range, else a copy); one wholly
 * inside is deleted. Returns how many were changed.
 */
function* clearRange(s: TxScope, template: TemplateRow, app: Application): Work<number> {
  const blocks = working(template);
  const pairs = new Set(blocks.map((b) => pairKey(b.provider_id, b.location_id)));
  const hit = (yield* schedulesTouching(s.tx, [...new Set(blocks.map((b) => b.provider_id))], app)).filter((e) =>
    pairs.has(pairKey(e.provider_id, e.location_id)),
  );
  const dayBefore = addDays(app.date_from, -1);
  const dayAfter = addDays(app.date_to, 1);
  const about = { template_application_id: app.id };
  for (const e of hit) {
    const before = !e.effective_from || e.effective_from < app.date_from;
    const after = !e.effective_to || e.effective_to > app.date_to;
    if (before) {
      yield* providerScheduleRecords.update(s, e.id, e.version, { effective_to: dayBefore }, { eventData: about });
      if (after) {
        const { id: _id, version: _v, created_at: _c, updated_at: _u, deleted_at: _d, ...copy } = e;
        yield* providerScheduleRecords.create(
          s,
          { ...copy, effective_from: dayAfter },
          { provider_id: e.provider_id, location_id: e.location_id, operatory_id: e.operatory_id, weekday: e.weekday, split_from: e.id, ...about },
        );
      }
    } else if (after) yield* providerScheduleRecords.update(s, e.id, e.version, { effective_from: dayAfter }, { eventData: about });
    else yield* providerScheduleRecords.archive(s, e.id, e.version, "deleted");
  }
  return hit.length;
}

/** The first write's schedules: one per working block whose weekday the range holds, effective from its first to its last date there. */
function* writeSchedules(s: TxScope, template: TemplateRow, app: Application): Work<number> {
  let written = 0;
  for (const b of working(template)) {
    const range = effectiveRange(b, app);
    if (!range) continue;
    yield* providerScheduleRecords.create(
      s,
      {
        provider_id: b.provider_id,
        location_id: b.location_id,
        operatory_id: b.operatory_id,
        weekday: b.weekday,
        start_time: b.start_time,
        end_time: b.end_time,
        effective_from: range.from,
        effective_to: range.to,
        template_application_id: app.id,
      },
      { provider_id: b.provider_id, location_id: b.location_id, operatory_id: b.operatory_id, weekday: b.weekday, template_application_id: app.id },
    );
    written++;
  }
  return written;
}

type BlockoutRow = typeof blockouts.$inferSelect;

/** Live blockouts starting (wall clock) on one of `dates` at these locations, `which` narrowing them. */
function blockoutsOn(db: TenantDb, dates: string[], locationIds: string[], which: ReturnType<typeof and>) {
  const t = blockouts;
  return all<BlockoutRow>(
    db
      .select()
      .from(t)
      .where(
        and(
          inArray(t.location_id, locationIds),
          isNull(t.deleted_at),
          gte(t.start, `${dates[0]}T00:00:00`),
          lt(t.start, `${addDays(dates[dates.length - 1]!, 1)}T00:00:00`),
          which,
        ),
      )
      .orderBy(t.start_utc, t.id),
  );
}

const blockoutKey = (v: {
  provider_id: string | null;
  location_id: string;
  operatory_id: string | null;
  blockout_type_id: string;
  start: string;
  end: string;
}) => [v.provider_id, v.location_id, v.operatory_id, v.blockout_type_id, v.start, v.end].join("|");

/**
 * One write's dates: with replace_existing, the blockouts earlier template
 * applications wrote there for the template's providers at its locations are
 * deleted; then each reserved-time block becomes a blockout on each of the
 * dates of its weekday, unless the provider has a schedule override at that
 * location that date (and include_override_days is false) or the block's time
 * is skipped by a DST change (both listed as skipped). A blockout this
 * application already wrote is not written again.
 */
function* writeBlockouts(s: TxScope, template: TemplateRow, app: Application, dates: string[]): Work<{ written: number; skipped: string[] }> {
  const blocks = reserved(template);
  const out = { written: 0, skipped: [] as string[] };
  if (!dates.length) return out;
  const locationIds = [...new Set(template.blocks.map((b) => b.location_id))];
  if (app.replace_existing) {
    const pairs = new Set(template.blocks.map((b) => pairKey(b.provider_id, b.location_id)));
    const earlier = yield* blockoutsOn(
      s.tx,
      dates,
      locationIds,
      and(isNotNull(blockouts.template_application_id), ne(blockouts.template_application_id, app.id)),
    );
    for (const x of earlier) if (pairs.has(pairKey(x.provider_id, x.location_id))) yield* blockoutRecords.archive(s, x.id, x.version, "deleted");
  }
  if (!blocks.length) return out;

  const mine = new Set((yield* blockoutsOn(s.tx, dates, locationIds, eq(blockouts.template_application_id, app.id))).map(blockoutKey));
  const overridden = new Set<string>();
  if (!app.include_override_days) {
    const o = scheduleOverrides;
    const rows = yield* all<{ provider_id: string; location_id: string; override_date: string }>(
      s.tx
        .select({ provider_id: o.provider_id, location_id: o.location_id, override_date: o.override_date })
        .from(o)
        .where(
          and(
            inArray(o.provider_id, [...new Set(blocks.map((b) => b.provider_id))]),
            isNull(o.deleted_at),
            gte(o.override_date, dates[0]!),
            lte(o.override_date, dates[dates.length - 1]!),
          ),
        ),
    );
    for (const r of rows) overridden.add(`${pairKey(r.provider_id, r.location_id)}|${r.override_date}`);
  }
  const zones = new Map<string, string>();
  for (const id of locationIds) zones.set(id, (yield* locationRecords.require(s.tx, id, true)).timezone);

  const skipped = new Set<string>();
  for (const date of dates) {
    const weekday = weekdayOf(date);
    for (const b of blocks) {
      if (b.weekday !== weekday) continue;
      if (overridden.has(`${pairKey(b.provider_id, b.location_id)}|${date}`)) {
        skipped.add(skippedDay(date, b.provider_id, "override"));
        continue;
      }
      let times: ReturnType<typeof blockoutTimes>;
      try {
        // the blockouts' own conversion: the location's wall clock to UTC, a time skipped by DST refused
        times = blockoutTimes(zones.get(b.location_id)!, `${date}T${b.start_time}:00`, `${date}T${b.end_time}:00`);
      } catch (e) {
        if (!(e instanceof ValidationFailed)) throw e;
        skipped.add(skippedDay(date, b.provider_id, "time_not_on_clock"));
        continue;
      }
      const values = {
        location_id: b.location_id,
        operatory_id: b.operatory_id,
        provider_id: b.provider_id,
        blockout_type_id: b.blockout_type_id!,
        ...times,
        note: `Schedule template: ${template.name}`,
        template_application_id: app.id,
      };
      const key = blockoutKey(values);
      if (mine.has(key)) continue;
      mine.add(key);
      yield* blockoutRecords.create(s, values, {
        location_id: b.location_id,
        operatory_id: b.operatory_id,
        provider_id: b.provider_id,
        blockout_type_id: b.blockout_type_id,
        template_application_id: app.id,
      });
      out.written++;
    }
  }
  out.skipped = [...skipped];
  return out;
}

/** The first write's work before its dates' blockouts: the range cleared (replace_existing), then the schedules. */
function* firstWrite(s: TxScope, template: TemplateRow, app: Application): Work<number> {
  if (app.replace_existing) yield* clearRange(s, template, app);
  return yield* writeSchedules(s, template, app);
}

/** The template as the apply finds it: live, not archived, no other application of it in progress, its blocks' references still live. */
function* requireApplicable(db: TenantDb, templateId: string): Work<TemplateRow> {
  const template = yield* templateRecords.require(db, templateId);
  assertNotArchived(template);
  yield* assertNoApplicationRunning(db, template.id);
  yield* checkBlockRefs(db, template.blocks);
  return template;
}

export type ApplyAnswer = { status: 201 | 202; application: TemplateApplication };

/**
 * The request: 404 template (or a block's reference, named), 422 archived,
 * 409 another application in progress, 409 schedule_overlap (both paths:
 * nothing is written, no application is kept); then up to SYNC_MAX_DAYS dates
 * written here (201, completed), or the application queued with its job (202).
 */
export async function applyTemplate(ctx: OrgContext, templateId: string, input: TemplateApply): Promise<ApplyAnswer> {
  const days = checkApplyRange(input);
  return withTransaction(ctx, function* (s) {
    const template = yield* requireApplicable(s.tx, templateId);
    const app: Application = {
      id: newId(),
      date_from: input.date_from,
      date_to: input.date_to,
      replace_existing: input.replace_existing ?? false,
      include_override_days: input.include_override_days ?? false,
    };
    yield* assertNoScheduleOverlap(s.tx, template, app);
    const base = { ...app, template_id: template.id, template_version: template.version, days_total: days, error: null };
    const about = { template_id: template.id, date_from: app.date_from, date_to: app.date_to };
    let row: ApplicationRow;
    if (days <= SYNC_MAX_DAYS) {
      const schedules = yield* firstWrite(s, template, app);
      const b = yield* writeBlockouts(s, template, app, datesBetween(app.date_from, app.date_to));
      row = yield* applicationRecords.create(
        s,
        {
          ...base,
          status: "completed",
          days_done: days,
          schedules_written: schedules,
          blockouts_written: b.written,
          days_skipped: b.skipped,
          completed_at: s.now,
        },
        { ...about, status: "completed" },
      );
    } else {
      row = yield* applicationRecords.create(
        s,
        { ...base, status: "queued", days_done: 0, schedules_written: 0, blockouts_written: 0, days_skipped: [], completed_at: null },
        { ...about, status: "queued" },
      );
      queueJob(s, scheduleTemplatesApply, { application_id: row.id }, { singletonKey: row.id });
    }
    return { status: days <= SYNC_MAX_DAYS ? 201 : 202, application: (yield* presentApplications(s.tx, [row]))[0]! };
  });
}

// ---- the job's work -------------------------------------------------------------------------

export type ApplyResult = {
  /** completed or failed by this run; skipped: the application is gone or was already over. */
  outcome: "completed" | "failed" | "skipped";
  chunks: number;
  schedules_written: number;
  blockouts_written: number;
  reason?: string;
};

/** Ends the application as failed, with why (event schedule_template_application.failed). */
function* fail(s: TxScope, app: ApplicationRow, error: string): Work<void> {
  yield* applicationRecords.update(
    s,
    app.id,
    app.version,
    { status: "failed", error, completed_at: s.now },
    { action: "failed", eventData: { template_id: app.template_id, error_code: error.split(":")[0] }, changedFields: false },
  );
}

/**
 * Apply what the application says, a write per CHUNK_DAYS dates from its
 * days_done on: each write re-reads the application (over, or gone: stop) and
 * the template (changed since the apply: the application fails; the template
 * cannot be changed while an application is in progress, so only a direct
 * database edit gets here). The first write re-checks the blocks' references
 * and the overlaps (an application that would overlap fails with the 409's
 * message, nothing written). `onChunk` runs after each write has committed.
 */
export async function runApplication(
  ctx: OrgContext,
  applicationId: string,
  options: { onChunk?: (c: { chunk: number; daysDone: number }) => void | Promise<void> } = {},
): Promise<ApplyResult> {
  const out: ApplyResult = { outcome: "completed", chunks: 0, schedules_written: 0, blockouts_written: 0 };
  for (;;) {
    const step = await withTransaction(ctx, function* (s): Work<{ next: "more" | ApplyResult["outcome"]; daysDone: number }> {
      const app = yield* applicationRecords.find(s.tx, applicationId);
      if (!app || app.status === "completed" || app.status === "failed") {
        out.reason = app ? `the application is already ${app.status}` : "the application is gone";
        return { next: "skipped", daysDone: app?.days_done ?? 0 };
      }
      const template = yield* templateRecords.find(s.tx, app.template_id);
      if (!template || template.version !== app.template_version) {
        out.reason = "The template changed after it was applied; apply it again";
        yield* fail(s, app, `template_changed: ${out.reason}`);
        return { next: "failed", daysDone: app.days_done };
      }
      let schedules = 0;
      if (app.days_done === 0) {
        try {
          yield* checkBlockRefs(s.tx, template.blocks);
          yield* assertNoScheduleOverlap(s.tx, template, app);
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          out.reason = e.message;
          yield* fail(s, app, `${e.code}: ${e.message}`);
          return { next: "failed", daysDone: 0 };
        }
        schedules = yield* firstWrite(s, template, app);
      }
      const dates = datesBetween(app.date_from, app.date_to).slice(app.days_done, app.days_done + CHUNK_DAYS);
      const b = yield* writeBlockouts(s, template, app, dates);
      const daysDone = app.days_done + dates.length;
      const finished = daysDone >= app.days_total;
      applyHooks.beforeChunkCommit?.({ applicationId, chunk: out.chunks + 1, daysDone });
      const progress = {
        status: finished ? "completed" : "running",
        days_done: daysDone,
        schedules_written: app.schedules_written + schedules,
        blockouts_written: app.blockouts_written + b.written,
        days_skipped: [...app.days_skipped, ...b.skipped],
        completed_at: finished ? s.now : null,
      };
      yield* applicationRecords.update(
        s,
        app.id,
        app.version,
        progress,
        finished
          ? {
              action: "completed",
              changedFields: false,
              eventData: { template_id: app.template_id, schedules_written: progress.schedules_written, blockouts_written: progress.blockouts_written },
            }
          : { action: "progress", event: false },
      );
      out.chunks++;
      out.schedules_written += schedules;
      out.blockouts_written += b.written;
      return { next: finished ? "completed" : "more", daysDone };
    });
    if (step.next !== "more") {
      out.outcome = step.next;
      return out;
    }
    await options.onChunk?.({ chunk: out.chunks, daysDone: step.daysDone });
    await new Promise<void>((resolve) => setImmediate(resolve)); // local databases answer synchronously: let requests in
  }
}

/** The last attempt failed: say so on the application, if it is still in progress (what committed writes wrote stays). */
export async function markApplicationFailed(ctx: OrgContext, applicationId: string, error: string): Promise<void> {
  await withTransaction(ctx, function* (s) {
    const app = yield* applicationRecords.find(s.tx, applicationId);
    if (app && (app.status === "queued" || app.status === "running")) yield* fail(s, app, error);
  });
}
