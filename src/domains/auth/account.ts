import { and, eq, gt, isNull, ne, sql } from "drizzle-orm";
import { platformAudit } from "@/platform/audit/audit";
import { emailVerificationTokens, passwordResetTokens, sessions, users } from "@db/control/schema";
import { get, run, type Work } from "@/platform/db/work";
import type { ControlDb } from "@/platform/db/control";
import { newId, randomToken, sha256 } from "@/platform/ids";
import { AppError, invalid, ServiceUnavailable, TooManyRequests } from "@/platform/errors";
import { hashPassword, verifyPassword } from "@/platform/auth/passwords";
import { systemActor, type Caller } from "@/platform/auth/actor";
import type { ThrottleSubject } from "@/platform/auth/throttle";
import { actorOf, type Principal } from "@/platform/tenancy/access";
import { mailerOf } from "@/platform/mail/factory";
import type { Mailer, MailMessage } from "@/platform/mail/types";
import type { PlatformRuntime } from "@/platform/runtime";
import { throttleOf, type AttemptFrom } from "./service";

// Account self-service (docs/auth/account.md): change a password, reset a forgotten
// one by mail, verify the email address. Tokens are 32 random bytes
// (base64url); only their SHA-256 is stored, and no token is ever logged.

export type RequestMeta = { requestId: string | null; ip: string | null };
export type Detail = { detail: string };

const WRONG_PASSWORD = () => invalid(["body", "current_password"], "The current password is not correct", "invalid_password", "invalid_password");
const INVALID_TOKEN = () => invalid(["body", "token"], "This link is invalid or has expired", "invalid_token", "invalid_token");
const isInvalid = (code: string) => (err: unknown) => err instanceof AppError && err.code === code;

export const FORGOT_PASSWORD_ANSWER: Detail = { detail: "If an account exists for this email, a message with a link to reset its password has been sent" };

// ---- change-password ----

/**
 * The signed-in user replaces their password. A wrong current password is 422
 * `invalid_password` and counts toward the login throttle of the account (so a
 * stolen access token cannot guess faster than login allows). On success every
 * other session of the user is revoked; the caller's own stays valid.
 */
export function changePassword(
  rt: PlatformRuntime,
  p: Principal,
  input: { current_password: string; new_password: string },
  meta: RequestMeta,
  from: AttemptFrom,
): Promise<Detail> {
  const throttle = throttleOf(rt);
  const subjects = [throttle.account("login", p.email), throttle.address("change-password", from.address)];
  return throttle.attempt(subjects, isInvalid("invalid_password"), async () => {
    const user = await rt.control.read((db) =>
      get<{ password_hash: string | null }>(db.select({ password_hash: users.password_hash }).from(users).where(eq(users.id, p.userId))),
    );
    if (!(await verifyPassword(input.current_password, user?.password_hash))) throw WRONG_PASSWORD();
    const hash = await hashPassword(input.new_password);
    const now = new Date().toISOString();
    const caller: Caller = { actor: actorOf(p), ...meta };
    await rt.control.write(function* (tx) {
      yield* run(tx.update(users).set({ password_hash: hash, updated_at: now }).where(eq(users.id, p.userId)));
      yield* revokeSessions(tx, p.userId, now, "password_changed", p.sessionId);
      yield* auditUser(tx, caller, now, "user.password_changed", p.userId);
    });
    await rt.access.invalidate();
    return { detail: "Password changed; your other sessions have been signed out" };
  });
}

// ---- forgot-password and reset-password ----

/**
 * Always the same 202 answer. The lookup, the token and the mail happen after
 * the answer (awaited on shutdown), so a known and an unknown email cost the
 * same. Each request counts against the email and the client address (the login
 * throttle's limits): too many answer 429, alike for known and unknown emails.
 */
export async function forgotPassword(rt: PlatformRuntime, email: string, meta: RequestMeta, from: AttemptFrom): Promise<Detail> {
  const normalized = email.trim().toLowerCase();
  const throttle = throttleOf(rt);
  await countRequest(rt, [throttle.account("forgot-password", normalized), throttle.address("forgot-password", from.address)], "password reset requests");
  later(rt, "password reset mail", (mailer) => issueReset(rt, mailer, normalized, meta));
  return FORGOT_PASSWORD_ANSWER;
}

async function issueReset(rt: PlatformRuntime, mailer: Mailer, email: string, meta: RequestMeta): Promise<void> {
  // made before the lookup, so both paths do the same work until the insert
  const token = randomToken();
  const tokenHash = sha256(token);
  const user = await rt.control.read((db) =>
    get<{ id: string; status: string }>(db.select({ id: users.id, status: users.status }).from(users).where(eq(users.email, email))),
  );
  if (!user || user.status !== "active") return;
  const now = new Date();
  const ttl = rt.config.mail.passwordResetTtl;
  const nowS = now.toISOString();
  const caller: Caller = { actor: systemActor("auth.forgot-password"), ...meta };
  await rt.control.write(function* (tx) {
    yield* run(
      tx
        .insert(passwordResetTokens)
        .values({ id: newId(), user_id: user.id, token_hash: tokenHash, created_at: nowS, expires_at: new Date(now.getTime() + ttl * 1000).toISOString() }),
    );
    yield* auditUser(tx, caller, nowS, "user.password_reset_requested", user.id);
  });
  await mailer.send(resetMail(rt, email, token, ttl));
}

/**
 * Redeem a reset token once: sets the password and revokes every session of the
 * user (and every other outstanding reset token). Unknown, used or expired
 * tokens are one 422 `invalid_token`, throttled per client address.
 */
export function resetPassword(rt: PlatformRuntime, input: { token: string; new_password: string }, meta: RequestMeta, from: AttemptFrom): Promise<Detail> {
  const throttle = throttleOf(rt);
  return throttle.attempt([throttle.address("reset-password", from.address)], isInvalid("invalid_token"), async () => {
    const tokenHash = sha256(input.token);
    const nowS = new Date().toISOString();
    const found = await rt.control.read((db) =>
      get<{ id: string; user_id: string; used_at: string | null; expires_at: string; status: string; display_name: string }>(
        db
          .select({
            id: passwordResetTokens.id,
            user_id: passwordResetTokens.user_id,
            used_at: passwordResetTokens.used_at,
            expires_at: passwordResetTokens.expires_at,
            status: users.status,
            display_name: users.display_name,
          })
          .from(passwordResetTokens)
          .innerJoin(users, eq(users.id, passwordResetTokens.user_id))
          .where(eq(passwordResetTokens.token_hash, tokenHash)),
      ),
    );
    if (!found || found.used_at || found.expires_at <= nowS || found.status !== "active") throw INVALID_TOKEN();
    const hash = await hashPassword(input.new_password);
    const now = new Date().toISOString();
    const caller: Caller = { actor: { type: "user", id: found.user_id, display_name: found.display_name }, ...meta };
    await rt.control.write(function* (tx) {
      // the claim: two redemptions of one token at once, exactly one wins
      const claimed = yield* get(
        tx
          .update(passwordResetTokens)
          .set({ used_at: now })
          .where(and(eq(passwordResetTokens.id, found.id), isNull(passwordResetTokens.used_at), gt(passwordResetTokens.expires_at, now)))
          .returning({ id: passwordResetTokens.id }),
      );
      if (!claimed) throw INVALID_TOKEN();
      yield* run(
        tx
          .update(passwordResetTokens)
          .set({ used_at: now })
          .where(and(eq(passwordResetTokens.user_id, found.user_id), isNull(passwordResetTokens.used_at))),
      );
      // the mail reached its owner: the address is proven too
      yield* run(
        tx
          .update(users)
          .set({ password_hash: hash, updated_at: now, email_verified_at: sql`coalesce(${users.email_verified_at}, ${now})` })
          .where(eq(users.id, found.user_id)),
      );
      yield* revokeSessions(tx, found.user_id, now, "password_reset", null);
      yield* auditUser(tx, caller, now, "user.password_reset", found.user_id);
    });
    await rt.access.invalidate();
    return { detail: "Your password has been reset; sign in with the new password" };
  });
}

// ---- email verification ----

/**
 * Mail the signed-in user a one-time link that proves their address. Already
 * verified: 200 saying so, no mail. Each request counts against the account and
 * the address (the login throttle's limits), so nobody is sent a flood of mail.
 */
export async function resendVerification(rt: PlatformRuntime, p: Principal, meta: RequestMeta, from: AttemptFrom): Promise<Detail> {
  const user = await rt.control.read((db) =>
    get<{ email: string; email_verified_at: string | null }>(
      db.select({ email: users.email, email_verified_at: users.email_verified_at }).from(users).where(eq(users.id, p.userId)),
    ),
  );
  if (!user) throw new ServiceUnavailable("The account could not be read; try again shortly");
  if (user.email_verified_at) return { detail: "Your email address is already verified" };
  const throttle = throttleOf(rt);
  await countRequest(rt, [throttle.account("resend-verification", user.email), throttle.address("resend-verification", from.address)], "verification requests");
  const token = randomToken();
  const now = new Date();
  const nowS = now.toISOString();
  const ttl = rt.config.mail.emailVerificationTtl;
  const caller: Caller = { actor: actorOf(p), ...meta };
  await rt.control.write(function* (tx) {
    yield* run(
      tx.insert(emailVerificationTokens).values({
        id: newId(),
        user_id: p.userId,
        email: user.email,
        token_hash: sha256(token),
        created_at: nowS,
        expires_at: new Date(now.getTime() + ttl * 1000).toISOString(),
      }),
    );
    yield* auditUser(tx, caller, nowS, "user.email_verification_sent", p.userId);
  });
  try {
    await mailerOf(rt).send(verificationMail(rt, user.email, token, ttl));
  } catch (err) {
    rt.logger.error({ err: errorSummary(err) }, "verification mail could not be sent");
    throw new ServiceUnavailable("The verification email could not be sent; try again shortly");
  }
  return { detail: "A verification email has been sent" };
}

/**
 * Redeem a verification token once: the user's email is verified (when the
 * address is still the one the token was sent to). Unknown, used or expired
 * tokens are one 422 `invalid_token`, throttled per client address.
 */
export function verifyEmail(rt: PlatformRuntime, input: { token: string }, meta: RequestMeta, from: AttemptFrom): Promise<Detail> {
  const throttle = throttleOf(rt);
  return throttle.attempt([throttle.address("verify-email", from.address)], isInvalid("invalid_token"), async () => {
    const tokenHash = sha256(input.token);
    const now = new Date().toISOString();
    await rt.control.write(function* (tx) {
      const found = yield* get<{ id: string; user_id: string; email: string; used_at: string | null; expires_at: string }>(
        tx
          .select({
            id: emailVerificationTokens.id,
            user_id: emailVerificationTokens.user_id,
            email: emailVerificationTokens.email,
            used_at: emailVerificationTokens.used_at,
            expires_at: emailVerificationTokens.expires_at,
          })
          .from(emailVerificationTokens)
          .where(eq(emailVerificationTokens.token_hash, tokenHash)),
      );
      if (!found || found.used_at || found.expires_at <= now) throw INVALID_TOKEN();
      const user = yield* get<{ email: string; status: string; display_name: string }>(
        tx.select({ email: users.email, status: users.status, display_name: users.display_name }).from(users).where(eq(users.id, found.user_id)),
      );
      if (!user || user.status !== "active" || user.email !== found.email) throw INVALID_TOKEN();
      const claimed = yield* get(
        tx
          .update(emailVerificationTokens)
          .set({ used_at: now })
          .where(and(eq(emailVerificationTokens.id, found.id), isNull(emailVerificationTokens.used_at)))
          .returning({ id: emailVerificationTokens.id }),
      );
      if (!claimed) throw INVALID_TOKEN();
      // every other outstanding link of the user dies with this one
      yield* run(
        tx
          .update(emailVerificationTokens)
          .set({ used_at: now })
          .where(and(eq(emailVerificationTokens.user_id, found.user_id), isNull(emailVerificationTokens.used_at))),
      );
      yield* run(
        tx
          .update(users)
          .set({ email_verified_at: sql`coalesce(${users.email_verified_at}, ${now})` })
          .where(eq(users.id, found.user_id)),
      );
      const caller: Caller = { actor: { type: "user", id: found.user_id, display_name: user.display_name }, ...meta };
      yield* auditUser(tx, caller, now, "user.email_verified", found.user_id);
    });
    return { detail: "Your email address has been verified" };
  });
}

// ---- shared ----

/** Revoke the user's live sessions (and with them their refresh tokens), except `keep`. */
function* revokeSessions(tx: ControlDb, userId: string, now: string, reason: string, keep: string | null): Work<void> {
  yield* run(
    tx
      .update(sessions)
      .set({ revoked_at: now, revoked_reason: reason })
      .where(and(eq(sessions.user_id, userId), isNull(sessions.revoked_at), keep ? ne(sessions.id, keep) : undefined)),
  );
}

/** An account write belongs to no org: its entry goes to the platform audit index only (like shard writes). */
const auditUser = (tx: ControlDb, caller: Caller, now: string, action: string, userId: string): Work<void> =>
  platformAudit(tx, caller, now, { action, resource_type: "user", resource_id: userId });

/**
 * Every request (not only failures) counts against each subject; a locked
 * subject answers 429 with Retry-After. Store outages answer 503, like the
 * login throttle, rather than let mail go out unlimited.
 */
async function countRequest(rt: PlatformRuntime, subjects: ThrottleSubject[], what: string): Promise<void> {
  const throttle = throttleOf(rt);
  try {
    await throttle.check(subjects);
    await throttle.failed(subjects);
  } catch (err) {
    if (err instanceof TooManyRequests) {
      const wait = Number(err.headers["Retry-After"] ?? 1);
      throw new TooManyRequests(wait, `Too many ${what}; try again in ${wait} second${wait === 1 ? "" : "s"}`);
    }
    if (err instanceof AppError) throw err;
    throw new ServiceUnavailable("This is unavailable for a moment; try again shortly");
  }
}

type Background = Set<Promise<void>>;

/**
 * Work done after the answer. The mailer is taken first, then the set of
 * pending work: resources close newest first, so shutdown waits for pending
 * mail before it closes the mailer (and the databases close after both).
 */
function later(rt: PlatformRuntime, what: string, work: (mailer: Mailer) => Promise<void>): void {
  const mailer = mailerOf(rt);
  const pending = pendingOf(rt);
  const p: Promise<void> = work(mailer)
    .catch((err) => rt.logger.error({ err: errorSummary(err) }, `${what} failed`))
    .finally(() => pending.delete(p));
  pending.add(p);
}

function pendingOf(rt: PlatformRuntime): Background {
  mailerOf(rt); // made first, so it is closed after the pending work (see later)
  return rt.shared.get(
    "account-mail-pending",
    () => new Set<Promise<void>>(),
    (set) => Promise.allSettled([...set]).then(() => {}),
  );
}

/** Resolves once the account mail started so far is done (tests; shutdown waits by itself). */
export async function accountMailSettled(rt: PlatformRuntime): Promise<void> {
  const pending = pendingOf(rt);
  while (pending.size) await Promise.allSettled([...pending]);
}

/** What a log line may say about a failure: never a message body or a token. */
const errorSummary = (err: unknown) =>
  err instanceof Error ? { name: err.name, code: (err as { code?: unknown }).code, message: err.message } : { message: String(err) };

// ---- messages ----

const humanTtl = (seconds: number) => {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (seconds >= 3600 && seconds % 3600 === 0) return unit(seconds / 3600, "hour");
  if (seconds >= 60 && seconds % 60 === 0) return unit(seconds / 60, "minute");
  return unit(seconds, "second");
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The token travels in the fragment: browsers never send it to a server, so no access log or Referer holds it. */
export const accountLink = (rt: PlatformRuntime, page: "reset-password" | "verify-email", token: string) =>
  `${rt.config.mail.publicAppUrl}/${page}#token=${token}`;

function resetMail(rt: PlatformRuntime, email: string, token: string, ttl: number): MailMessage {
  const link = accountLink(rt, "reset-password", token);
  const lines = [
    `Someone asked to reset the password of the Cusp account ${email}.`,
    `To choose a new password, open this link. It works once and expires in ${humanTtl(ttl)}:`,
    "If you did not ask for this, ignore this message: your password stays as it is.",
  ];
  return {
    to: email,
    subject: "Reset your Cusp password",
    text: `${lines[0]}\n\n${lines[1]}\n\n${link}\n\n${lines[2]}\n`,
    html: `<p>${escapeHtml(lines[0]!)}</p><p>${escapeHtml(lines[1]!)}</p><p><a href="${escapeHtml(link)}">Reset your password</a></p><p>${escapeHtml(lines[2]!)}</p>`,
  };
}

function verificationMail(rt: PlatformRuntime, email: string, token: string, ttl: number): MailMessage {
  const link = accountLink(rt, "verify-email", token);
  const lines = [
    `Please confirm that ${email} is the email address of your Cusp account.`,
    `Open this link to confirm it. It works once and expires in ${humanTtl(ttl)}:`,
    "If you did not ask for this, you can ignore this message.",
  ];
  return {
    to: email,
    subject: "Confirm your email address for Cusp",
    text: `${lines[0]}\n\n${lines[1]}\n\n${link}\n\n${lines[2]}\n`,
    html: `<p>${escapeHtml(lines[0]!)}</p><p>${escapeHtml(lines[1]!)}</p><p><a href="${escapeHtml(link)}">Confirm your email address</a></p><p>${escapeHtml(lines[2]!)}</p>`,
  };
}
