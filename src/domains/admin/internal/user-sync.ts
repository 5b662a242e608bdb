import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { platformAudit } from "@/platform/audit/audit";
import { and, eq, isNull } from "drizzle-orm";
import { sessions, users } from "@db/control/schema";
import { get, run, type Work } from "@/platform/db/work";
import type { ControlDb } from "@/platform/db/control";
import { declareUniqueConflict } from "@/platform/db/constraints";
import { AppError, Conflict, NotFound } from "@/platform/errors";
import { newId, nowIso } from "@/platform/ids";
import { systemActor, type Caller } from "@/platform/auth/actor";
import type { PlatformRuntime } from "@/platform/runtime";
import { assertAdminCreatorRemains } from "@/domains/platform-admin/groups/service";
import type { UserSyncBody, UserSyncResult } from "./schemas";

// The identity service's user lifecycle webhook (docs/admin/admin.md, "User sync").

/** Seconds a signature's timestamp may be away from our clock. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
/** Seconds a seen signature is remembered (a replay within it is refused). */
export const REPLAY_WINDOW_SECONDS = 600;
export const USER_SYNC_ACTOR = systemActor("user-sync");
/** The status a disabled user gets: access resolution and sign-in refuse any status but active. */
export const DISABLED_STATUS = "disabled";

declareUniqueConflict("users.external_id", "Another user is linked to this external_id");

const refused = (message: string) => new AppError(401, "unauthorized", message);

/** The HMAC of a payload as the identity service signs it: hex SHA-256 of "<t>.<raw body>". */
export const signUserSync = (secret: string, t: number | string, rawBody: string) => createHmac("sha256", secret).update(`${t}.${rawBody}`).digest("hex");

/**
 * !!! AUTHENTICATION of the user-sync webhook: changes need two reviewers. !!!
 * `X-Cusp-Signature: t=<unix seconds>,v1=<hex HMAC>` over the exact body bytes.
 * 404 when USER_SYNC_SECRET is unset (the route is off); 401 for a missing or
 * malformed header, a timestamp more than 5 minutes away, a wrong HMAC, or a
 * signature already seen in the last 10 minutes (remembered in the shared cache,
 * so a replay to another instance is refused too).
 */
export async function verifyUserSyncSignature(rt: PlatformRuntime, header: string | null, rawBody: string, nowSeconds = Date.now() / 1000): Promise<void> {
  const secret = rt.config.userSyncSecret;
  if (!secret) throw new NotFound("Route");
  if (!header) throw refused("Missing X-Cusp-Signature");
  let t: string | undefined;
  const given: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === "t") t = v;
    else if (k === "v1") given.push(v);
  }
  if (!t || !/^\d{1,12}$/.test(t) || !given.length || !given.every((v) => /^[0-9a-f]{64}$/i.test(v))) throw refused("Malformed X-Cusp-Signature");
  if (Math.abs(nowSeconds - Number(t)) > SIGNATURE_TOLERANCE_SECONDS) throw refused("Signature timestamp is outside the allowed window");
  const expected = Buffer.from(signUserSync(secret, t, rawBody), "hex");
  const match = given.find((v) => timingSafeEqual(Buffer.from(v, "hex"), expected));
  if (!match) throw refused("Invalid signature");
  const key = `cusp:user-sync:seen:${createHash("sha256").update(`${t}.${match.toLowerCase()}`).digest("hex")}`;
  if (!(await rt.cache.setIfAbsent(key, "1", REPLAY_WINDOW_SECONDS))) throw refused("Signature already used");
}

type UserRow = typeof users.$inferSelect;

function* userBy(tx: ControlDb, column: typeof users.email | typeof users.external_id, value: string): Work<UserRow | undefined> {
  return yield* get<UserRow>(tx.select().from(users).where(eq(column, value)));
}

const auditUser = (tx: ControlDb, caller: Caller, now: string, action: string, userId: string): Work<void> =>
  platformAudit(tx, caller, now, { action, resource_type: "user", resource_id: userId });

/**
 * Apply one lifecycle event. The user is found by external_id, else by email.
 * created: insert (no password, status active) or bring an existing user up to
 * date; updated: email, display name (404 if unknown); disabled: status
 * "disabled", every session revoked (404 if unknown). Status is changed by
 * nothing else here. An event that changes nothing writes nothing.
 */
export async function syncUser(rt: PlatformRuntime, input: UserSyncBody, meta: { requestId: string | null; ip: string | null }): Promise<UserSyncResult> {
  const caller: Caller = { actor: USER_SYNC_ACTOR, ...meta };
  const email = input.user.email.trim().toLowerCase();
  const ext = input.user.external_id;
  const result = await rt.control.write(function* (tx) {
    const now = nowIso();
    const byExt = ext ? yield* userBy(tx, users.external_id, ext) : undefined;
    const byEmail = yield* userBy(tx, users.email, email);
    const found = byExt ?? byEmail;

    if (!found) {
      if (input.event !== "user.created") throw new NotFound("User");
      const id = newId();
      yield* run(
        tx.insert(users).values({
          id,
          email,
          display_name: input.user.display_name ?? email.split("@")[0]!,
          password_hash: null,
          status: "active",
          external_id: ext ?? null,
          created_at: now,
          updated_at: now,
          version: 1,
        }),
      );
      yield* auditUser(tx, caller, now, "user.created", id);
      return { detail: "User created", user_id: id, changed: true };
    }

    if (input.event === "user.disabled") {
      if (found.status === DISABLED_STATUS) return { detail: "User already disabled", user_id: found.id, changed: false };
      yield* run(
        tx
          .update(users)
          .set({ status: DISABLED_STATUS, version: found.version + 1, updated_at: now })
          .where(eq(users.id, found.id)),
      );
      yield* run(
        tx
          .update(sessions)
          .set({ revoked_at: now, revoked_reason: "user_disabled" })
          .where(and(eq(sessions.user_id, found.id), isNull(sessions.revoked_at))),
      );
      // never lock the platform out: the last user who can create platform admins stays (400)
      yield* assertAdminCreatorRemains(tx, now);
      yield* auditUser(tx, caller, now, "user.disabled", found.id);
      return { detail: "User disabled", user_id: found.id, changed: true };
    }

    if (byEmail && byEmail.id !== found.id) throw new Conflict("Another account already uses this email");
    if (ext && found.external_id && found.external_id !== ext) throw new Conflict("The user is linked to another external_id", "external_id_mismatch");
    const patch: Partial<UserRow> = {};
    if (found.email !== email) patch.email = email;
    if (input.user.display_name !== undefined && input.user.display_name !== found.display_name) patch.display_name = input.user.display_name;
    if (ext && !found.external_id) patch.external_id = ext;
    if (!Object.keys(patch).length) {
      const detail = input.event === "user.created" ? "User already exists" : "User already up to date";
      return { detail, user_id: found.id, changed: false };
    }
    // email_verified_at proved the old address, not the new one (docs/auth/account.md)
    if (patch.email) patch.email_verified_at = null;
    yield* run(
      tx
        .update(users)
        .set({ ...patch, version: found.version + 1, updated_at: now })
        .where(eq(users.id, found.id)),
    );
    yield* auditUser(tx, caller, now, "user.updated", found.id);
    return { detail: "User updated", user_id: found.id, changed: true };
  });
  // the principal (email, display name, status) is cached on every instance
  if (result.changed) await rt.access.invalidate();
  return { detail: result.detail, user_id: result.user_id };
}
