import { and, eq, isNull, max, type SQL } from "drizzle-orm";
import { interactionModes as modes } from "@db/tenant/odontogram-tools";
import { get, type Work } from "@/platform/db/work";
import { Conflict, ValidationFailed } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { anyContains } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import type { InteractionMode, InteractionModeCreate, InteractionModeListQuery, InteractionModePatch } from "./schemas";

type ModeRow = typeof modes.$inferSelect;

export const serializeMode = (r: ModeRow): InteractionMode => ({
  id: r.id,
  code: r.code,
  name: r.name,
  description: r.description,
  cursor_icon: r.cursor_icon,
  default_tool: r.default_tool as InteractionMode["default_tool"],
  selection_type: r.selection_type as InteractionMode["selection_type"],
  allowed_scopes: r.allowed_scopes as InteractionMode["allowed_scopes"],
  display_order: r.display_order,
  is_system: r.is_system,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

const records = defineResource<ModeRow, InteractionMode>({ table: modes, name: "interaction_mode", label: "Interaction mode", serialize: serializeMode });

// A system mode is what the charting UI is built around: its behaviour is fixed,
// only its presentation may change, and it cannot be archived.
const SYSTEM_LOCKED = ["default_tool", "selection_type", "allowed_scopes"] as const;

function* assertCodeFree(db: TenantDb, code: string): Work<void> {
  const clash = yield* get(
    db
      .select({ id: modes.id })
      .from(modes)
      .where(and(eq(modes.code, code), isNull(modes.deleted_at)))
      .limit(1),
  );
  if (clash) throw new Conflict(`An interaction mode with the code "${code}" already exists`, "duplicate");
}

export async function listInteractionModes(ctx: OrgContext, q: InteractionModeListQuery) {
  const where: (SQL | undefined)[] = [
    q.search ? anyContains([modes.name, modes.code], q.search) : undefined,
    q.is_system === undefined ? undefined : eq(modes.is_system, q.is_system),
  ];
  const page = await ctx.db.read((db) => records.list(db, q, { where, orderBy: [modes.display_order, modes.name, modes.id] }));
  return { ...page, items: page.items.map(serializeMode) };
}

export async function getInteractionMode(ctx: OrgContext, id: string) {
  return serializeMode(await ctx.db.read((db) => records.require(db, id)));
}

export async function createInteractionMode(ctx: OrgContext, input: InteractionModeCreate) {
  return serializeMode(
    await withTransaction(ctx, function* (s) {
      yield* assertCodeFree(s.tx, input.code);
      let order = input.display_order;
      if (order === undefined) {
        const last = yield* get(
          s.tx
            .select({ n: max(modes.display_order) })
            .from(modes)
            .where(isNull(modes.deleted_at)),
        );
        order = last?.n == null ? 0 : last.n + 1;
      }
      return yield* records.create(
        s,
        {
          code: input.code,
          name: input.name,
          description: input.description ?? null,
          cursor_icon: input.cursor_icon ?? null,
          default_tool: input.default_tool,
          selection_type: input.selection_type,
          allowed_scopes: input.allowed_scopes,
          display_order: order,
          is_system: input.is_system ?? false,
        },
        { code: input.code },
      );
    }),
  );
}

export async function updateInteractionMode(ctx: OrgContext, id: string, input: InteractionModePatch) {
  const { base_version, ...patch } = input;
  return serializeMode(
    await withTransaction(ctx, function* (s) {
      const current = yield* records.require(s.tx, id);
      const locked = SYSTEM_LOCKED.filter((f) => patch[f] !== undefined);
      if (current.is_system && locked.length) {
        throw new ValidationFailed(
          locked.map((f) => ({ loc: ["body", f], msg: "A system interaction mode's behaviour cannot change", type: "value_error" })),
          "system_record",
        );
      }
      return yield* records.update(s, id, base_version, patch);
    }),
  );
}

export async function archiveInteractionMode(ctx: OrgContext, id: string) {
  return serializeMode(
    await withTransaction(ctx, function* (s) {
      const current = yield* records.require(s.tx, id);
      if (current.is_system)
        throw new ValidationFailed([{ loc: ["path", "mode_uuid"], msg: "A system interaction mode cannot be archived", type: "value_error" }], "system_record");
      return yield* records.archive(s, id);
    }),
  );
}
