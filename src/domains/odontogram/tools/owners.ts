import { and, eq, inArray, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { Forbidden, invalid, NotFound } from "@/platform/errors";
import { holdsPermission, type OrgContext } from "@/platform/records/context";
import type { OwnerType } from "./schemas";

// Hotkeys and macros belong to one of three owner levels, lowest first:
// system (the org's defaults), profile (a chart profile's), user (a person's own).

export const LEVEL: Record<OwnerType, number> = { system: 0, profile: 1, user: 2 };

export type Owner = { owner_type: OwnerType; owner_user_id: string | null; chart_profile_id: string | null; owner_key: string };

/**
 * The owner of a new record: owner_type defaults to profile when a chart
 * profile is named, else user; a user-level record always belongs to the caller.
 */
export function ownerOf(ctx: OrgContext, input: { owner_type?: OwnerType; chart_profile_uuid?: string }): Owner {
  const chart = input.chart_profile_uuid ?? null;
  const type = input.owner_type ?? (chart ? "profile" : "user");
  if (type === "profile" && !chart) throw invalid(["body", "chart_profile_uuid"], "Field required for owner_type profile", "missing");
  if (type !== "profile" && chart) throw invalid(["body", "chart_profile_uuid"], "Allowed only for owner_type profile", "value_error");
  if (type === "system") return { owner_type: type, owner_user_id: null, chart_profile_id: null, owner_key: "system" };
  if (type === "profile") return { owner_type: type, owner_user_id: null, chart_profile_id: chart, owner_key: `profile:${chart}` };
  return { owner_type: type, owner_user_id: ctx.actor.id, chart_profile_id: null, owner_key: `user:${ctx.actor.id}` };
}

/**
 * !!! PERMISSION CHECK: the routes let odontogram.read members write their OWN
 * user-level records; shared (system, profile) records need odontogram.write. !!!
 */
export const mayWriteShared = (ctx: OrgContext): boolean => holdsPermission(ctx, "odontogram.write");

export function assertMayWrite(ownerType: string, mayShared: boolean) {
  if (ownerType !== "user" && !mayShared) throw new Forbidden(`Changing ${ownerType} records needs odontogram.write`);
}

type OwnedColumns = { owner_type: SQLiteColumn; owner_user_id: SQLiteColumn; chart_profile_id: SQLiteColumn };

/** Shared rows and the caller's own user-level rows (other users' personal rows stay hidden). */
export function visibleTo(t: OwnedColumns, userId: string): SQL {
  return or(inArray(t.owner_type, ["system", "profile"]), and(eq(t.owner_type, "user"), eq(t.owner_user_id, userId)))!;
}

/**
 * !!! VISIBILITY CHECK: another user's personal record answers the same 404 as
 * a missing one. !!!
 */
export function requireVisible<R extends { owner_type: string; owner_user_id: string | null }>(row: R, userId: string, label: string): R {
  if (row.owner_type === "user" && row.owner_user_id !== userId) throw new NotFound(label);
  return row;
}
