import { newId, randomToken, sha256 } from "@/platform/ids";
import { Conflict, NotFound, ValidationFailed } from "@/platform/errors";
import { hashPassword } from "@/platform/auth/passwords";
import { checkVersion } from "@/platform/records/versions";
import type { OrgContext } from "@/platform/records/context";
import type { OrgControlRead, OrgControlWrite } from "@/platform/tenancy/org-control";
import type { Work } from "@/platform/db/work";
import {
  activeAdminCount,
  groupRefsOf,
  insertMembership,
  dropAllAssignments,
  insertUser,
  memberPage,
  memberRow,
  membershipGroupRows,
  membershipOf,
  membershipsElsewhere,
  renameUser,
  setMembershipGroups,
  updateMembership,
  userAccount,
  userIdByEmail,
  type GroupRef,
  type GroupRow,
  type MemberRow,
} from "./repository";
import { assertHolds, callerKeys, groupKeys, requireActiveGroups } from "./groups";
import { assertNoUnapprovedPhi } from "./access/assignments";
import { settleForMemberWrite } from "./access/approvals";
import type { Member, MemberCreate, MemberCreated, MemberListQuery, MemberPatch, MembershipStatus } from "./schemas";

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

const serializeMember = (r: MemberRow, groups: GroupRef[]): Member => ({
  id: r.user_id,
  email: r.email,
  display_name: r.display_name,
  membership_status: r.status as MembershipStatus,
  joined_at: r.joined_at,
  last_login_at: r.last_login_at,
  groups,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

function* requireMemberRow(c: OrgControlRead, userId: string): Work<MemberRow> {
  const row = yield* memberRow(c, userId);
  if (!row) throw new NotFound("User");
  return row;
}

/** A member as the API shows them (also the audit snapshot of membership writes). */
export function* loadMember(c: OrgControlRead, userId: string): Work<Member> {
  const row = yield* requireMemberRow(c, userId);
  const groups = yield* groupRefsOf(c, [row.membership_id]);
  return serializeMember(row, groups.get(row.membership_id) ?? []);
}

/** An org must keep at least one active administrator, or nobody could manage it any more. */
function* assertNotLastAdmin(c: OrgControlRead, m: MemberRow, currentGroups: GroupRow[]): Work<void> {
  if (m.status !== "active" || !currentGroups.some((g) => g.is_org_admin)) return;
  if ((yield* activeAdminCount(c)) <= 1) throw new Conflict("This is the organization's last active administrator", "last_admin");
}

const allKeys = (groups: GroupRow[]) => groups.flatMap(groupKeys);

/** The membership write's audit entry and event, in the write's own transaction. */
function* auditMember(c: OrgControlWrite, action: string, before: Member | null, after: Member, data: Record<string, unknown> = {}): Work<void> {
  yield* c.audit(
    { action: `membership.${action}`, resource_type: "membership", resource_id: after.id, before, after },
    { type: `membership.${action}`, resource_type: "membership", resource_id: after.id, data: { id: after.id, ...data } },
  );
}

export async function listMembers(ctx: OrgContext, q: MemberListQuery) {
  return ctx.control.read(function* (c) {
    const page = yield* memberPage(c, q);
    const groups = yield* groupRefsOf(
      c,
      page.items.map((r) => r.membership_id),
    );
    return { ...page, items: page.items.map((r) => serializeMember(r, groups.get(r.membership_id) ?? [])) };
  });
}

export async function getMember(ctx: OrgContext, userId: string): Promise<Member> {
  return ctx.control.read((c) => loadMember(c, userId));
}

/**
 * Add a user to this org. A new email gets an account: active at once with a
 * password, otherwise invited. An existing account is always invited (its owner
 * accepts with their own password); a given password never replaces theirs.
 */
export async function createMember(ctx: OrgContext, input: MemberCreate): Promise<MemberCreated> {
  const caller = callerKeys(ctx);
  const known = await ctx.control.read((c) => userIdByEmail(c, input.email));
  const passwordHash = !known && input.password ? await hashPassword(input.password) : null;
  const token = randomToken();
  const expires = new Date(Date.now() + INVITATION_TTL_MS).toISOString();
  const out = await ctx.control.write(function* (c) {
    const groups = yield* requireActiveGroups(c, input.group_uuids ?? []);
    assertHolds(caller, allKeys(groups));
    yield* assertNoUnapprovedPhi(c, ctx, groups);
    const existingUser = yield* userIdByEmail(c, input.email);
    const userId = existingUser ?? newId();
    if (!existingUser) yield* insertUser(c, { id: userId, email: input.email, display_name: input.display_name, password_hash: passwordHash, now: c.now });
    const active = !existingUser && passwordHash !== null;
    const existing = yield* membershipOf(c, userId);
    if (existing && existing.status !== "removed") throw new Conflict("This user is already a member of the organization", "duplicate");
    const before = existing ? yield* loadMember(c, userId) : null;
    const state = {
      status: active ? "active" : "invited",
      joined_at: active ? c.now : null,
      invitation_token_hash: active ? null : sha256(token),
      invitation_expires_at: active ? null : expires,
      updated_at: c.now,
    };
    const membershipId = existing?.id ?? newId();
    if (existing) yield* updateMembership(c, existing.id, existing.version, state);
    else yield* insertMembership(c, { ...state, id: membershipId, user_id: userId, created_at: c.now });
    yield* settleForMemberWrite(
      c,
      ctx.actor.id,
      membershipId,
      groups.map((g) => g.id),
    );
    yield* setMembershipGroups(c, membershipId, groups, ctx.actor.id);
    const after = yield* loadMember(c, userId);
    yield* auditMember(c, "created", before, after, { membership_status: after.membership_status });
    return { after, invited: !active };
  });
  return { ...out.after, invitation_token: out.invited ? token : null };
}

export async function updateMember(ctx: OrgContext, userId: string, input: MemberPatch): Promise<Member> {
  const caller = callerKeys(ctx);
  return ctx.control.write(function* (c) {
    const m = yield* requireMemberRow(c, userId);
    checkVersion(m, input.base_version);
    if (m.status === "removed") throw new Conflict("The user was removed from the organization; add them again instead", "membership_removed");
    const before = yield* loadMember(c, userId);
    const current = yield* membershipGroupRows(c, m.membership_id);
    assertHolds(caller, allKeys(yield* membershipGroupRows(c, m.membership_id, "anywhere")), "change a member who holds permissions you do not hold");
    const changed: string[] = [];
    if (input.group_uuids) {
      const next = yield* requireActiveGroups(c, input.group_uuids);
      assertHolds(caller, allKeys(next));
      const held = new Set(current.map((g) => g.id));
      yield* assertNoUnapprovedPhi(
        c,
        ctx,
        next.filter((g) => !held.has(g.id)),
      );
      if (!next.some((g) => g.is_org_admin)) yield* assertNotLastAdmin(c, m, current);
      yield* settleForMemberWrite(
        c,
        ctx.actor.id,
        m.membership_id,
        next.map((g) => g.id),
      );
      yield* setMembershipGroups(c, m.membership_id, next, ctx.actor.id);
      changed.push("groups");
    }
    if (input.display_name !== undefined && input.display_name !== m.display_name) {
      // The account is shared by every org it belongs to: one org may not rename someone another org (or the platform) knows.
      const u = (yield* userAccount(c, userId))!;
      if (u.is_platform_admin || (yield* membershipsElsewhere(c, userId)) > 0) {
        throw new Conflict("This account is also used outside this organization; only its owner can change its name", "shared_account");
      }
      yield* renameUser(c, userId, u.version, input.display_name, c.now);
      changed.push("display_name");
    }
    yield* updateMembership(c, m.membership_id, m.version, { updated_at: c.now });
    const after = yield* loadMember(c, userId);
    yield* auditMember(c, "updated", before, after, { changed_fields: changed });
    return after;
  });
}

type StatusAction = "suspend" | "remove" | "reactivate";
const TRANSITIONS: Record<StatusAction, { to: MembershipStatus; from: MembershipStatus[]; event: string }> = {
  suspend: { to: "suspended", from: ["active"], event: "suspended" },
  remove: { to: "removed", from: ["active", "invited", "suspended"], event: "removed" },
  reactivate: { to: "active", from: ["suspended"], event: "reactivated" },
};

/** Suspend, remove or reactivate a member. Repeating a change that already happened returns the member unchanged. */
export async function changeMemberStatus(ctx: OrgContext, userId: string, action: StatusAction): Promise<Member> {
  const rule = TRANSITIONS[action];
  const caller = callerKeys(ctx);
  return ctx.control.write(function* (c) {
    const m = yield* requireMemberRow(c, userId);
    if (m.status === rule.to) return yield* loadMember(c, userId);
    if (!rule.from.includes(m.status as MembershipStatus)) {
      throw new ValidationFailed(
        [{ loc: ["path", "user_id"], msg: `Cannot ${action} a member whose status is ${m.status}`, type: "invalid_transition" }],
        "invalid_transition",
      );
    }
    const before = yield* loadMember(c, userId);
    const current = yield* membershipGroupRows(c, m.membership_id);
    assertHolds(caller, allKeys(yield* membershipGroupRows(c, m.membership_id, "anywhere")), "change a member who holds permissions you do not hold");
    if (rule.to !== "active") yield* assertNotLastAdmin(c, m, current);
    // A removed member keeps nothing: no groups, no usable invitation.
    if (rule.to === "removed") {
      yield* settleForMemberWrite(c, ctx.actor.id, m.membership_id, null);
      yield* dropAllAssignments(c, m.membership_id);
    }
    yield* updateMembership(c, m.membership_id, m.version, {
      status: rule.to,
      updated_at: c.now,
      ...(rule.to === "active" ? { joined_at: m.joined_at ?? c.now } : { invitation_token_hash: null, invitation_expires_at: null }),
    });
    const after = yield* loadMember(c, userId);
    yield* auditMember(c, rule.event, before, after, { membership_status: after.membership_status });
    return after;
  });
}
