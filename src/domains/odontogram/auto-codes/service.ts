import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { autoCodeFamilies, autoCodeRules } from "@db/tenant/auto-codes";
import { all, get, type Work } from "@/platform/db/work";
import { Conflict, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { anyContains } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { factsOf, matches, needsMaterial, parseConditions } from "./conditions";
import type { SelectionType } from "@db/tenant/auto-codes";
import type {
  AutoCodeFamily,
  AutoCodeFamilyCreate,
  AutoCodeFamilyListQuery,
  AutoCodeFamilyPatch,
  AutoCodeRule,
  AutoCodeRuleCreate,
  AutoCodeRuleListQuery,
  AutoCodeRulePatch,
  ResolveRequest,
  ResolveResult,
} from "./schemas";

type FamilyRow = typeof autoCodeFamilies.$inferSelect;
type RuleRow = typeof autoCodeRules.$inferSelect;

// Stored shapes (audit before/after); the API shapes add derived fields and refs.
const storedFamily = (r: FamilyRow) => ({
  id: r.id,
  family_name: r.family_name,
  display_name: r.display_name,
  description: r.description,
  base_procedure_code: r.base_procedure_code,
  is_active: r.is_active,
  selection_type: r.selection_type as SelectionType,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});
const storedRule = (r: RuleRow) => ({
  id: r.id,
  family_id: r.family_id,
  conditions: r.conditions,
  priority: r.priority,
  procedure_code: r.procedure_code,
  is_active: r.is_active,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const familyRecords = defineResource<FamilyRow, ReturnType<typeof storedFamily>>({
  table: autoCodeFamilies,
  name: "auto_code_family",
  label: "Auto-code family",
  serialize: storedFamily,
});
export const ruleRecords = defineResource<RuleRow, ReturnType<typeof storedRule>>({
  table: autoCodeRules,
  name: "auto_code_rule",
  label: "Auto-code rule",
  serialize: storedRule,
});

const liveRulesOf = (familyIds: string[], activeOnly: boolean) =>
  and(inArray(autoCodeRules.family_id, familyIds), isNull(autoCodeRules.deleted_at), activeOnly ? eq(autoCodeRules.is_active, true) : undefined);

/** The families (of those given) with an active rule that needs material_family: requires_material_family is derived, never stored. */
function* needingMaterial(db: TenantDb, familyIds: string[]): Work<Set<string>> {
  if (!familyIds.length) return new Set();
  const rules = yield* all(
    db.select({ family_id: autoCodeRules.family_id, conditions: autoCodeRules.conditions }).from(autoCodeRules).where(liveRulesOf(familyIds, true)),
  );
  return new Set(rules.filter((r) => needsMaterial(r.conditions)).map((r) => r.family_id));
}

function* familiesOut(db: TenantDb, rows: FamilyRow[]): Work<AutoCodeFamily[]> {
  const material = yield* needingMaterial(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...storedFamily(r), requires_material_family: material.has(r.id) }));
}
function* oneFamily(db: TenantDb, row: FamilyRow): Work<AutoCodeFamily> {
  return (yield* familiesOut(db, [row]))[0]!;
}

const ruleOut = (r: RuleRow, family: FamilyRow): AutoCodeRule => {
  const { family_id: _f, ...rest } = storedRule(r);
  return { ...rest, family: { uuid: family.id, name: family.display_name } };
};

// ---- families ------------------------------------------------------------------------

export async function listFamilies(ctx: OrgContext, q: AutoCodeFamilyListQuery) {
  return ctx.db.read(function* (db) {
    const page = yield* familyRecords.list(db, q, {
      where: [
        q.is_active === undefined ? undefined : eq(autoCodeFamilies.is_active, q.is_active),
        q.selection_type ? eq(autoCodeFamilies.selection_type, q.selection_type) : undefined,
        q.search ? anyContains([autoCodeFamilies.family_name, autoCodeFamilies.display_name], q.search) : undefined,
      ],
      orderBy: [autoCodeFamilies.display_name, autoCodeFamilies.id],
    });
    return { ...page, items: yield* familiesOut(db, page.items) };
  });
}

export async function getFamily(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* oneFamily(db, yield* familyRecords.require(db, id));
  });
}

function* familyByName(db: TenantDb, name: string): Work<FamilyRow | undefined> {
  return yield* get(
    db
      .select()
      .from(autoCodeFamilies)
      .where(and(sql`lower(${autoCodeFamilies.family_name}) = lower(${name})`, isNull(autoCodeFamilies.deleted_at))),
  );
}

export async function createFamily(ctx: OrgContext, input: AutoCodeFamilyCreate) {
  return withTransaction(ctx, function* (s) {
    if (yield* familyByName(s.tx, input.family_name)) throw new Conflict("An auto-code family with this family_name already exists");
    const row = yield* familyRecords.create(
      s,
      {
        family_name: input.family_name,
        display_name: input.display_name,
        selection_type: input.selection_type,
        description: input.description ?? null,
        base_procedure_code: input.base_procedure_code ?? null,
        is_active: input.is_active ?? true,
      },
      { selection_type: input.selection_type },
    );
    return yield* oneFamily(s.tx, row);
  });
}

export async function updateFamily(ctx: OrgContext, id: string, input: AutoCodeFamilyPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    return yield* oneFamily(s.tx, yield* familyRecords.update(s, id, base_version, patch));
  });
}

/** Archiving a family archives its live rules with it (each audited). */
export async function archiveFamily(ctx: OrgContext, id: string) {
  return withTransaction(ctx, function* (s) {
    yield* familyRecords.require(s.tx, id);
    const rules = yield* all(
      s.tx
        .select({ id: autoCodeRules.id })
        .from(autoCodeRules)
        .where(liveRulesOf([id], false)),
    );
    for (const r of rules) yield* ruleRecords.archive(s, r.id);
    return yield* oneFamily(s.tx, yield* familyRecords.archive(s, id));
  });
}

// ---- rules ---------------------------------------------------------------------------

export async function listRules(ctx: OrgContext, familyId: string, q: AutoCodeRuleListQuery) {
  return ctx.db.read(function* (db) {
    const family = yield* familyRecords.require(db, familyId);
    const page = yield* ruleRecords.list(db, q, {
      where: [eq(autoCodeRules.family_id, family.id), q.is_active === undefined ? undefined : eq(autoCodeRules.is_active, q.is_active)],
      orderBy: [desc(autoCodeRules.priority), asc(autoCodeRules.id)],
    });
    return { ...page, items: page.items.map((r) => ruleOut(r, family)) };
  });
}

export async function createRule(ctx: OrgContext, familyId: string, input: AutoCodeRuleCreate) {
  return withTransaction(ctx, function* (s) {
    const family = yield* familyRecords.require(s.tx, familyId);
    const conditions = parseConditions(family.selection_type as SelectionType, input.conditions);
    const row = yield* ruleRecords.create(
      s,
      {
        family_id: family.id,
        conditions,
        procedure_code: input.procedure_code,
        priority: input.priority ?? 0,
        is_active: input.is_active ?? true,
      },
      { family_id: family.id },
    );
    return ruleOut(row, family);
  });
}

/** A rule and its family (a live rule's family is live: archiving a family archives its rules). */
function* ruleWithFamily(db: TenantDb, id: string): Work<[RuleRow, FamilyRow]> {
  const rule = yield* ruleRecords.require(db, id);
  const family = yield* familyRecords.find(db, rule.family_id, true);
  if (!family) throw new NotFound("Auto-code family");
  return [rule, family];
}

export async function getRule(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    const [rule, family] = yield* ruleWithFamily(db, id);
    return ruleOut(rule, family);
  });
}

export async function updateRule(ctx: OrgContext, id: string, input: AutoCodeRulePatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const [, family] = yield* ruleWithFamily(s.tx, id);
    if (patch.conditions !== undefined) patch.conditions = parseConditions(family.selection_type as SelectionType, patch.conditions);
    return ruleOut(yield* ruleRecords.update(s, id, base_version, patch), family);
  });
}

export async function archiveRule(ctx: OrgContext, id: string) {
  return withTransaction(ctx, function* (s) {
    const [, family] = yield* ruleWithFamily(s.tx, id);
    return ruleOut(yield* ruleRecords.archive(s, id), family);
  });
}

// ---- resolve -------------------------------------------------------------------------

/**
 * The procedure code a family picks for a clinical context: its active rules by
 * priority (highest first, ties in creation order), the first match wins; else
 * the family's base code; else null. An inactive family checks no rules.
 */
export async function resolve(ctx: OrgContext, input: ResolveRequest): Promise<ResolveResult> {
  return ctx.db.read(function* (db) {
    const family = input.family_uuid ? yield* familyRecords.require(db, input.family_uuid) : yield* familyByName(db, input.family_name!);
    if (!family) throw new NotFound("Auto-code family");
    const facts = factsOf(input.context);
    const missing = new Set<string>();
    const answer = (procedure_code: string | null, source: ResolveResult["source"], rule_uuid: string | null): ResolveResult => ({
      procedure_code,
      matched: source === "rule",
      source,
      rule_uuid,
      family_uuid: family.id,
      family_name: family.family_name,
      missing_context: [...missing],
    });
    if (family.is_active) {
      const rules = yield* all(
        db
          .select()
          .from(autoCodeRules)
          .where(liveRulesOf([family.id], true))
          .orderBy(desc(autoCodeRules.priority), asc(autoCodeRules.id)),
      );
      for (const rule of rules) {
        if (matches(family.selection_type as SelectionType, rule.conditions, facts, missing)) return answer(rule.procedure_code, "rule", rule.id);
      }
    }
    return family.base_procedure_code ? answer(family.base_procedure_code, "base", null) : answer(null, "none", null);
  });
}
