import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Config } from "@/config";
import { buildApp } from "@/app";
import { closeRuntime, createRuntime } from "@/platform/bootstrap/create-runtime";
import type { Runtime } from "@/platform/runtime";
import { eq } from "drizzle-orm";
import { iamAssignments, memberships, permissionGroups, platformGroupAssignments, users } from "@db/control/schema";
import { auditEntries } from "@db/tenant/audit";
import { all, run } from "@/platform/db/work";
import { hashPassword } from "@/platform/auth/passwords";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { orgWideAssignmentRow } from "@/platform/tenancy/grants";
import { REACTIONS } from "@/reactions";

// Waiting for asynchronous effects (events, jobs, expiry) without fixed sleeps.
export { busDrained, settle, waitFor, waitForEvent } from "@tests/support/wait";

// An app with org A (under test), org B (the other tenant) and members holding given keys.
export { twoOrgApp, type Member, type MemberSpec, type TwoOrgApp, type TwoOrgOptions } from "@tests/support/two-orgs";

export const ADMIN = { email: "admin@example.com", password: "admin-password" };

export type TestApp = {
  rt: Runtime;
  config: Config;
  dir: string;
  /** Send a request through the whole app (app.handle), like a client would. */
  request(method: string, path: string, opts?: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<TestResponse>;
  /** A request as built by the caller (a multipart form, a stream), through the whole app. */
  handle(request: Request): Promise<Response>;
  login(email?: string, password?: string): Promise<{ access_token: string; refresh_token: string }>;
  adminToken(): Promise<string>;
  createOrg(token?: string, fields?: Record<string, unknown>): Promise<{ id: string; name: string; slug: string; version: number }>;
  close(): Promise<void>;
};

export type TestResponse = { status: number; headers: Headers; body: any; text: string };

let counter = 0;
export const unique = (prefix = "t") => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

/** A fresh app on its own temporary data directory: tests never share state. */
export async function startTestApp(env: Record<string, string> = {}, options: { withQueue?: boolean } = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), "cusp-test-"));
  const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: "silent", RESPONSE_SCHEMAS: "strict", RATE_LIMITS: "off", ...env });
  const rt = await createRuntime(config, { withQueue: options.withQueue ?? false, reactions: REACTIONS });
  const app = buildApp(rt);
  let adminToken: string | null = null;

  const request: TestApp["request"] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  const t: TestApp = {
    rt,
    handle: (r) => app.handle(r),
    config,
    dir,
    request,
    async login(email = ADMIN.email, password = ADMIN.password) {
      const r = await request("POST", "/api/v1/auth/login", { body: { email, password } });
      if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
      return r.body;
    },
    async adminToken() {
      adminToken ??= (await t.login()).access_token;
      return adminToken;
    },
    async createOrg(token, fields = {}) {
      const slug = unique("org");
      const r = await request("POST", "/api/v1/admin/orgs", { token: token ?? (await t.adminToken()), body: { name: `Org ${slug}`, slug, ...fields } });
      if (r.status !== 201) throw new Error(`createOrg failed: ${r.status} ${r.text}`);
      return r.body;
    },
    async close() {
      await closeRuntime(rt);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return t;
}

/**
 * A user who is an active member of `orgId` holding exactly `keys` (written
 * straight to the control database, so platform tests don't depend on IAM routes);
 * with `platformKeys` also a platform administrator holding those platform keys.
 */
export async function createMember(
  t: TestApp,
  orgId: string | null,
  keys: string[],
  opts: { password?: string; displayName?: string; platformKeys?: string[] } = {},
) {
  const now = new Date().toISOString();
  const userId = Bun.randomUUIDv7();
  const email = `${unique("user")}@example.com`;
  const password = opts.password ?? "member-password";
  const hash = await hashPassword(password);
  const platformKeys = opts.platformKeys;
  await t.rt.control.write(function* (tx) {
    yield* run(
      tx.insert(users).values({
        id: userId,
        email,
        display_name: opts.displayName ?? `User ${email}`,
        password_hash: hash,
        status: "active",
        is_platform_admin: !!platformKeys,
        created_at: now,
        updated_at: now,
        version: 1,
      }),
    );
    if (orgId) {
      const groupId = Bun.randomUUIDv7();
      const membershipId = Bun.randomUUIDv7();
      yield* run(
        tx
          .insert(permissionGroups)
          .values({ id: groupId, org_id: orgId, name: `g-${groupId}`, permission_keys: keys, created_at: now, updated_at: now, version: 1 }),
      );
      yield* run(
        tx
          .insert(memberships)
          .values({ id: membershipId, org_id: orgId, user_id: userId, status: "active", joined_at: now, created_at: now, updated_at: now, version: 1 }),
      );
      yield* run(tx.insert(iamAssignments).values(orgWideAssignmentRow({ id: Bun.randomUUIDv7(), orgId, membershipId, userId, groupId, now })));
    }
    if (platformKeys) {
      const groupId = Bun.randomUUIDv7();
      yield* run(
        tx
          .insert(permissionGroups)
          .values({ id: groupId, org_id: null, name: `g-${groupId}`, permission_keys: platformKeys, created_at: now, updated_at: now, version: 1 }),
      );
      yield* run(tx.insert(platformGroupAssignments).values({ id: Bun.randomUUIDv7(), user_id: userId, group_id: groupId, assigned_at: now }));
    }
  });
  await t.rt.access.invalidate();
  const { access_token, refresh_token } = await t.login(email, password);
  return { userId, email, password, token: access_token, refresh: refresh_token };
}

/** A user in no org holding `platformKeys` (none: a plain user), as `{ id, token }`. */
export async function createPlatformUser(t: TestApp, displayName: string, platformKeys?: string[]) {
  const u = await createMember(t, null, [], { displayName, platformKeys });
  return { id: u.userId, token: u.token };
}

/** The audit entries about `resourceId` in the org's own database. */
export async function auditOf(t: TestApp, orgId: string, resourceId: string) {
  const org = (await t.rt.access.org(orgId))!;
  const db = await t.rt.orgDbs.get(org.id, org.shard);
  return db.read((d) => all<any>(d.select().from(auditEntries).where(eq(auditEntries.resource_id, resourceId))));
}

/** A member created by the admin through the IAM API at `P` (an org's iam path) in `groupIds`, logged in. */
export async function iamMemberWithLogin(t: TestApp, P: string, groupIds: string[]) {
  const email = `${unique("m")}@example.com`;
  const password = "correct-horse";
  const r = await t.request("POST", `${P}/users`, {
    token: await t.adminToken(),
    body: { email, display_name: `Member ${email}`, group_uuids: groupIds, password },
  });
  if (r.status !== 201) throw new Error(`create member failed: ${r.status} ${r.text}`);
  return { id: r.body.id as string, email, token: (await t.login(email, password)).access_token };
}

/** Each body is refused with 422, its first `detail` item at `loc` with `type` (table-driven validation tests). */
export async function expectValidationCases(
  t: TestApp,
  method: string,
  path: string,
  token: string,
  cases: readonly (readonly [unknown, readonly unknown[], string])[],
) {
  for (const [body, loc, type] of cases) {
    const r = await t.request(method, path, { token, body });
    expect({ body, status: r.status }).toEqual({ body, status: 422 });
    expect({ body, first: r.body.detail[0] }).toEqual({ body, first: { loc, msg: expect.any(String), type } });
  }
}

/**
 * The guard's answers for one route: 401 (with WWW-Authenticate) without a
 * token, 403 for a member holding every org key but `key`, 404 for a member of
 * another org holding `key`. Returns the token of a member holding just `key`.
 */
export async function expectGuarded(t: TestApp, orgId: string, otherOrgId: string, method: string, path: string, key: string, body?: unknown) {
  const anon = await t.request(method, path, { body });
  expect(anon.status).toBe(401);
  expect(anon.headers.get("www-authenticate")).toBe("Bearer");
  const lacking = await createMember(
    t,
    orgId,
    ORG_PERMISSION_KEYS.filter((k) => k !== key),
  );
  const forbidden = await t.request(method, path, { token: lacking.token, body });
  expect(forbidden.status).toBe(403);
  expect(forbidden.body.code).toBe("forbidden");
  const outsider = await createMember(t, otherOrgId, [key]);
  expect((await t.request(method, path, { token: outsider.token, body })).status).toBe(404);
  const holder = await createMember(t, orgId, [key]);
  return holder.token;
}
