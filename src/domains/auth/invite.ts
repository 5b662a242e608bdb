import { and, eq, gt, isNull } from "drizzle-orm";
import { memberships, refreshTokens, sessions, users } from "@db/control/schema";
import { get, run } from "@/platform/db/work";
import { newId, randomToken, sha256 } from "@/platform/ids";
import { NotFound, Unauthorized } from "@/platform/errors";
import { hashPassword, verifyPassword } from "@/platform/auth/passwords";
import type { PlatformRuntime } from "@/platform/runtime";
import { loadMember } from "@/domains/iam/users";
import { throttleOf, type AttemptFrom, type TokenPair as Pair } from "./service";

type Invitation = {
  membership_id: string;
  org_id: string;
  user_id: string;
  status: string;
  expires_at: string | null;
  password_hash: string | null;
  user_status: string;
  display_name: string;
};

/**
 * Redeem a one-time invitation: the membership becomes active and the caller gets
 * a session. The token is shown to whoever invited, so it never proves identity on
 * its own: an account that already has a password must present that password.
 * Failures (unknown token, wrong password) are throttled per address and per token.
 */
export function acceptInvite(
  rt: PlatformRuntime,
  input: { token: string; password: string },
  meta: { requestId: string | null; ip: string | null },
  from: AttemptFrom,
): Promise<Pair> {
  const tokenHash = sha256(input.token);
  const throttle = throttleOf(rt);
  return throttle.attempt(
    [throttle.secret("accept-invite", tokenHash), throttle.address("accept-invite", from.address)],
    (err) => err instanceof NotFound || err instanceof Unauthorized,
    () => redeem(rt, input, tokenHash, meta),
  );
}

async function redeem(
  rt: PlatformRuntime,
  input: { token: string; password: string },
  tokenHash: string,
  meta: { requestId: string | null; ip: string | null },
): Promise<Pair> {
  const found = await rt.control.read((db) =>
    get<Invitation>(
      db
        .select({
          membership_id: memberships.id,
          org_id: memberships.org_id,
          user_id: memberships.user_id,
          status: memberships.status,
          expires_at: memberships.invitation_expires_at,
          password_hash: users.password_hash,
          user_status: users.status,
          display_name: users.display_name,
        })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.user_id))
        .where(eq(memberships.invitation_token_hash, tokenHash)),
    ),
  );
  const now = new Date();
  const nowS = now.toISOString();
  if (!found || found.status !== "invited" || !found.expires_at || found.expires_at <= nowS) throw new NotFound("Invitation");
  const org = await rt.access.org(found.org_id);
  if (!org) throw new NotFound("Invitation");
  if (found.user_status !== "active") throw new Unauthorized("Account is not active");
  let newHash: string | null = null;
  if (found.password_hash) {
    if (!(await verifyPassword(input.password, found.password_hash))) throw new Unauthorized("The password does not match this account's password");
  } else newHash = await hashPassword(input.password);

  const sessionId = newId();
  const refresh = randomToken();
  const sessionEnd = new Date(now.getTime() + rt.config.refreshTokenTtl * 1000).toISOString();
  const caller = { actor: { type: "user" as const, id: found.user_id, display_name: found.display_name }, requestId: meta.requestId, ip: meta.ip };
  await rt.orgs.writeControl(function* (tx, audit) {
    // the invitation names its org: the membership is read in that org only
    const member = { orgId: found.org_id, db: tx };
    const before = yield* loadMember(member, found.user_id);
    const claimed = yield* get(
      tx
        .update(memberships)
        .set({ status: "active", joined_at: nowS, invitation_token_hash: null, invitation_expires_at: null, version: before.version + 1, updated_at: nowS })
        .where(
          and(
            eq(memberships.id, found.membership_id),
            eq(memberships.invitation_token_hash, tokenHash),
            eq(memberships.status, "invited"),
            gt(memberships.invitation_expires_at, nowS),
          ),
        )
        .returning({ id: memberships.id }),
    );
    if (!claimed) throw new NotFound("Invitation");
    if (newHash) {
      // Only an account without a password gets one here; a password set meanwhile was never checked.
      const set = yield* get(
        tx
          .update(users)
          .set({ password_hash: newHash, updated_at: nowS })
          .where(and(eq(users.id, found.user_id), isNull(users.password_hash)))
          .returning({ id: users.id }),
      );
      if (!set) throw new Unauthorized("The password does not match this account's password");
    }
    yield* run(tx.insert(sessions).values({ id: sessionId, user_id: found.user_id, created_at: nowS, expires_at: sessionEnd }));
    yield* run(tx.insert(refreshTokens).values({ id: newId(), session_id: sessionId, token_hash: sha256(refresh), created_at: nowS, expires_at: sessionEnd }));
    yield* run(tx.update(users).set({ last_login_at: nowS }).where(eq(users.id, found.user_id)));
    const after = yield* loadMember(member, found.user_id);
    yield* audit(
      org.id,
      caller,
      { action: "membership.activated", resource_type: "membership", resource_id: found.user_id, before, after },
      { type: "membership.activated", resource_type: "membership", resource_id: found.user_id, data: { id: found.user_id, membership_status: "active" } },
    );
  });
  return { access_token: await rt.tokens.issue(found.user_id, sessionId), refresh_token: refresh, token_type: "bearer", expires_in: rt.config.accessTokenTtl };
}
