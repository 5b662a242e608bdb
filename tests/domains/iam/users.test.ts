import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditOf, iamMemberWithLogin, twoOrgApp, unique, type TestApp } from "@tests/helpers";
import { memberships, users } from "@db/control/schema";
import { get } from "@/platform/db/work";
import { sha256 } from "@/platform/ids";
import type { EventEnvelope } from "@/platform/events/envelope";

let t: TestApp;
let admin: string;
let adminId: string;
let orgA: string;
let A: string; // {P}/iam of org A
let B: string;
let adminGroupA: string;
const events: EventEnvelope[] = [];

// Members of org A with limited rights (each logs in once: argon2 is slow on purpose).
let reader: { id: string; token: string }; // iam.users.read + iam.groups.read
let manager: { id: string; token: string }; // iam.users.read + iam.users.write
let nobody: { id: string; token: string }; // locations.read only
let readersGroup: string;
let managersGroup: string;
let usersOnlyGroup: string; // iam.users.read only
let groupB: string;

const email = (p = "u") => `${unique(p)}@example.com`;

async function createGroup(P: string, name: string, keys: string[]) {
  const r = await t.request("POST", `${P}/groups`, { token: admin, body: { name, permission_keys: keys } });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

async function createMember(P: string, body: Record<string, unknown>, token = admin) {
  const r = await t.request("POST", `${P}/users`, { token, body });
  if (r.status !== 201) throw new Error(`create member failed: ${r.status} ${r.text}`);
  return r.body;
}

async function getMember(P: string, id: string) {
  const r = await t.request("GET", `${P}/users/${id}`, { token: admin });
  expect(r.status).toBe(200);
  return r.body;
}

beforeAll(async () => {
  const w = await twoOrgApp();
  ({ t, admin, orgA } = w);
  A = `${w.pathA}/iam`;
  B = `${w.pathB}/iam`;
  t.rt.events.subscribe(orgA, (e) => events.push(e));
  const groups = await t.request("GET", `${A}/groups`, { token: admin });
  adminGroupA = groups.body.items.find((g: any) => g.is_org_admin).id;
  adminId = (await t.request("GET", `${A}/users?search=admin@example.com`, { token: admin })).body.items[0].id;
  readersGroup = await createGroup(A, "Readers", ["iam.users.read", "iam.groups.read"]);
  managersGroup = await createGroup(A, "Managers", ["iam.users.read", "iam.users.write"]);
  usersOnlyGroup = await createGroup(A, "User readers", ["iam.users.read"]);
  const locGroup = await createGroup(A, "Front desk", ["locations.read"]);
  groupB = await createGroup(B, "Readers", ["iam.users.read"]);
  [reader, manager, nobody] = await Promise.all([
    iamMemberWithLogin(t, A, [readersGroup]),
    iamMemberWithLogin(t, A, [managersGroup]),
    iamMemberWithLogin(t, A, [locGroup]),
  ]);
});

afterAll(async () => {
  await t.close();
});

describe("POST /iam/users", () => {
  test("creates an active user with a password; email stored lowercase; audited without secrets", async () => {
    const e = email("Active").toUpperCase();
    const before = events.length;
    const r = await t.request("POST", `${A}/users`, {
      token: admin,
      body: { email: e, display_name: " Dr. Active ", group_uuids: [readersGroup], password: "s3cret-pass" },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      email: e.toLowerCase(),
      display_name: "Dr. Active",
      membership_status: "active",
      invitation_token: null,
      groups: [{ uuid: readersGroup, name: "Readers" }],
      version: 1,
      last_login_at: null,
    });
    expect(r.body.joined_at).toBeString();
    expect(r.headers.get("etag")).toBe('"1"');
    const stored = await t.rt.control.read((db) => get<any>(db.select().from(users).where(eq(users.id, r.body.id))));
    expect(stored.email).toBe(e.toLowerCase());
    expect(stored.password_hash).toStartWith("$argon2id$");
    const rows = await auditOf(t, orgA, r.body.id);
    expect(rows.map((x) => x.action)).toEqual(["membership.created"]);
    expect(rows[0].before).toBeNull();
    expect(rows[0].after).toMatchObject({ id: r.body.id, membership_status: "active" });
    expect(JSON.stringify(rows[0])).not.toContain("argon2");
    expect(JSON.stringify(rows[0])).not.toContain("s3cret");
    const ev = events.slice(before).find((x) => x.type === "membership.created");
    expect(ev).toMatchObject({ resource_type: "membership", resource_id: r.body.id, data: { id: r.body.id } });
  });

  test("without a password the user is invited with a one-time token stored only as a hash", async () => {
    const r = await createMember(A, { email: email("inv"), display_name: "Invited" });
    expect(r.membership_status).toBe("invited");
    expect(r.joined_at).toBeNull();
    expect(r.invitation_token).toBeString();
    expect(r.invitation_token.length).toBeGreaterThan(30);
    const m = await t.rt.control.read((db) =>
      get<any>(
        db
          .select()
          .from(memberships)
          .where(and(eq(memberships.org_id, orgA), eq(memberships.user_id, r.id))),
      ),
    );
    expect(m.invitation_token_hash).toBe(sha256(r.invitation_token));
    const days = (Date.parse(m.invitation_expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    const u = await t.rt.control.read((db) => get<any>(db.select().from(users).where(eq(users.id, r.id))));
    expect(u.password_hash).toBeNull();
    const rows = await auditOf(t, orgA, r.id);
    expect(JSON.stringify(rows)).not.toContain(r.invitation_token);
    // the token is never shown again
    expect((await getMember(A, r.id)).invitation_token).toBeUndefined();
  });

  test("an existing account is invited; its password and name are never overwritten", async () => {
    const e = email("shared");
    const inB = await createMember(B, { email: e, display_name: "Original Name", password: "original-pass" });
    const r = await createMember(A, { email: e.toUpperCase(), display_name: "Other Name", password: "attacker-pass" });
    expect(r.id).toBe(inB.id);
    expect(r.membership_status).toBe("invited");
    expect(r.display_name).toBe("Original Name");
    expect(r.invitation_token).toBeString();
    expect((await t.request("POST", "/api/v1/auth/login", { body: { email: e, password: "attacker-pass" } })).status).toBe(401);
    expect((await t.request("POST", "/api/v1/auth/login", { body: { email: e, password: "original-pass" } })).status).toBe(200);
  });

  test("409 duplicate for a user who is already a member (any case of the email); nothing changes", async () => {
    const e = email("dup");
    const first = await createMember(A, { email: e, display_name: "Dup" });
    for (const body of [
      { email: e, display_name: "Dup" },
      { email: e.toUpperCase(), display_name: "Again", password: "another-pass" },
    ]) {
      const r = await t.request("POST", `${A}/users`, { token: admin, body });
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ detail: expect.any(String), code: "duplicate" });
    }
    const after = await getMember(A, first.id);
    expect(after.version).toBe(1);
    expect(after.display_name).toBe("Dup");
  });

  test("404 when a group is unknown, another org's or archived; no user is created", async () => {
    const archived = await createGroup(A, unique("Old"), ["iam.users.read"]);
    expect((await t.request("POST", `${A}/groups/${archived}/archive`, { token: admin })).status).toBe(200);
    for (const g of [groupB, archived, "01890000-0000-7000-8000-000000000000"]) {
      const e = email("nogroup");
      const r = await t.request("POST", `${A}/users`, { token: admin, body: { email: e, display_name: "X", group_uuids: [readersGroup, g] } });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
      const u = await t.rt.control.read((db) => get(db.select().from(users).where(eq(users.email, e))));
      expect(u).toBeUndefined();
    }
  });

  test("422 on bad input, unknown or read-only fields and malformed JSON", async () => {
    const cases: [unknown, (string | number)[]][] = [
      [{ display_name: "X" }, ["body", "email"]],
      [{ email: "not-an-email", display_name: "X" }, ["body", "email"]],
      [{ email: email(), display_name: "" }, ["body", "display_name"]],
      [{ email: email(), display_name: "X", password: "short" }, ["body", "password"]],
      [{ email: email(), display_name: "X", group_uuids: ["nope"] }, ["body", "group_uuids", 0]],
      [{ email: email(), display_name: "X", is_admin: true }, ["body", "is_admin"]],
      [{ email: email(), display_name: "X", id: "01890000-0000-7000-8000-000000000000" }, ["body", "id"]],
      [{ email: email(), display_name: "X", membership_status: "active" }, ["body", "membership_status"]],
    ];
    for (const [body, loc] of cases) {
      const r = await t.request("POST", `${A}/users`, { token: admin, body });
      expect(r.status).toBe(422);
      expect(r.body.detail.map((d: any) => d.loc)).toContainEqual(loc);
    }
    const bad = await t.request("POST", `${A}/users`, { token: admin, rawBody: '{"email": ', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body"]);
  });

  test("401 without a token, 403 without iam.users.write, 404 for an org the caller is not in", async () => {
    const e = email("refused");
    const body = { email: e, display_name: "Refused" };
    const r401 = await t.request("POST", `${A}/users`, { body });
    expect(r401.status).toBe(401);
    expect(r401.headers.get("www-authenticate")).toBe("Bearer");
    expect((await t.request("POST", `${A}/users`, { token: reader.token, body })).status).toBe(403);
    const r404 = await t.request("POST", `${B}/users`, { token: reader.token, body });
    expect(r404.status).toBe(404);
    expect(r404.body.code).toBe("not_found");
    expect((await t.request("POST", `/api/v1/not-a-uuid/iam/users`, { token: reader.token, body })).status).toBe(404);
    const u = await t.rt.control.read((db) => get(db.select().from(users).where(eq(users.email, e))));
    expect(u).toBeUndefined();
  });

  test("anti-escalation: a member cannot grant permissions they do not hold (403)", async () => {
    const e = email("esc");
    const r = await t.request("POST", `${A}/users`, { token: manager.token, body: { email: e, display_name: "Esc", group_uuids: [readersGroup] } });
    expect(r.status).toBe(403);
    expect((await t.request("POST", `${A}/users`, { token: manager.token, body: { email: e, display_name: "Esc", group_uuids: [adminGroupA] } })).status).toBe(
      403,
    );
    expect(await t.rt.control.read((db) => get(db.select().from(users).where(eq(users.email, e))))).toBeUndefined();
    const ok = await t.request("POST", `${A}/users`, { token: manager.token, body: { email: e, display_name: "Esc", group_uuids: [usersOnlyGroup] } });
    expect(ok.status).toBe(201);
    // nor manage someone who holds more than they do
    const target = await getMember(A, reader.id);
    expect(
      (await t.request("PATCH", `${A}/users/${reader.id}`, { token: manager.token, body: { base_version: target.version, group_uuids: [] } })).status,
    ).toBe(403);
    expect((await t.request("POST", `${A}/users/${adminId}/suspend`, { token: manager.token })).status).toBe(403);
    expect(await getMember(A, reader.id)).toEqual(target);
  });

  test("a removed member can be added again: same membership, new version", async () => {
    const m = await createMember(A, { email: email("again"), display_name: "Again", group_uuids: [usersOnlyGroup] });
    const removed = await t.request("POST", `${A}/users/${m.id}/remove`, { token: admin });
    expect(removed.body).toMatchObject({ membership_status: "removed", groups: [], version: 2 });
    const again = await t.request("POST", `${A}/users`, { token: admin, body: { email: m.email, display_name: "ignored", group_uuids: [readersGroup] } });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: m.id, membership_status: "invited", version: 3, groups: [{ uuid: readersGroup }] });
    expect(again.body.invitation_token).not.toBe(m.invitation_token);
  });
});

describe("GET /iam/users", () => {
  let people: { id: string; email: string }[];
  const tag = unique("lst").replace(/-/g, "");

  beforeAll(async () => {
    people = [];
    for (const [name, status] of [
      ["Zed Last", "active"],
      ["amy First", "invited"],
      ["Mia Middle", "suspended"],
      ["Rob Removed", "removed"],
    ] as const) {
      const m = await createMember(A, { email: `${tag}.${name.split(" ")[0]!.toLowerCase()}@example.com`, display_name: `${name} ${tag}` });
      if (status === "active") {
        // activate without a password round trip: accept is covered in invite.test.ts
        await t.rt.control.write(function* (tx) {
          yield* get(tx.update(memberships).set({ status: "active", joined_at: new Date().toISOString() }).where(eq(memberships.user_id, m.id)).returning());
        });
        await t.rt.access.invalidate();
      }
      if (status === "suspended") {
        await t.rt.control.write(function* (tx) {
          yield* get(tx.update(memberships).set({ status: "active", joined_at: new Date().toISOString() }).where(eq(memberships.user_id, m.id)).returning());
        });
        expect((await t.request("POST", `${A}/users/${m.id}/suspend`, { token: admin })).status).toBe(200);
      }
      if (status === "removed") expect((await t.request("POST", `${A}/users/${m.id}/remove`, { token: admin })).status).toBe(200);
      people.push({ id: m.id, email: m.email });
    }
  });

  const list = async (qs: string, token = admin) => t.request("GET", `${A}/users?${qs}`, { token });

  test("search matches email or display name case-insensitively; removed members only on request", async () => {
    const r = await list(`search=${tag.toUpperCase()}`);
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(3);
    expect(r.body.items.map((i: any) => i.display_name)).toEqual([`amy First ${tag}`, `Mia Middle ${tag}`, `Zed Last ${tag}`]);
    const item = r.body.items[0];
    expect(Object.keys(item).sort()).toEqual([
      "created_at",
      "display_name",
      "email",
      "groups",
      "id",
      "joined_at",
      "last_login_at",
      "membership_status",
      "updated_at",
      "version",
    ]);
    expect((await list(`search=${tag}.ZED@`)).body.items.map((i: any) => i.id)).toEqual([people[0]!.id]);
    expect((await list(`search=${tag}&status=removed`)).body.items.map((i: any) => i.id)).toEqual([people[3]!.id]);
    expect((await list(`search=${tag}&status=suspended`)).body.items.map((i: any) => i.membership_status)).toEqual(["suspended"]);
    // LIKE wildcards are literal
    expect((await list(`search=${encodeURIComponent("%")}`)).body.total).toBe(0);
    expect((await list(`search=_`)).body.total).toBe(0);
  });

  test("sorting and paging", async () => {
    const byEmailDesc = await list(`search=${tag}&sort_by=email&sort_order=desc`);
    const emails = byEmailDesc.body.items.map((i: any) => i.email);
    expect(emails).toEqual([...emails].sort().reverse());
    const byStatus = await list(`search=${tag}&sort_by=membership_status`);
    expect(byStatus.body.items.map((i: any) => i.membership_status)).toEqual(["active", "invited", "suspended"]);
    const byJoined = await list(`search=${tag}&sort_by=joined_at&sort_order=desc`);
    expect(byJoined.body.items.at(-1).joined_at).toBeNull(); // never joined: last either way
    expect((await list(`search=${tag}&sort_by=last_login_at`)).status).toBe(200);
    const page2 = await list(`search=${tag}&page=2&page_size=2`);
    expect(page2.body).toMatchObject({ page: 2, page_size: 2, total: 3 });
    expect(page2.body.items).toHaveLength(1);
    const all = await list("");
    expect(all.body.page_size).toBe(50);
  });

  test("422 on invalid sort_by, sort_order, status, paging or unknown parameters", async () => {
    for (const [qs, field] of [
      ["sort_by=created_at", "sort_by"],
      ["sort_order=up", "sort_order"],
      ["status=gone", "status"],
      ["page=0", "page"],
      ["page_size=201", "page_size"],
      ["colour=red", "colour"],
    ]) {
      const r = await list(qs!);
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["query", field]);
    }
  });

  test("401, 403 without iam.users.read, 404 for a non-member org; a reader may list", async () => {
    expect((await t.request("GET", `${A}/users`)).status).toBe(401);
    expect((await list("", nobody.token)).status).toBe(403);
    expect((await t.request("GET", `${B}/users`, { token: reader.token })).status).toBe(404);
    expect((await list("", reader.token)).status).toBe(200);
  });

  test("another org's members never appear", async () => {
    const inB = await createMember(B, { email: email("onlyb"), display_name: `OnlyB ${tag}` });
    expect((await list(`search=OnlyB`)).body.total).toBe(0);
    expect((await t.request("GET", `${A}/users/${inB.id}`, { token: admin })).status).toBe(404);
  });
});

describe("GET /iam/users/{user_id}", () => {
  test("200 for a member, 404 for unknown, malformed or other-org ids; 401/403/404 access", async () => {
    const r = await t.request("GET", `${A}/users/${reader.id}`, { token: reader.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: reader.id, membership_status: "active", groups: [{ uuid: readersGroup, name: "Readers" }] });
    expect(r.body.last_login_at).toBeString();
    expect((await t.request("GET", `${A}/users/${reader.id.toUpperCase()}`, { token: admin })).body.id).toBe(reader.id);
    for (const id of ["01890000-0000-7000-8000-000000000000", "nope"]) {
      const x = await t.request("GET", `${A}/users/${id}`, { token: admin });
      expect(x.status).toBe(404);
      expect(x.body.code).toBe("not_found");
    }
    expect((await t.request("GET", `${A}/users/${reader.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/users/${reader.id}`, { token: nobody.token })).status).toBe(403);
    expect((await t.request("GET", `${B}/users/${reader.id}`, { token: reader.token })).status).toBe(404);
    expect((await t.request("GET", `${B}/users/${reader.id}`, { token: admin })).status).toBe(404);
  });
});

describe("PATCH /iam/users/{user_id}", () => {
  test("replaces groups and renames an org-local account; version and audit follow", async () => {
    const m = await createMember(A, { email: email("patch"), display_name: "Before", group_uuids: [readersGroup] });
    const r = await t.request("PATCH", `${A}/users/${m.id}`, {
      token: admin,
      body: { base_version: 1, display_name: "After", group_uuids: [usersOnlyGroup, managersGroup] },
    });
    expect(r.status).toBe(200);
    expect(r.body.version).toBe(2);
    expect(r.body.display_name).toBe("After");
    expect(r.body.groups.map((g: any) => g.name)).toEqual(["Managers", "User readers"]);
    const rows = await auditOf(t, orgA, m.id);
    const upd = rows.find((x) => x.action === "membership.updated");
    expect(upd.before.display_name).toBe("Before");
    expect(upd.after.groups).toHaveLength(2);
    const empty = await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: 2, group_uuids: [] } });
    expect(empty.body).toMatchObject({ version: 3, groups: [] });
  });

  test("409 on a stale base_version; the member is unchanged", async () => {
    const m = await createMember(A, { email: email("stale"), display_name: "Stale" });
    const before = await getMember(A, m.id);
    const r = await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: 7, display_name: "Nope" } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("version_conflict");
    expect(await getMember(A, m.id)).toEqual(before);
  });

  test("409 shared_account when renaming an account another org or the platform uses", async () => {
    const e = email("both");
    await createMember(B, { email: e, display_name: "Both" });
    const m = await createMember(A, { email: e, display_name: "Both" });
    const r = await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: 1, display_name: "Renamed" } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("shared_account");
    const adminNow = await getMember(A, adminId);
    const r2 = await t.request("PATCH", `${A}/users/${adminId}`, { token: admin, body: { base_version: adminNow.version, display_name: "Hacked" } });
    expect(r2.body.code).toBe("shared_account");
    expect((await getMember(A, m.id)).display_name).toBe("Both");
    expect(await getMember(A, adminId)).toEqual(adminNow);
    // the same name is not a change
    expect((await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: 1, display_name: "Both" } })).status).toBe(200);
  });

  test("409 last_admin when the only active administrator would lose the admin group", async () => {
    const before = await getMember(A, adminId);
    const r = await t.request("PATCH", `${A}/users/${adminId}`, { token: admin, body: { base_version: before.version, group_uuids: [readersGroup] } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("last_admin");
    expect(await getMember(A, adminId)).toEqual(before);
  });

  test("404 for unknown users, other orgs' users and groups; 422 bad input; 401/403", async () => {
    const m = await createMember(A, { email: email("p404"), display_name: "P" });
    const inB = await createMember(B, { email: email("p404b"), display_name: "PB" });
    expect((await t.request("PATCH", `${A}/users/01890000-0000-7000-8000-000000000000`, { token: admin, body: { base_version: 1 } })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/users/${inB.id}`, { token: admin, body: { base_version: 1, display_name: "X" } })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: 1, group_uuids: [groupB] } })).status).toBe(404);
    for (const [body, loc] of [
      [{ display_name: "X" }, ["body", "base_version"]],
      [{ base_version: 1, email: "x@y.z" }, ["body", "email"]],
      [{ base_version: 1, version: 3 }, ["body", "version"]],
      [{ base_version: "1" }, ["body", "base_version"]],
    ] as const) {
      const r = await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body });
      expect(r.status).toBe(422);
      expect(r.body.detail.map((d: any) => d.loc)).toContainEqual(loc);
    }
    expect((await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, rawBody: "{", headers: { "content-type": "application/json" } })).status).toBe(422);
    expect((await t.request("PATCH", `${A}/users/${m.id}`, { body: { base_version: 1 } })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/users/${m.id}`, { token: reader.token, body: { base_version: 1, display_name: "R" } })).status).toBe(403);
    expect((await t.request("PATCH", `${B}/users/${inB.id}`, { token: reader.token, body: { base_version: 1 } })).status).toBe(404);
    const after = await getMember(A, m.id);
    expect(after).toMatchObject({ version: 1, display_name: "P", groups: [] });
    expect((await t.request("GET", `${B}/users/${inB.id}`, { token: admin })).body.display_name).toBe("PB");
  });

  test("409 membership_removed for a removed member", async () => {
    const m = await createMember(A, { email: email("gone"), display_name: "Gone" });
    const removed = (await t.request("POST", `${A}/users/${m.id}/remove`, { token: admin })).body;
    const r = await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: removed.version, display_name: "Back" } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("membership_removed");
  });
});

describe("suspend, reactivate, remove", () => {
  test("status changes take effect at once on the member's own access", async () => {
    const victim = await iamMemberWithLogin(t, A, [usersOnlyGroup]);
    const own = () => t.request("GET", `${A}/users`, { token: victim.token });
    expect((await own()).status).toBe(200);

    const s = await t.request("POST", `${A}/users/${victim.id}/suspend`, { token: admin });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ membership_status: "suspended", version: 2 });
    expect((await own()).status).toBe(404);
    const again = await t.request("POST", `${A}/users/${victim.id}/suspend`, { token: admin });
    expect(again.body.version).toBe(2); // repeating changes nothing

    const re = await t.request("POST", `${A}/users/${victim.id}/reactivate`, { token: admin });
    expect(re.body).toMatchObject({ membership_status: "active", version: 3 });
    expect((await own()).status).toBe(200);

    const rm = await t.request("POST", `${A}/users/${victim.id}/remove`, { token: admin });
    expect(rm.body).toMatchObject({ membership_status: "removed", groups: [] });
    expect((await own()).status).toBe(404);
    expect((await t.request("GET", `${A}/users/${victim.id}`, { token: admin })).body.membership_status).toBe("removed");
    expect((await t.request("POST", `${A}/users/${victim.id}/reactivate`, { token: admin })).status).toBe(422);
    const actions = (await auditOf(t, orgA, victim.id)).map((x) => x.action);
    expect(actions).toEqual(["membership.created", "membership.suspended", "membership.reactivated", "membership.removed"]);
  });

  test("422 invalid_transition for an invitation that cannot be suspended or reactivated", async () => {
    const m = await createMember(A, { email: email("invs"), display_name: "Inv" });
    for (const action of ["suspend", "reactivate"]) {
      const r = await t.request("POST", `${A}/users/${m.id}/${action}`, { token: admin });
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("invalid_transition");
    }
    expect((await getMember(A, m.id)).version).toBe(1);
    const rm = await t.request("POST", `${A}/users/${m.id}/remove`, { token: admin });
    expect(rm.body.membership_status).toBe("removed");
    const stored = await t.rt.control.read((db) =>
      get<any>(
        db
          .select()
          .from(memberships)
          .where(and(eq(memberships.org_id, orgA), eq(memberships.user_id, m.id))),
      ),
    );
    expect(stored.invitation_token_hash).toBeNull();
  });

  test("409 last_admin: the only active org administrator can be neither suspended nor removed", async () => {
    const before = await getMember(A, adminId);
    for (const action of ["suspend", "remove"]) {
      const r = await t.request("POST", `${A}/users/${adminId}/${action}`, { token: admin });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe("last_admin");
    }
    expect(await getMember(A, adminId)).toEqual(before);
    // with a second administrator it is allowed
    const second = await createMember(A, { email: email("admin2"), display_name: "Second", group_uuids: [adminGroupA], password: "second-admin" });
    const s = await t.request("POST", `${A}/users/${adminId}/suspend`, { token: admin });
    expect(s.status).toBe(200);
    expect((await t.request("POST", `${A}/users/${second.id}/remove`, { token: admin })).body.code).toBe("last_admin");
    expect((await t.request("POST", `${A}/users/${adminId}/reactivate`, { token: admin })).status).toBe(200);
    expect((await t.request("POST", `${A}/users/${second.id}/remove`, { token: admin })).status).toBe(200);
  });

  test("401, 403, 404 (unknown, other org, non-member org); refused requests change nothing", async () => {
    const inB = await createMember(B, { email: email("sb"), display_name: "SB", password: "member-of-b" });
    for (const action of ["suspend", "reactivate", "remove"]) {
      expect((await t.request("POST", `${A}/users/${reader.id}/${action}`)).status).toBe(401);
      expect((await t.request("POST", `${A}/users/${nobody.id}/${action}`, { token: reader.token })).status).toBe(403);
      expect((await t.request("POST", `${A}/users/01890000-0000-7000-8000-000000000000/${action}`, { token: admin })).status).toBe(404);
      expect((await t.request("POST", `${A}/users/${inB.id}/${action}`, { token: admin })).status).toBe(404);
      expect((await t.request("POST", `${B}/users/${inB.id}/${action}`, { token: reader.token })).status).toBe(404);
    }
    expect((await getMember(A, nobody.id)).membership_status).toBe("active");
    expect((await t.request("GET", `${B}/users/${inB.id}`, { token: admin })).body).toMatchObject({ membership_status: "active", version: 1 });
  });
});

describe("permission changes apply immediately", () => {
  test("taking a member's group away ends their access on the next request", async () => {
    const m = await iamMemberWithLogin(t, A, [usersOnlyGroup]);
    expect((await t.request("GET", `${A}/users`, { token: m.token })).status).toBe(200);
    const cur = await getMember(A, m.id);
    expect((await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: cur.version, group_uuids: [] } })).status).toBe(200);
    expect((await t.request("GET", `${A}/users`, { token: m.token })).status).toBe(403);
    expect(
      (await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: cur.version + 1, group_uuids: [managersGroup] } })).status,
    ).toBe(200);
    expect((await t.request("GET", `${A}/users`, { token: m.token })).status).toBe(200);
  });
});

describe("groups with access to health information need an administrator", () => {
  test("a member manager who is not an org admin cannot hand out a PHI group through group_uuids (403, nothing changed); an admin can", async () => {
    const phiReaders = await createGroup(A, "Chart readers", ["patients.read"]);
    const phiManagers = await createGroup(A, "PHI managers", ["iam.users.read", "iam.users.write", "patients.read"]);
    const boss = await iamMemberWithLogin(t, A, [phiManagers]);
    const before = (await t.request("GET", `${A}/users`, { token: admin })).body.total;
    const created = await t.request("POST", `${A}/users`, {
      token: boss.token,
      body: { email: email("phi"), display_name: "PHI", group_uuids: [phiReaders], password: "long-enough-pw" },
    });
    expect(created.status).toBe(403);
    expect(created.body.detail).toContain("POST /iam/assignments");
    expect((await t.request("GET", `${A}/users`, { token: admin })).body.total).toBe(before);

    const target = await createMember(A, { email: email("phi2"), display_name: "Target", password: "long-enough-pw" });
    const patched = await t.request("PATCH", `${A}/users/${target.id}`, {
      token: boss.token,
      body: { base_version: target.version, group_uuids: [phiReaders] },
    });
    expect(patched.status).toBe(403);
    expect(await getMember(A, target.id)).toMatchObject({ groups: [], version: target.version });

    // a group without PHI keys is fine for the same caller; an org admin may grant the PHI group at once
    expect(
      (await t.request("PATCH", `${A}/users/${target.id}`, { token: boss.token, body: { base_version: target.version, group_uuids: [usersOnlyGroup] } }))
        .status,
    ).toBe(200);
    const byAdmin = await t.request("PATCH", `${A}/users/${target.id}`, {
      token: admin,
      body: { base_version: target.version + 1, group_uuids: [usersOnlyGroup, phiReaders] },
    });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.groups.map((g: { uuid: string }) => g.uuid).sort()).toEqual([usersOnlyGroup, phiReaders].sort());
    // keeping a PHI group someone else granted is not granting it
    expect(
      (await t.request("PATCH", `${A}/users/${target.id}`, { token: boss.token, body: { base_version: target.version + 2, group_uuids: [phiReaders] } }))
        .status,
    ).toBe(200);
  });
});
