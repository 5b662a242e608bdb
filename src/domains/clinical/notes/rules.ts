import { and, asc, desc, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import { autoNoteRules, clinicalNoteTemplates } from "@db/tenant/clinical-notes";
import { get, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { LOCATION_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { idsOf, nameSource, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import type { Paging } from "@/platform/records/paging";
import { requireProvider } from "@/domains/providers/record/service";
import { locationRecords } from "@/domains/providers/locations/service";
import {
  PLACEHOLDERS,
  type Rule,
  type RuleCreate,
  type RuleListQuery,
  type RulePatch,
  type Template,
  type TemplateCreate,
  type TemplatePatch,
} from "./schemas";

export type RuleRow = typeof autoNoteRules.$inferSelect;
export type TemplateRow = typeof clinicalNoteTemplates.$inferSelect;
const R = autoNoteRules;
const T = clinicalNoteTemplates;

// ---- templates -------------------------------------------------------------------

const serializeTemplate = (r: TemplateRow): Template => ({
  id: r.id,
  name: r.name,
  body: r.body,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});
export const templateRecords = defineResource<TemplateRow, Template>({
  table: T,
  name: "clinical_note_template",
  label: "Clinical note template",
  serialize: serializeTemplate,
});
const TEMPLATE_NAMES = nameSource(T.id, { name: T.name }, (r) => r.name);

export const PLACEHOLDER_RE = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
const KNOWN = new Set<string>(PLACEHOLDERS);

/** A typo in a placeholder would print literally into every note: refuse it. */
function checkPlaceholders(body: string | undefined) {
  for (const m of body?.matchAll(PLACEHOLDER_RE) ?? []) {
    if (!KNOWN.has(m[1]!))
      throw invalid(["body", "body"], `Unknown placeholder {{${m[1]}}}; known: ${PLACEHOLDERS.join(", ")}`, "value_error", "unknown_placeholder");
  }
}

export async function listTemplates(ctx: OrgContext, q: Paging) {
  const page = await ctx.db.read((db) => templateRecords.list(db, q, { orderBy: [T.name, T.id] }));
  return { ...page, items: page.items.map(serializeTemplate) };
}

export function getTemplate(ctx: OrgContext, id: string) {
  return templateRecords.read(ctx.db, id);
}

export async function createTemplate(ctx: OrgContext, input: TemplateCreate) {
  checkPlaceholders(input.body);
  return serializeTemplate(await withTransaction(ctx, (s) => templateRecords.create(s, input)));
}

export async function updateTemplate(ctx: OrgContext, id: string, input: TemplatePatch) {
  const { base_version, ...patch } = input;
  checkPlaceholders(patch.body);
  return serializeTemplate(await withTransaction(ctx, (s) => templateRecords.update(s, id, base_version, patch)));
}

/** 409 template_in_use while a rule that is not archived still names it. */
export async function archiveTemplate(ctx: OrgContext, id: string) {
  return serializeTemplate(
    await withTransaction(ctx, function* (s) {
      yield* templateRecords.require(s.tx, id);
      const user = yield* get(
        s.tx
          .select({ id: R.id })
          .from(R)
          .where(and(eq(R.template_id, id), isNull(R.deleted_at)))
          .limit(1),
      );
      if (user) throw new Conflict("An auto-note rule still uses this template; archive the rule or change its template first", "template_in_use");
      return yield* templateRecords.archive(s, id);
    }),
  );
}

// ---- rules -----------------------------------------------------------------------

function serializeRule(r: RuleRow, n: { locations?: Names; providers?: Names; templates?: Names } = {}): Rule {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    is_active: r.is_active,
    priority: r.priority,
    trigger_event: r.trigger_event as Rule["trigger_event"],
    merge_strategy: r.merge_strategy as Rule["merge_strategy"],
    procedure_category: r.procedure_category as Rule["procedure_category"],
    procedure_code_pattern: r.procedure_code_pattern,
    location: ref(r.location_id, n.locations),
    provider: ref(r.provider_id, n.providers),
    template: ref(r.template_id, n.templates),
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}
export const ruleRecords = defineResource<RuleRow, Rule>({ table: R, name: "auto_note_rule", label: "Auto-note rule", serialize: (r) => serializeRule(r) });
export const RULE_NAMES = nameSource(R.id, { name: R.name }, (r) => r.name);

function* presentRules(db: TenantDb, rows: RuleRow[]): Work<Rule[]> {
  const n = yield* namesOfEach(db, {
    locations: [LOCATION_NAMES, idsOf(rows, (r) => r.location_id)],
    providers: [PROVIDER_NAMES, idsOf(rows, (r) => r.provider_id)],
    templates: [TEMPLATE_NAMES, idsOf(rows, (r) => r.template_id)],
  });
  return rows.map((r) => serializeRule(r, n));
}

type RuleWritable = Omit<RulePatch, "base_version">;

function toColumns(input: RuleWritable): Partial<RuleRow> {
  const { location_uuid, provider_uuid, template_uuid, procedure_code_pattern, ...rest } = input;
  const out: Partial<RuleRow> = { ...rest };
  if (location_uuid !== undefined) out.location_id = location_uuid;
  if (provider_uuid !== undefined) out.provider_id = provider_uuid;
  if (template_uuid !== undefined) out.template_id = template_uuid;
  if (procedure_code_pattern !== undefined) out.procedure_code_pattern = procedure_code_pattern?.toUpperCase() ?? null;
  return out;
}

/** The rule as it will be (`next`): refs exist (404), name free (409), filters fit the trigger (422). */
function* checkRule(db: TenantDb, next: Partial<RuleRow>, changed: Partial<RuleRow>, selfId?: string): Work<void> {
  if (changed.location_id) yield* locationRecords.require(db, changed.location_id);
  if (changed.provider_id) yield* requireProvider(db, changed.provider_id);
  if (changed.template_id && !(yield* templateRecords.find(db, changed.template_id))) throw new NotFound("Clinical note template");
  if (next.trigger_event !== "procedure_completed") {
    for (const field of ["procedure_category", "procedure_code_pattern"] as const) {
      if (next[field])
        throw invalid(["body", field], "Procedure filters apply only to procedure_completed rules", "value_error", "procedure_filter_not_applicable");
    }
  }
  if (changed.name !== undefined) {
    const conds: SQL[] = [sql`lower(${R.name}) = lower(${changed.name})`, isNull(R.deleted_at)];
    if (selfId) conds.push(ne(R.id, selfId));
    if (
      yield* get(
        db
          .select({ id: R.id })
          .from(R)
          .where(and(...conds))
          .limit(1),
      )
    )
      throw new Conflict("Another auto-note rule already has this name", "duplicate");
  }
}

export async function listRules(ctx: OrgContext, q: RuleListQuery) {
  return ctx.db.read(function* (db) {
    const page = yield* ruleRecords.list(db, q, {
      where: [q.trigger_event ? eq(R.trigger_event, q.trigger_event) : undefined, q.is_active !== undefined ? eq(R.is_active, q.is_active) : undefined],
      orderBy: [desc(R.priority), asc(R.name), asc(R.id)],
    });
    return { ...page, items: yield* presentRules(db, page.items) };
  });
}

export async function getRule(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return (yield* presentRules(db, [yield* ruleRecords.require(db, id)]))[0]!;
  });
}

export async function createRule(ctx: OrgContext, input: RuleCreate) {
  return withTransaction(ctx, function* (s) {
    const cols = toColumns(input);
    yield* checkRule(s.tx, cols, cols);
    const row = yield* ruleRecords.create(s, cols, { trigger_event: input.trigger_event });
    return (yield* presentRules(s.tx, [row]))[0]!;
  });
}

export async function updateRule(ctx: OrgContext, id: string, input: RulePatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    // version first: a stale client learns that before any rule about the new values
    const before = yield* ruleRecords.requireCurrent(s.tx, id, base_version);
    const cols = toColumns(patch);
    yield* checkRule(s.tx, { ...before, ...cols }, cols, id);
    const row = yield* ruleRecords.update(s, id, base_version, cols);
    return (yield* presentRules(s.tx, [row]))[0]!;
  });
}

export async function archiveRule(ctx: OrgContext, id: string) {
  return withTransaction(ctx, function* (s) {
    return (yield* presentRules(s.tx, [yield* ruleRecords.archive(s, id)]))[0]!;
  });
}
