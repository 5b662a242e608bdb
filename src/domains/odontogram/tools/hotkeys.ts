import { and, eq, isNull, max, ne, or, type SQL } from "drizzle-orm";
import { odontogramHotkeys as hotkeys } from "@db/tenant/odontogram-tools";
import { all, get, type Work } from "@/platform/db/work";
import { Conflict } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { pageOfList } from "@/platform/records/paging";
import { ref } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { assertMayWrite, LEVEL, mayWriteShared, ownerOf, requireVisible, visibleTo } from "./owners";
import type { Hotkey, HotkeyCreate, HotkeyListQuery, HotkeyPatch, OwnerType } from "./schemas";

type HotkeyRow = typeof hotkeys.$inferSelect;

export const serializeHotkey = (r: HotkeyRow): Hotkey => ({
  id: r.id,
  action: r.action,
  action_context: r.action_context,
  display_order: r.display_order,
  is_active: r.is_active,
  key_combo: r.key_combo,
  owner_type: r.owner_type as OwnerType,
  owner_user_uuid: r.owner_user_id,
  chart_profile: ref(r.chart_profile_id),
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

const records = defineResource<HotkeyRow, Hotkey>({ table: hotkeys, name: "hotkey", label: "Hotkey", serialize: serializeHotkey });

/** 409 duplicate when the owner already has a live hotkey on this key combo. */
function* assertComboFree(db: TenantDb, ownerKey: string, combo: string, selfId?: string): Work<void> {
  const conds: SQL[] = [eq(hotkeys.owner_key, ownerKey), eq(hotkeys.key_combo, combo), isNull(hotkeys.deleted_at)];
  if (selfId) conds.push(ne(hotkeys.id, selfId));
  const clash = yield* get(
    db
      .select({ id: hotkeys.id })
      .from(hotkeys)
      .where(and(...conds))
      .limit(1),
  );
  if (clash) throw new Conflict(`${combo} is already bound at this owner level`, "duplicate");
}

function* requireHotkey(db: TenantDb, id: string, userId: string): Work<HotkeyRow> {
  return requireVisible(yield* records.require(db, id), userId, "Hotkey");
}

const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
/** display_order, then key combo, then owner level (lowest first), then id: a stable order for both views. */
const byDisplay = (a: HotkeyRow, b: HotkeyRow) =>
  a.display_order - b.display_order || cmp(a.key_combo, b.key_combo) || LEVEL[a.owner_type as OwnerType] - LEVEL[b.owner_type as OwnerType] || cmp(a.id, b.id);

/**
 * Owner resolution: of the caller's active hotkeys (system, the named chart
 * profile's, the caller's own) each key combo keeps the one of the highest
 * level (user > profile > system). Inactive rows never mask a lower level.
 */
export function resolveHotkeys(rows: HotkeyRow[]): HotkeyRow[] {
  const winners = new Map<string, HotkeyRow>();
  for (const r of rows) {
    if (!r.is_active) continue;
    const held = winners.get(r.key_combo);
    if (!held || LEVEL[r.owner_type as OwnerType] > LEVEL[held.owner_type as OwnerType]) winners.set(r.key_combo, r);
  }
  return [...winners.values()].sort(byDisplay);
}

/** Both views are small (tens of rows), so they are resolved, sorted and paged in memory. */
export async function listHotkeys(ctx: OrgContext, q: HotkeyListQuery) {
  const chart = q.chart_profile_uuid;
  const resolved = q.resolved ?? true;
  const where: (SQL | undefined)[] = [isNull(hotkeys.deleted_at), visibleTo(hotkeys, ctx.actor.id)];
  // profile rows: only the named profile's; without one, resolution uses none and a raw list shows every profile's
  if (chart) where.push(or(ne(hotkeys.owner_type, "profile"), eq(hotkeys.chart_profile_id, chart)));
  else if (resolved) where.push(ne(hotkeys.owner_type, "profile"));
  if (resolved) where.push(eq(hotkeys.is_active, true));
  const rows = await ctx.db.read((db) =>
    all(
      db
        .select()
        .from(hotkeys)
        .where(and(...where)),
    ),
  );
  let items = resolved ? resolveHotkeys(rows) : rows.sort(byDisplay);
  if (q.owner_type) items = items.filter((r) => r.owner_type === q.owner_type);
  const page = pageOfList(items, q);
  return { ...page, items: page.items.map(serializeHotkey) };
}

export async function getHotkey(ctx: OrgContext, id: string) {
  return serializeHotkey(await ctx.db.read((db) => requireHotkey(db, id, ctx.actor.id)));
}

export async function createHotkey(ctx: OrgContext, input: HotkeyCreate) {
  const owner = ownerOf(ctx, input);
  assertMayWrite(owner.owner_type, mayWriteShared(ctx));
  return serializeHotkey(
    await withTransaction(ctx, function* (s) {
      yield* assertComboFree(s.tx, owner.owner_key, input.key_combo);
      let order = input.display_order;
      if (order === undefined) {
        const last = yield* get(
          s.tx
            .select({ n: max(hotkeys.display_order) })
            .from(hotkeys)
            .where(and(eq(hotkeys.owner_key, owner.owner_key), isNull(hotkeys.deleted_at))),
        );
        order = last?.n == null ? 0 : last.n + 1;
      }
      return yield* records.create(
        s,
        {
          ...owner,
          key_combo: input.key_combo,
          action: input.action,
          action_context: input.action_context ?? {},
          display_order: order,
          is_active: input.is_active ?? true,
        },
        { owner_type: owner.owner_type },
      );
    }),
  );
}

export async function updateHotkey(ctx: OrgContext, id: string, input: HotkeyPatch) {
  const { base_version, ...patch } = input;
  const mayShared = mayWriteShared(ctx);
  return serializeHotkey(
    await withTransaction(ctx, function* (s) {
      const current = yield* requireHotkey(s.tx, id, s.actor.id);
      assertMayWrite(current.owner_type, mayShared);
      if (patch.key_combo !== undefined) yield* assertComboFree(s.tx, current.owner_key, patch.key_combo, id);
      return yield* records.update(s, id, base_version, patch);
    }),
  );
}

export async function archiveHotkey(ctx: OrgContext, id: string) {
  const mayShared = mayWriteShared(ctx);
  return serializeHotkey(
    await withTransaction(ctx, function* (s) {
      const current = yield* requireHotkey(s.tx, id, s.actor.id);
      assertMayWrite(current.owner_type, mayShared);
      return yield* records.archive(s, id);
    }),
  );
}
