import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Config } from "../src/config";
import { buildApp } from "../src/app";
import { closeRuntime, createRuntime } from "../src/platform/bootstrap/runtime";
import type { Runtime } from "../src/platform/runtime";

export const ADMIN = { email: "admin@example.com", password: "admin-password" };

export type TestApp = {
  rt: Runtime;
  config: Config;
  dir: string;
  /** Send a request through the whole app (app.handle), like a client would. */
  request(method: string, path: string, opts?: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<TestResponse>;
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
  const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: "silent", ...env });
  const rt = await createRuntime(config, { withQueue: options.withQueue ?? false });
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
    rt, config, dir, request,
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

import { memberships, membershipGroups, permissionGroups, users } from "../db/control/schema";
import { run } from "../src/platform/db/work";
import { hashPassword } from "../src/platform/auth/passwords";

/**
 * A user who is an active member of `orgId` holding exactly `keys` (written
 * straight to the control database, so platform tests don't depend on IAM routes).
 */
export async function createMember(t: TestApp, orgId: string | null, keys: string[], opts: { password?: string } = {}) {
  const now = new Date().toISOString();
  const userId = Bun.randomUUIDv7();
  const email = `${unique("user")}@example.com`;
  const password = opts.password ?? "member-password";
  const hash = await hashPassword(password);
  await t.rt.control.write(function* (tx) {
    yield* run(tx.insert(users).values({ id: userId, email, display_name: `User ${email}`, password_hash: hash, status: "active", created_at: now, updated_at: now, version: 1 }));
    if (orgId) {
      const groupId = Bun.randomUUIDv7();
      const membershipId = Bun.randomUUIDv7();
      yield* run(tx.insert(permissionGroups).values({ id: groupId, org_id: orgId, name: `g-${groupId}`, permission_keys: keys, created_at: now, updated_at: now, version: 1 }));
      yield* run(tx.insert(memberships).values({ id: membershipId, org_id: orgId, user_id: userId, status: "active", joined_at: now, created_at: now, updated_at: now, version: 1 }));
      yield* run(tx.insert(membershipGroups).values({ membership_id: membershipId, group_id: groupId }));
    }
  });
  await t.rt.access.invalidate();
  const { access_token, refresh_token } = await t.login(email, password);
  return { userId, email, password, token: access_token, refresh: refresh_token };
}
