import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { auditIndex, sessions, users } from "@db/control/schema";
import { all, get } from "@/platform/db/work";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { ADMIN, createMember, startTestApp, unique, type TestApp } from "@tests/helpers";

const SECRET = "user-sync-test-secret-0123456789";
const PATH = "/api/v1/internal/auth/user-sync";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ USER_SYNC_SECRET: SECRET });
});
afterAll(() => t.close());

const sign = (ts: number, raw: string, secret = SECRET) => createHmac("sha256", secret).update(`${ts}.${raw}`).digest("hex");
const now = () => Math.floor(Date.now() / 1000);
// each call signs at another second, never one used before (counted down from the file's start, well inside the
// 300 s window): two sends of one event are two deliveries, not a replay. (Offsets from the current second could
// repeat a timestamp one second later, and the same body then signs the same: a replay, as CI once saw.)
let seq = 0;
const firstTs = now();
const nextTs = () => firstTs - 1 - seq++;

/** A webhook call as the identity service sends it: the exact bytes signed; `header` replaces the signature header. */
function send(app: TestApp, body: unknown, opts: { ts?: number; secret?: string; header?: string | null; raw?: string } = {}) {
  const raw = opts.raw ?? JSON.stringify(body);
  const ts = opts.ts ?? nextTs();
  const header = opts.header === undefined ? `t=${ts},v1=${sign(ts, raw, opts.secret)}` : opts.header;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (header !== null) headers["x-cusp-signature"] = header;
  return app.request("POST", PATH, { rawBody: raw, headers });
}

const userByEmail = (email: string) => t.rt.control.read((db) => get<typeof users.$inferSelect>(db.select().from(users).where(eq(users.email, email))));
const userCount = async () => (await t.rt.control.read((db) => all(db.select({ id: users.id }).from(users)))).length;
const auditOf = (id: string) =>
  t.rt.control.read((db) => all<typeof auditIndex.$inferSelect>(db.select().from(auditIndex).where(eq(auditIndex.resource_id, id))));

describe("POST /api/v1/internal/auth/user-sync", () => {
  test("user.created creates the user (no password, active); a new signature of the same event changes nothing; audited as system:user-sync", async () => {
    const email = `${unique("new")}@Example.com`;
    const body = { event: "user.created", user: { email, display_name: "Nina Patel", external_id: unique("idp") } };
    const r = await send(t, body);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ detail: "User created", user_id: r.body.user_id });
    const row = (await userByEmail(email.toLowerCase()))!;
    expect(row).toMatchObject({
      id: r.body.user_id,
      display_name: "Nina Patel",
      password_hash: null,
      status: "active",
      external_id: body.user.external_id,
      version: 1,
    });
    expect(row.is_platform_admin).toBe(false);

    const again = await send(t, body);
    expect(again.body).toEqual({ detail: "User already exists", user_id: row.id });
    expect(await userByEmail(email.toLowerCase())).toEqual(row);
    const audit = await auditOf(row.id);
    expect(audit.map((a) => [a.action, a.org_id, a.actor_id, a.actor_type])).toEqual([["user.created", null, "system:user-sync", "system"]]);

    // without a display name the email's local part is used
    const plain = await send(t, { event: "user.created", user: { email: "plain.person@example.com" } });
    expect((await userByEmail("plain.person@example.com"))!.display_name).toBe("plain.person");
    expect(plain.body.detail).toBe("User created");
  });

  test("user.updated changes email and display name (found by external_id); 404 unknown; 409 for another user's email or a different external_id", async () => {
    const ext = unique("idp");
    const created = await send(t, { event: "user.created", user: { email: `${ext}@example.com`, display_name: "Old Name", external_id: ext } });
    const id = created.body.user_id;
    const r = await send(t, { event: "user.updated", user: { email: `${ext}-new@example.com`, display_name: "New Name", external_id: ext } });
    expect(r.body).toEqual({ detail: "User updated", user_id: id });
    expect(await userByEmail(`${ext}@example.com`)).toBeUndefined();
    expect(await userByEmail(`${ext}-new@example.com`)).toMatchObject({ id, display_name: "New Name", version: 2 });
    expect((await send(t, { event: "user.updated", user: { email: `${ext}-new@example.com`, external_id: ext } })).body.detail).toBe("User already up to date");

    const snapshot = await userByEmail(`${ext}-new@example.com`);
    const unknown = await send(t, { event: "user.updated", user: { email: "nobody@example.com" } });
    expect([unknown.status, unknown.body.code]).toEqual([404, "not_found"]);
    const taken = await send(t, { event: "user.updated", user: { email: ADMIN.email, external_id: ext } });
    expect([taken.status, taken.body.code]).toEqual([409, "duplicate"]);
    const relinked = await send(t, { event: "user.updated", user: { email: `${ext}-new@example.com`, external_id: "someone-else" } });
    expect([relinked.status, relinked.body.code]).toEqual([409, "external_id_mismatch"]);
    expect(await userByEmail(`${ext}-new@example.com`)).toEqual(snapshot);
    expect(await userByEmail("nobody@example.com")).toBeUndefined();
    expect((await auditOf(id)).map((a) => a.action)).toEqual(["user.created", "user.updated"]);
  });

  test("user.disabled: status disabled, sessions revoked, the next request with the user's token is 401, sign-in refused; idempotent; 404 unknown", async () => {
    const member = await createMember(t, (await t.createOrg()).id, ORG_PERMISSION_KEYS);
    expect((await t.request("GET", "/api/v1/auth/me/orgs", { token: member.token })).status).toBe(200);
    const r = await send(t, { event: "user.disabled", user: { email: member.email } });
    expect(r.body).toEqual({ detail: "User disabled", user_id: member.userId });
    expect((await userByEmail(member.email))!.status).toBe("disabled");
    const live = await t.rt.control.read((db) =>
      all<{ revoked_at: string | null; revoked_reason: string | null }>(db.select().from(sessions).where(eq(sessions.user_id, member.userId))),
    );
    expect(live.map((s) => s.revoked_reason)).toEqual(["user_disabled"]);
    expect((await t.request("GET", "/api/v1/auth/me/orgs", { token: member.token })).status).toBe(401);
    expect((await t.request("POST", "/api/v1/auth/login", { body: { email: member.email, password: member.password } })).status).toBe(401);
    expect((await send(t, { event: "user.disabled", user: { email: member.email } })).body).toEqual({
      detail: "User already disabled",
      user_id: member.userId,
    });
    // updates do not re-enable
    await send(t, { event: "user.updated", user: { email: member.email, display_name: "Still Off" } });
    expect((await userByEmail(member.email))!.status).toBe("disabled");
    expect((await auditOf(member.userId)).map((a) => a.action)).toEqual(["user.disabled", "user.updated"]);
    expect((await send(t, { event: "user.disabled", user: { email: "ghost@example.com" } })).status).toBe(404);
  });

  test("disabling the last user who can create platform admins is refused (400) and changes nothing", async () => {
    const before = await userByEmail(ADMIN.email);
    const r = await send(t, { event: "user.disabled", user: { email: ADMIN.email } });
    expect([r.status, r.body.code]).toEqual([400, "last_platform_admin"]);
    expect(await userByEmail(ADMIN.email)).toEqual(before);
    expect((await t.request("GET", "/api/v1/admin/orgs", { token: await t.adminToken() })).status).toBe(200);
  });

  test("401 for a missing, malformed or wrong signature, another body, a stale or future timestamp, and a replay; nothing is written", async () => {
    const before = await userCount();
    const body = { event: "user.created", user: { email: `${unique("x")}@example.com` } };
    const raw = JSON.stringify(body);
    const ts = now();
    const cases: [string, ReturnType<typeof send>][] = [
      ["missing", send(t, body, { header: null })],
      ["missing, malformed JSON", send(t, null, { header: null, raw: "{not json" })],
      ["malformed", send(t, body, { header: "sha256=abc" })],
      ["no v1", send(t, body, { header: `t=${ts}` })],
      ["wrong secret", send(t, body, { secret: "another-secret-0123456789" })],
      ["other body", send(t, body, { header: `t=${ts},v1=${sign(ts, raw)}`, raw: JSON.stringify({ ...body, event: "user.updated" }) })],
      ["whitespace", send(t, body, { header: `t=${ts},v1=${sign(ts, raw)}`, raw: `${raw} ` })],
      ["other timestamp", send(t, body, { header: `t=${ts - 1},v1=${sign(ts, raw)}` })],
      ["stale", send(t, body, { ts: ts - 301 })],
      ["future", send(t, body, { ts: ts + 301 })],
    ];
    for (const [name, pending] of cases) {
      const r = await pending;
      expect([name, r.status, r.body.code]).toEqual([name, 401, "unauthorized"]);
    }
    expect(await userCount()).toBe(before);
    // inside the window, and signed right: accepted once, then refused as a replay
    const header = `t=${ts - 299},v1=${sign(ts - 299, raw)}`;
    expect((await send(t, body, { header })).status).toBe(200);
    const replay = await send(t, body, { header });
    expect([replay.status, replay.body.detail]).toEqual([401, "Signature already used"]);
    expect(await userCount()).toBe(before + 1);
  });

  test("a correctly signed but invalid body is 422 and writes nothing", async () => {
    const before = await userCount();
    for (const body of [
      { event: "user.deleted", user: { email: "a@example.com" } },
      { event: "user.created", user: { display_name: "No Email" } },
      { event: "user.created", user: { email: "not-an-email" } },
      { event: "user.created", user: { email: "a@example.com", password: "secret" } },
      { event: "user.created" },
    ]) {
      const r = await send(t, body);
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
    }
    expect((await send(t, null, { raw: "{not json" })).status).toBe(422);
    expect(await userCount()).toBe(before);
  });

  test("without USER_SYNC_SECRET the route is off: 404 even for a signed request", async () => {
    const off = await startTestApp();
    try {
      const r = await send(off, { event: "user.created", user: { email: "off@example.com" } });
      expect([r.status, r.body.code]).toEqual([404, "not_found"]);
    } finally {
      await off.close();
    }
  });
});
