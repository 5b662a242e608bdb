import { and, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import { odontogramMacros as macros } from "@db/tenant/odontogram-tools";
import { get, type Work } from "@/platform/db/work";
import { Conflict, invalid } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { ref } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { containsText } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { assertMayWrite, mayWriteShared, ownerOf, requireVisible, visibleTo } from "./owners";
import {
  SURFACES_PLACEHOLDER,
  TOOTH_PLACEHOLDER,
  type Macro,
  type MacroAction,
  type MacroCreate,
  type MacroExpandBody,
  type MacroExpansion,
  type MacroListQuery,
  type MacroPatch,
  type OwnerType,
} from "./schemas";

type MacroRow = typeof macros.$inferSelect;

export const serializeMacro = (r: MacroRow): Macro => ({
  id: r.id,
  name: r.name,
  description: r.description,
  actions: r.actions,
  is_active: r.is_active,
  owner_type: r.owner_type as OwnerType,
  owner_user_uuid: r.owner_user_id,
  chart_profile: ref(r.chart_profile_id),
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

const records = defineResource<MacroRow, Macro>({ table: macros, name: "macro", label: "Macro", serialize: serializeMacro });

/** 409 duplicate when the owner already has a live macro of this name (case-insensitive). */
function* assertNameFree(db: TenantDb, ownerKey: string, name: string, selfId?: string): Work<void> {
  const conds: SQL[] = [eq(macros.owner_key, ownerKey), sql`lower(${macros.name}) = lower(${name})`, isNull(macros.deleted_at)];
  if (selfId) conds.push(ne(macros.id, selfId));
  const clash = yield* get(
    db
      .select({ id: macros.id })
      .from(macros)
      .where(and(...conds))
      .limit(1),
  );
  if (clash) throw new Conflict(`A macro named "${name}" already exists at this owner level`, "duplicate");
}

function* requireMacro(db: TenantDb, id: string, userId: string): Work<MacroRow> {
  return requireVisible(yield* records.require(db, id), userId, "Macro");
}

export async function listMacros(ctx: OrgContext, q: MacroListQuery) {
  const where: (SQL | undefined)[] = [
    visibleTo(macros, ctx.actor.id),
    q.owner_type ? eq(macros.owner_type, q.owner_type) : undefined,
    q.chart_profile_uuid ? eq(macros.chart_profile_id, q.chart_profile_uuid) : undefined,
    q.is_active === undefined ? undefined : eq(macros.is_active, q.is_active),
    q.search ? containsText(macros.name, q.search) : undefined,
  ];
  const page = await ctx.db.read((db) => records.list(db, q, { where, orderBy: [macros.name, macros.id] }));
  return { ...page, items: page.items.map(serializeMacro) };
}

export async function getMacro(ctx: OrgContext, id: string) {
  return serializeMacro(await ctx.db.read((db) => requireMacro(db, id, ctx.actor.id)));
}

export async function createMacro(ctx: OrgContext, input: MacroCreate) {
  const owner = ownerOf(ctx, input);
  assertMayWrite(owner.owner_type, mayWriteShared(ctx));
  return serializeMacro(
    await withTransaction(ctx, function* (s) {
      yield* assertNameFree(s.tx, owner.owner_key, input.name);
      return yield* records.create(
        s,
        {
          ...owner,
          name: input.name,
          description: input.description ?? null,
          actions: input.actions,
          is_active: input.is_active ?? true,
        },
        { owner_type: owner.owner_type },
      );
    }),
  );
}

export async function updateMacro(ctx: OrgContext, id: string, input: MacroPatch) {
  const { base_version, ...patch } = input;
  const mayShared = mayWriteShared(ctx);
  return serializeMacro(
    await withTransaction(ctx, function* (s) {
      const current = yield* requireMacro(s.tx, id, s.actor.id);
      assertMayWrite(current.owner_type, mayShared);
      if (patch.name !== undefined) yield* assertNameFree(s.tx, current.owner_key, patch.name, id);
      return yield* records.update(s, id, base_version, patch);
    }),
  );
}

export async function archiveMacro(ctx: OrgContext, id: string) {
  const mayShared = mayWriteShared(ctx);
  return serializeMacro(
    await withTransaction(ctx, function* (s) {
      const current = yield* requireMacro(s.tx, id, s.actor.id);
      assertMayWrite(current.owner_type, mayShared);
      return yield* records.archive(s, id);
    }),
  );
}

/**
 * The macro's actions with the $tooth and $surfaces placeholders replaced by
 * the context; 422 missing_context when an action needs a value the context
 * lacks, 422 macro_inactive for an inactive macro. Nothing is charted here:
 * the client runs the returned actions.
 */
export async function expandMacro(ctx: OrgContext, id: string, body: MacroExpandBody | undefined): Promise<MacroExpansion> {
  const macro = await ctx.db.read((db) => requireMacro(db, id, ctx.actor.id));
  if (!macro.is_active) throw invalid(["path", "macro_uuid"], "The macro is inactive", "value_error", "macro_inactive");
  const context = body?.context ?? {};
  const fill = (value: unknown, placeholder: string, field: "tooth_number" | "surfaces") => {
    if (value !== placeholder) return value;
    const given = context[field];
    if (given === undefined) throw invalid(["body", "context", field], `The macro needs ${field} in the context`, "missing", "missing_context");
    return given;
  };
  const actions = (macro.actions as MacroAction[]).map((a) => {
    const params: Record<string, unknown> = { ...a.params };
    if ("tooth_number" in params) params.tooth_number = fill(params.tooth_number, TOOTH_PLACEHOLDER, "tooth_number");
    for (const key of ["surfaces", "surface"]) if (key in params) params[key] = fill(params[key], SURFACES_PLACEHOLDER, "surfaces");
    return { type: a.type, params };
  });
  return { macro: { uuid: macro.id, name: macro.name }, actions };
}
