import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditOf, twoOrgApp, unique, type TestApp } from "@tests/helpers";
import { memberships, users } from "@db/control/schema";
import { get, run } from "@/platform/db/work";

let t: TestApp;
let admin: string;
let orgA: string;
let A: string;
let B: string;
let readersA: string;
let readersB: string;

const ACCEPT = "/api/v1/auth/accept-invite";
const email = (p = "inv") => `${unique(p)}@example.com`;

async function invite(P: string, e: string, groups: string[]) {
  const r = await t.request("POST", `${P}/users`, { token: admin, body: { email: e, display_name: "Invitee", group_uuids: groups } });
  expect(r.status).toBe(201);
  expect(r.body.membership_status).toBe("invited");
  return r.body as { id: string; invitation_token: string; version: number };
}

const membership = (orgId: string, userId: string) =>
  t.rt.control.read((db) =>
    get<any>(
      db
        .select()
        .from(memberships)
        .where(and(eq(memberships.org_id, orgId), eq(memberships.user_id, userId))),
    ),
  );
const passwordHash = async (userId: string) =>
  (await t.rt.control.read((db) => get<any>(db.select({ h: users.password_hash }).from(users).where(eq(users.id, userId)))))!.h as string | null;

beforeAll(async () => {
  const w = await twoOrgApp();
  ({ t, admin, orgA } = w);
  A = `${w.pathA}/iam`;
  B = `${w.pathB}/iam`;
  readersA = (await t.request("POST", `${A}/groups`, { token: admin, body: { name: "Readers", permission_keys: ["iam.users.read"] } })).body.id;
  readersB = (await t.request("POST", `${B}/groups`, { token: admin, body: { name: "Readers", permission_keys: ["iam.users.read"] } })).body.id;
});

afterAll(async () => {
  await t.close();
});

describe("POST /api/v1/auth/accept-invite", () => {
  test("a new user accepts, gets a session, can log in, and the token is spent", async () => {
    const e = email();
    const inv = await invite(A, e, [readersA]);
    // not a member yet and no password: cannot log in
    expect((await t.request("POST", "/api/v1/auth/login", { body: { email: e, password: "chosen-password" } })).status).toBe(401);

    const r = await t.request("POST", ACCEPT, { body: { token: inv.invitation_token, password: "chosen-password" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String), token_type: "bearer", expires_in: expect.any(Number) });
    const me = await t.request("GET", `${A}/users/${inv.id}`, { token: r.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ membership_status: "active", version: inv.version + 1 });
    expect(me.body.joined_at).toBeString();
    expect(me.body.last_login_at).toBeString();

    const m = await membership(orgA, inv.id);
    expect(m.invitation_token_hash).toBeNull();
    expect(m.invitation_expires_at).toBeNull();

    const again = await t.request("POST", ACCEPT, { body: { token: inv.invitation_token, password: "chosen-password" } });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("not_found");

    expect((await t.request("POST", "/api/v1/auth/login", { body: { email: e, password: "chosen-password" } })).status).toBe(200);

    const rows = await auditOf(t, orgA, inv.id);
    expect(rows.map((x) => x.action)).toEqual(["membership.created", "membership.activated"]);
    expect(rows[1]).toMatchObject({ actor_id: inv.id, before: { membership_status: "invited" }, after: { membership_status: "active" } });
    const text = JSON.stringify(rows);
    expect(text).not.toContain(inv.invitation_token);
    expect(text).not.toContain("chosen-password");
    expect(text).not.toContain("argon2");
  });

  test("an account that already has a password must present it; the password never changes", async () => {
    const e = email("existing");
    const created = await t.request("POST", `${B}/users`, {
      token: admin,
      body: { email: e, display_name: "Existing", group_uuids: [readersB], password: "my-own-password" },
    });
    expect(created.status).toBe(201);
    const hash = await passwordHash(created.body.id);
    const inv = await invite(A, e, [readersA]);

    const wrong = await t.request("POST", ACCEPT, { body: { token: inv.invitation_token, password: "inviter-chose-this" } });
    expect(wrong.status).toBe(401);
    expect((await membership(orgA, inv.id)).status).toBe("invited");
    expect(await passwordHash(inv.id)).toBe(hash);

    const ok = await t.request("POST", ACCEPT, { body: { token: inv.invitation_token, password: "my-own-password" } });
    expect(ok.status).toBe(200);
    expect((await membership(orgA, inv.id)).status).toBe("active");
    expect(await passwordHash(inv.id)).toBe(hash);
  });

  test("an invitee without a password sets it on the first acceptance; later ones need it", async () => {
    const e = email("twice");
    const inA = await invite(A, e, []);
    const inB = await invite(B, e, []);
    expect((await t.request("POST", ACCEPT, { body: { token: inA.invitation_token, password: "first-password" } })).status).toBe(200);
    expect((await t.request("POST", ACCEPT, { body: { token: inB.invitation_token, password: "second-password" } })).status).toBe(401);
    expect((await t.request("POST", ACCEPT, { body: { token: inB.invitation_token, password: "first-password" } })).status).toBe(200);
  });

  test("404 for unknown, expired and withdrawn (removed) invitations; nothing changes", async () => {
    expect((await t.request("POST", ACCEPT, { body: { token: "no-such-token", password: "whatever-pass" } })).status).toBe(404);

    const expired = await invite(A, email("expired"), []);
    await t.rt.control.write((tx) =>
      run(
        tx
          .update(memberships)
          .set({ invitation_expires_at: new Date(Date.now() - 1000).toISOString() })
          .where(and(eq(memberships.org_id, orgA), eq(memberships.user_id, expired.id))),
      ),
    );
    const r = await t.request("POST", ACCEPT, { body: { token: expired.invitation_token, password: "whatever-pass" } });
    expect(r.status).toBe(404);
    expect((await membership(orgA, expired.id)).status).toBe("invited");
    expect(await passwordHash(expired.id)).toBeNull();

    const withdrawn = await invite(A, email("withdrawn"), []);
    expect((await t.request("POST", `${A}/users/${withdrawn.id}/remove`, { token: admin })).status).toBe(200);
    expect((await t.request("POST", ACCEPT, { body: { token: withdrawn.invitation_token, password: "whatever-pass" } })).status).toBe(404);
    expect((await membership(orgA, withdrawn.id)).status).toBe("removed");

    // inviting again issues a new token; the old one stays dead
    const again = await t.request("POST", `${A}/users`, {
      token: admin,
      body: { email: (await t.request("GET", `${A}/users/${withdrawn.id}`, { token: admin })).body.email, display_name: "x" },
    });
    expect(again.body.invitation_token).not.toBe(withdrawn.invitation_token);
    expect((await t.request("POST", ACCEPT, { body: { token: withdrawn.invitation_token, password: "whatever-pass" } })).status).toBe(404);
    expect((await t.request("POST", ACCEPT, { body: { token: again.body.invitation_token, password: "whatever-pass" } })).status).toBe(200);
  });

  test("422 on bad input, unknown fields and malformed JSON; 415 for other content types", async () => {
    const inv = await invite(A, email("bad"), []);
    const cases: [unknown, (string | number)[]][] = [
      [{ token: inv.invitation_token }, ["body", "password"]],
      [{ password: "long-enough" }, ["body", "token"]],
      [{ token: inv.invitation_token, password: "short" }, ["body", "password"]],
      [{ token: inv.invitation_token, password: "long-enough", org_id: orgA }, ["body", "org_id"]],
    ];
    for (const [body, loc] of cases) {
      const r = await t.request("POST", ACCEPT, { body });
      expect(r.status).toBe(422);
      expect(r.body.detail.map((d: any) => d.loc)).toContainEqual(loc);
    }
    expect((await t.request("POST", ACCEPT, { rawBody: '{"token":', headers: { "content-type": "application/json" } })).status).toBe(422);
    expect((await t.request("POST", ACCEPT, { rawBody: "token=x", headers: { "content-type": "application/x-www-form-urlencoded" } })).status).toBe(415);
    expect((await membership(orgA, inv.id)).status).toBe("invited");
  });

  test("an invited member has no access to the org until they accept", async () => {
    const e = email("pending");
    // an account that can log in (member of B) but is only invited to A
    await t.request("POST", `${B}/users`, { token: admin, body: { email: e, display_name: "Pending", group_uuids: [readersB], password: "pending-pass" } });
    const inv = await invite(A, e, [readersA]);
    const token = (await t.login(e, "pending-pass")).access_token;
    expect((await t.request("GET", `${B}/users`, { token })).status).toBe(200);
    expect((await t.request("GET", `${A}/users`, { token })).status).toBe(404);
    const me = await t.request("GET", "/api/v1/auth/me/orgs", { token });
    expect(me.body.orgs.find((o: any) => o.id === orgA)?.membership_status).toBe("invited");
    expect((await t.request("POST", ACCEPT, { body: { token: inv.invitation_token, password: "pending-pass" } })).status).toBe(200);
    expect((await t.request("GET", `${A}/users`, { token })).status).toBe(200);
  });
});
