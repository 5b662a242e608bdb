import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import { scheduleTemplateApplications, scheduleTemplates, type TemplateBlock } from "@db/tenant/schedule-templates";
import { get, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound, ValidationFailed, type ValidationIssue } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { DEFINITION_NAMES, LOCATION_NAMES, OPERATORY_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { nameSource, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import { providerRecords } from "@/domains/providers/record/service";
import { requireBlockoutType } from "@/domains/scheduling/blockouts/service";
import { requireOperatoryAt } from "@/domains/scheduling/provider-schedules/common";
import type {
  ApplicationListQuery,
  ScheduleTemplate,
  ScheduleTemplateArchiveQuery,
  ScheduleTemplateCreate,
  ScheduleTemplateListQuery,
  ScheduleTemplatePatch,
  TemplateApplication,
  TemplateBlockInput,
} from "./schemas";

// Schedule templates (docs/scheduling/schedule-templates.md): a named weekly
// pattern of blocks, kept with its blocks as ids; their applications to date
// ranges are ./apply.ts.

export type TemplateRow = typeof scheduleTemplates.$inferSelect;
export type ApplicationRow = typeof scheduleTemplateApplications.$inferSelect;

// the audit trail keeps the blocks as stored (ids: names change)
const auditTemplate = (r: TemplateRow) => ({
  id: r.id,
  name: r.name,
  note: r.note,
  blocks: r.blocks,
  archived_at: r.archived_at,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export const templateRecords = defineResource<TemplateRow, ReturnType<typeof auditTemplate>>({
  table: scheduleTemplates,
  name: "schedule_template",
  label: "Schedule template",
  serialize: auditTemplate,
});

const auditApplication = (r: ApplicationRow) => ({
  id: r.id,
  template_uuid: r.template_id,
  template_version: r.template_version,
  date_from: r.date_from,
  date_to: r.date_to,
  replace_existing: r.replace_existing,
  include_override_days: r.include_override_days,
  status: r.status,
  days_total: r.days_total,
  days_done: r.days_done,
  schedules_written: r.schedules_written,
  blockouts_written: r.blockouts_written,
  days_skipped: r.days_skipped,
  error: r.error,
  completed_at: r.completed_at,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export const applicationRecords = defineResource<ApplicationRow, ReturnType<typeof auditApplication>>({
  table: scheduleTemplateApplications,
  name: "schedule_template_application",
  label: "Schedule template application",
  serialize: auditApplication,
});

const TEMPLATE_NAMES = nameSource(scheduleTemplates.id, { name: scheduleTemplates.name }, (r) => r.name);

// ---- answers ----------------------------------------------------------------------------------

/** Templates as answers: one name query per kind of reference over all their blocks. */
export function* presentTemplates(db: TenantDb, rows: TemplateRow[]): Work<ScheduleTemplate[]> {
  const blocks = rows.flatMap((r) => r.blocks);
  const n = yield* namesOfEach(db, {
    providers: [PROVIDER_NAMES, blocks.map((b) => b.provider_id)],
    locations: [LOCATION_NAMES, blocks.map((b) => b.location_id)],
    operatories: [OPERATORY_NAMES, blocks.map((b) => b.operatory_id)],
    types: [DEFINITION_NAMES, blocks.map((b) => b.blockout_type_id)],
  });
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    note: r.note,
    blocks: r.blocks.map((b) => ({
      weekday: b.weekday,
      start_time: b.start_time,
      end_time: b.end_time,
      provider: ref(b.provider_id, n.providers),
      location: ref(b.location_id, n.locations),
      operatory: ref(b.operatory_id, n.operatories),
      blockout_type: ref(b.blockout_type_id, n.types),
    })),
    archived_at: r.archived_at,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

/** A skipped day as stored: "date|provider id|reason". */
export const skippedDay = (date: string, providerId: string, reason: "override" | "time_not_on_clock") => `${date}|${providerId}|${reason}`;

export function* presentApplications(db: TenantDb, rows: ApplicationRow[]): Work<TemplateApplication[]> {
  const skipped = rows.map((r) => r.days_skipped.map((s) => s.split("|") as [string, string, "override" | "time_not_on_clock"]));
  const n: { templates: Names; providers: Names } = yield* namesOfEach(db, {
    templates: [TEMPLATE_NAMES, rows.map((r) => r.template_id)],
    providers: [PROVIDER_NAMES, skipped.flat().map((s) => s[1])],
  });
  return rows.map((r, i) => ({
    id: r.id,
    template: ref(r.template_id, n.templates),
    template_version: r.template_version,
    date_from: r.date_from,
    date_to: r.date_to,
    replace_existing: r.replace_existing,
    include_override_days: r.include_override_days,
    status: r.status as TemplateApplication["status"],
    days_total: r.days_total,
    days_done: r.days_done,
    schedules_written: r.schedules_written,
    blockouts_written: r.blockouts_written,
    days_skipped: skipped[i]!.map(([date, provider, reason]) => ({ date, provider: ref(provider, n.providers), reason })),
    error: r.error,
    completed_at: r.completed_at,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

// ---- the blocks' rules ------------------------------------------------------------------------

/** A lookup whose 404 or 422 names the block it was made for (`loc` the block's field). */
function* forBlock<T>(work: Work<T>, what: string, loc: (string | number)[]): Work<T> {
  try {
    return yield* work;
  } catch (e) {
    if (e instanceof NotFound) throw new NotFound(what);
    if (e instanceof ValidationFailed) throw new ValidationFailed([{ ...e.issues[0]!, loc }], e.code);
    throw e;
  }
}

/**
 * Every reference of the blocks, in block order: the provider, the location
 * (404 naming the block), the operatory (404, or 422 operatory_location_mismatch
 * when it belongs to another location), the blockout type (404, or 422
 * blockout_type_invalid for a definition of another category). Each distinct
 * id is looked up once. Archived records are refused, as on the record's own
 * create; the apply re-checks the stored blocks the same way.
 */
export function* checkBlockRefs(db: TenantDb, blocks: readonly TemplateBlock[]): Work<void> {
  const seen = new Set<string>();
  const once = (kind: string, id: string) => !seen.has(`${kind}:${id}`) && !!seen.add(`${kind}:${id}`);
  for (const [i, b] of blocks.entries()) {
    const at = (field: string) => ["body", "blocks", i, field];
    if (once("p", b.provider_id) && !(yield* providerRecords.find(db, b.provider_id))) throw new NotFound(`Provider of blocks[${i}]`);
    if (once("l", b.location_id) && !(yield* locationRecords.find(db, b.location_id))) throw new NotFound(`Location of blocks[${i}]`);
    if (b.operatory_id && once(`o${b.location_id}`, b.operatory_id))
      yield* forBlock(requireOperatoryAt(db, b.operatory_id, b.location_id, at("operatory_uuid")), `Operatory of blocks[${i}]`, at("operatory_uuid"));
    if (b.blockout_type_id && once("t", b.blockout_type_id))
      yield* forBlock(requireBlockoutType(db, b.blockout_type_id), `Blockout type of blocks[${i}]`, at("blockout_type_uuid"));
  }
}

const overlaps = (a: { start_time: string; end_time: string }, b: { start_time: string; end_time: string }) =>
  a.start_time < b.end_time && b.start_time < a.end_time;

/**
 * 422 invalid_hours when a block does not end after it starts; 422
 * block_overlap when two working blocks of one provider overlap on a weekday
 * (at any location: one person, one place), naming both. Touching blocks do
 * not overlap; reserved-time blocks may lie inside working ones.
 */
function checkBlockRules(blocks: readonly TemplateBlock[]): void {
  for (const [i, b] of blocks.entries())
    if (b.end_time <= b.start_time) throw invalid(["body", "blocks", i, "end_time"], "Must be after start_time", "value_error", "invalid_hours");
  const issues: ValidationIssue[] = [];
  for (let j = 0; j < blocks.length; j++) {
    const b = blocks[j]!;
    if (b.blockout_type_id) continue;
    for (let i = 0; i < j; i++) {
      const a = blocks[i]!;
      if (!a.blockout_type_id && a.provider_id === b.provider_id && a.weekday === b.weekday && overlaps(a, b))
        issues.push({
          loc: ["body", "blocks", j],
          msg: `blocks[${j}] (${b.start_time}-${b.end_time}) overlaps blocks[${i}] (${a.start_time}-${a.end_time}): the same provider's working hours on weekday ${b.weekday}`,
          type: "value_error",
        });
    }
  }
  if (issues.length) throw new ValidationFailed(issues.slice(0, 20), "block_overlap");
}

/** The request's blocks as stored, checked: references first (404/422), then the hours and overlaps (422). */
function* blocksOf(db: TenantDb, input: readonly TemplateBlockInput[]): Work<TemplateBlock[]> {
  const blocks = input.map((b) => ({
    weekday: b.weekday,
    start_time: b.start_time,
    end_time: b.end_time,
    provider_id: b.provider_uuid,
    operatory_id: b.operatory_uuid ?? null,
    location_id: b.location_uuid,
    blockout_type_id: b.blockout_type_uuid ?? null,
  }));
  yield* checkBlockRefs(db, blocks);
  checkBlockRules(blocks);
  return blocks;
}

/** 422 template_archived: an archived template is read-only and cannot be applied. */
export function assertNotArchived(t: TemplateRow, loc: (string | number)[] = ["path", "template_uuid"]): void {
  if (t.archived_at) throw invalid(loc, "The schedule template is archived", "value_error", "template_archived");
}

/** 409 template_application_running while an application of the template is queued or running (its job reads the template as it was). */
export function* assertNoApplicationRunning(db: TenantDb, templateId: string): Work<void> {
  const a = scheduleTemplateApplications;
  const running = yield* get(
    db
      .select({ id: a.id })
      .from(a)
      .where(and(eq(a.template_id, templateId), inArray(a.status, ["queued", "running"])))
      .limit(1),
  );
  if (running)
    throw new Conflict(`An application of this template (${running.id}) is still in progress; wait until it completes`, "template_application_running");
}

// ---- the verbs ---------------------------------------------------------------------------------

export async function listTemplates(ctx: OrgContext, q: ScheduleTemplateListQuery) {
  return ctx.db.read(function* (db) {
    const t = scheduleTemplates;
    const page = yield* templateRecords.list(db, q, {
      where: [q.include_archived ? undefined : isNull(t.archived_at)],
      orderBy: [t.name, t.id],
    });
    return { ...page, items: yield* presentTemplates(db, page.items) };
  });
}

export async function getTemplate(ctx: OrgContext, id: string): Promise<ScheduleTemplate> {
  return ctx.db.read(function* (db) {
    return (yield* presentTemplates(db, [yield* templateRecords.require(db, id)]))[0]!;
  });
}

export async function createTemplate(ctx: OrgContext, input: ScheduleTemplateCreate): Promise<ScheduleTemplate> {
  return withTransaction(ctx, function* (s) {
    const blocks = yield* blocksOf(s.tx, input.blocks);
    const row = yield* templateRecords.create(s, { name: input.name, note: input.note ?? "", blocks, archived_at: null }, { blocks: blocks.length });
    return (yield* presentTemplates(s.tx, [row]))[0]!;
  });
}

export async function updateTemplate(ctx: OrgContext, id: string, input: ScheduleTemplatePatch): Promise<ScheduleTemplate> {
  const { base_version, blocks, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const current = yield* templateRecords.requireCurrent(s.tx, id, base_version);
    assertNotArchived(current);
    yield* assertNoApplicationRunning(s.tx, id);
    const changes: Partial<TemplateRow> = { ...patch };
    if (blocks) changes.blocks = yield* blocksOf(s.tx, blocks);
    const row = yield* templateRecords.update(s, id, base_version, changes);
    return (yield* presentTemplates(s.tx, [row]))[0]!;
  });
}

/** Sets archived_at; archiving an archived template changes nothing and answers it as it is. */
export async function archiveTemplate(ctx: OrgContext, id: string, q: ScheduleTemplateArchiveQuery): Promise<ScheduleTemplate> {
  return withTransaction(ctx, function* (s) {
    const current = yield* templateRecords.requireCurrent(s.tx, id, q.base_version);
    let row = current;
    if (!current.archived_at) {
      yield* assertNoApplicationRunning(s.tx, id);
      row = yield* templateRecords.update(s, id, current.version, { archived_at: s.now }, { action: "archived" });
    }
    return (yield* presentTemplates(s.tx, [row]))[0]!;
  });
}

export async function listApplications(ctx: OrgContext, templateId: string, q: ApplicationListQuery) {
  return ctx.db.read(function* (db) {
    yield* templateRecords.require(db, templateId);
    const a = scheduleTemplateApplications;
    const page = yield* applicationRecords.list(db, q, { where: [eq(a.template_id, templateId)], orderBy: [desc(a.created_at), desc(a.id)] });
    return { ...page, items: yield* presentApplications(db, page.items) };
  });
}

export async function getApplication(ctx: OrgContext, id: string): Promise<TemplateApplication> {
  return ctx.db.read(function* (db) {
    return (yield* presentApplications(db, [yield* applicationRecords.require(db, id)]))[0]!;
  });
}
