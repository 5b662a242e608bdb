import { and, eq } from "drizzle-orm";
import { refreshTokens, sessions, users } from "@db/control/schema";
import { get, run } from "@/platform/db/work";
import { newId, nowIso, randomToken, sha256 } from "@/platform/ids";
import { Unauthorized } from "@/platform/errors";
import { verifyPassword } from "@/platform/auth/passwords";
import { LoginThrottle } from "@/platform/auth/throttle";
import type { PlatformRuntime } from "@/platform/runtime";

/** Who is attempting: the client's address as the throttles key it (platform/http/rate-limit.ts `clientAddressOf`). */
export type AttemptFrom = { address: string };

export const throttleOf = (rt: PlatformRuntime) => new LoginThrottle(rt.cache, rt.config.loginThrottle);
const isUnauthorized = (err: unknown) => err instanceof Unauthorized;

export type TokenPair = { access_token: string; refresh_token: string; token_type: "bearer"; expires_in: number };

async function issuePair(rt: PlatformRuntime, userId: string, sessionId: string, refresh: string): Promise<TokenPair> {
  return { access_token: await rt.tokens.issue(userId, sessionId), refresh_token: refresh, token_type: "bearer", expires_in: rt.config.accessTokenTtl };
}

/**
 * Email and password to a new session. Every failure is the same 401, at the same
 * cost; failures are throttled per account and per address (429 while locked,
 * whether or not the email exists, before the password is looked at).
 */
export function login(rt: PlatformRuntime, email: string, password: string, from: AttemptFrom): Promise<TokenPair> {
  const throttle = throttleOf(rt);
  return throttle.attempt([throttle.account("login", email), throttle.address("login", from.address)], isUnauthorized, () => verifyLogin(rt, email, password));
}

async function verifyLogin(rt: PlatformRuntime, email: string, password: string): Promise<TokenPair> {
  const user = await rt.control.read((db) =>
    get<{ id: string; password_hash: string | null; status: string }>(
      db.select({ id: users.id, password_hash: users.password_hash, status: users.status }).from(users).where(eq(users.email, email.trim().toLowerCase())),
    ),
  );
  const ok = await verifyPassword(password, user?.password_hash);
  if (!user || !ok || user.status !== "active") throw new Unauthorized("Invalid email or password");
  const now = new Date();
  const sessionId = newId();
  const refresh = randomToken();
  await rt.control.write(function* (tx) {
    yield* run(
      tx.insert(sessions).values({
        id: sessionId,
        user_id: user.id,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + rt.config.refreshTokenTtl * 1000).toISOString(),
      }),
    );
    yield* run(
      tx.insert(refreshTokens).values({
        id: newId(),
        session_id: sessionId,
        token_hash: sha256(refresh),
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + rt.config.refreshTokenTtl * 1000).toISOString(),
      }),
    );
    yield* run(tx.update(users).set({ last_login_at: now.toISOString() }).where(eq(users.id, user.id)));
  });
  return issuePair(rt, user.id, sessionId, refresh);
}

/**
 * Rotate a refresh token. A spent token presented again means it leaked:
 * the whole session (its token family) is revoked. Refused tokens are throttled
 * per address, like failed logins.
 */
export function refresh(rt: PlatformRuntime, token: string, from: AttemptFrom): Promise<TokenPair> {
  const throttle = throttleOf(rt);
  return throttle.attempt([throttle.address("refresh", from.address)], isUnauthorized, () => rotateRefresh(rt, token));
}

async function rotateRefresh(rt: PlatformRuntime, token: string): Promise<TokenPair> {
  const now = nowIso();
  const next = randomToken();
  const outcome = await rt.control.write(function* (tx) {
    const row = yield* get<{ id: string; session_id: string; spent_at: string | null; expires_at: string }>(
      tx
        .select({ id: refreshTokens.id, session_id: refreshTokens.session_id, spent_at: refreshTokens.spent_at, expires_at: refreshTokens.expires_at })
        .from(refreshTokens)
        .where(eq(refreshTokens.token_hash, sha256(token))),
    );
    if (!row) return { kind: "invalid" as const };
    const session = yield* get<{ user_id: string; revoked_at: string | null; expires_at: string }>(
      tx
        .select({ user_id: sessions.user_id, revoked_at: sessions.revoked_at, expires_at: sessions.expires_at })
        .from(sessions)
        .where(eq(sessions.id, row.session_id)),
    );
    if (!session || session.revoked_at || session.expires_at <= now) return { kind: "invalid" as const };
    if (row.spent_at) {
      yield* run(tx.update(sessions).set({ revoked_at: now, revoked_reason: "refresh_token_reuse" }).where(eq(sessions.id, row.session_id)));
      return { kind: "reused" as const };
    }
    if (row.expires_at <= now) return { kind: "invalid" as const };
    const user = yield* get<{ status: string }>(tx.select({ status: users.status }).from(users).where(eq(users.id, session.user_id)));
    if (!user || user.status !== "active") return { kind: "invalid" as const };
    yield* run(
      tx
        .update(refreshTokens)
        .set({ spent_at: now })
        .where(and(eq(refreshTokens.id, row.id))),
    );
    yield* run(
      tx.insert(refreshTokens).values({ id: newId(), session_id: row.session_id, token_hash: sha256(next), created_at: now, expires_at: session.expires_at }),
    );
    return { kind: "ok" as const, userId: session.user_id, sessionId: row.session_id };
  });
  if (outcome.kind === "reused") {
    await rt.access.invalidate();
    throw new Unauthorized("Refresh token was already used; the session has been revoked");
  }
  if (outcome.kind !== "ok") throw new Unauthorized("Invalid or expired refresh token");
  return issuePair(rt, outcome.userId, outcome.sessionId, next);
}

/** End the session: its access tokens stop working and its refresh tokens are dead. */
export async function logout(rt: PlatformRuntime, sessionId: string): Promise<void> {
  const now = nowIso();
  await rt.control.write((tx) => run(tx.update(sessions).set({ revoked_at: now, revoked_reason: "logout" }).where(eq(sessions.id, sessionId))));
  await rt.access.invalidate();
}
