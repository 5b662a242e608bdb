import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN, startTestApp, type TestApp } from "@tests/helpers";
import { loadConfig } from "@/config";
import { TokenSigner } from "@/platform/auth/tokens";
import { users } from "@db/control/schema";
import { get } from "@/platform/db/work";
import { eq } from "drizzle-orm";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const me = (token: string) => t.request("GET", "/api/v1/auth/me/orgs", { token });

describe("login", () => {
  test("bootstrap administrator logs in with the default credentials; password stored as argon2id", async () => {
    const r = await t.request("POST", "/api/v1/auth/login", { body: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body.token_type).toBe("bearer");
    expect(r.body.expires_in).toBe(900);
    expect(r.body.access_token.split(".")).toHaveLength(3);
    expect(r.body.refresh_token.length).toBeGreaterThan(30);
    const row = await t.rt.control.read((db) => get<any>(db.select().from(users).where(eq(users.email, ADMIN.email))));
    expect(row!.password_hash.startsWith("$argon2id$")).toBe(true);
    expect(row!.is_global_access).toBe(true);
    const m = await me(r.body.access_token);
    expect(m.status).toBe(200);
    expect(m.body).toEqual({ is_platform_admin: true, orgs: [] });
  });

  test("email is case-insensitive", async () => {
    const r = await t.request("POST", "/api/v1/auth/login", { body: { email: "ADMIN@Example.com", password: ADMIN.password } });
    expect(r.status).toBe(200);
  });

  test("wrong password and unknown email give the same 401", async () => {
    const a = await t.request("POST", "/api/v1/auth/login", { body: { email: ADMIN.email, password: "nope-nope" } });
    const b = await t.request("POST", "/api/v1/auth/login", { body: { email: "nobody@example.com", password: "nope-nope" } });
    expect(a.status).toBe(401);
    expect(b.status).toBe(401);
    expect(a.body).toEqual(b.body);
    expect(a.body).toEqual({ detail: "Invalid email or password", code: "unauthorized" });
  });

  test("login body is validated", async () => {
    const r = await t.request("POST", "/api/v1/auth/login", { body: { email: ADMIN.email } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ["body", "password"], msg: "Field required", type: "missing" }]);
  });
});

describe("refresh rotation and reuse detection", () => {
  test("a refresh token works once and rotates", async () => {
    const first = await t.login();
    const r = await t.request("POST", "/api/v1/auth/refresh", { body: { refresh_token: first.refresh_token } });
    expect(r.status).toBe(200);
    expect(r.body.refresh_token).not.toBe(first.refresh_token);
    expect((await me(r.body.access_token)).status).toBe(200);
    const again = await t.request("POST", "/api/v1/auth/refresh", { body: { refresh_token: r.body.refresh_token } });
    expect(again.status).toBe(200);
  });

  test("reusing a spent refresh token revokes the whole family", async () => {
    const first = await t.login();
    const second = (await t.request("POST", "/api/v1/auth/refresh", { body: { refresh_token: first.refresh_token } })).body;
    const reuse = await t.request("POST", "/api/v1/auth/refresh", { body: { refresh_token: first.refresh_token } });
    expect(reuse.status).toBe(401);
    expect(reuse.headers.get("www-authenticate")).toBe("Bearer");
    // the legitimate holder's newer tokens are dead too
    expect((await t.request("POST", "/api/v1/auth/refresh", { body: { refresh_token: second.refresh_token } })).status).toBe(401);
    expect((await me(second.access_token)).status).toBe(401);
    expect((await me(first.access_token)).status).toBe(401);
  });

  test("an unknown refresh token is 401", async () => {
    const r = await t.request("POST", "/api/v1/auth/refresh", { body: { refresh_token: "not-a-token" } });
    expect(r.status).toBe(401);
  });
});

describe("logout", () => {
  test("204, then the access and refresh tokens of that session are refused; other sessions live on", async () => {
    const a = await t.login();
    const b = await t.login();
    const r = await t.request("POST", "/api/v1/auth/logout", { token: a.access_token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await me(a.access_token)).status).toBe(401);
    expect((await t.request("POST", "/api/v1/auth/refresh", { body: { refresh_token: a.refresh_token } })).status).toBe(401);
    expect((await me(b.access_token)).status).toBe(200);
  });

  test("logout without a token is 401", async () => {
    expect((await t.request("POST", "/api/v1/auth/logout")).status).toBe(401);
  });
});

describe("access tokens", () => {
  test("expired and wrongly signed tokens are 401", async () => {
    const { sessionId } = await (async () => {
      const pair = await t.login();
      const payload = JSON.parse(Buffer.from(pair.access_token.split(".")[1]!, "base64url").toString());
      return { sessionId: payload.sid as string, userId: payload.sub as string };
    })();
    const userId = JSON.parse(Buffer.from((await t.adminToken()).split(".")[1]!, "base64url").toString()).sub;
    const expired = await new TokenSigner(t.config.jwtSecret, -10).issue(userId, sessionId);
    expect((await me(expired)).status).toBe(401);
    const forged = await new TokenSigner(new TextEncoder().encode("another-secret-another-secret-another"), 900).issue(userId, sessionId);
    expect((await me(forged)).status).toBe(401);
  });

  test("X-User-Id is refused outside the dev-stub event stream", async () => {
    const r = await t.request("GET", "/api/v1/auth/me/orgs", { token: await t.adminToken(), headers: { "x-user-id": "01a1fe29-0000-7000-8000-000000000000" } });
    expect(r.status).toBe(401);
  });
});

describe("production configuration", () => {
  test("refuses to start without explicit admin credentials and JWT secret", () => {
    expect(() => loadConfig({ NODE_ENV: "production", DATA_DIR: t.dir })).toThrow(/DPMS_ADMIN_EMAIL, DPMS_ADMIN_PASSWORD, DPMS_JWT_SECRET/);
    expect(() => loadConfig({ NODE_ENV: "production", DATA_DIR: t.dir, DPMS_ADMIN_EMAIL: "a@b.c", DPMS_ADMIN_PASSWORD: "x".repeat(12) })).toThrow(
      /DPMS_JWT_SECRET/,
    );
    const ok = loadConfig({
      NODE_ENV: "production",
      DATA_DIR: t.dir,
      DPMS_ADMIN_EMAIL: "a@b.c",
      DPMS_ADMIN_PASSWORD: "x".repeat(12),
      DPMS_JWT_SECRET: "s".repeat(40),
    });
    expect(ok.bootstrapAdmin).toEqual({ email: "a@b.c", password: "x".repeat(12), fromDefaults: false });
  });
});
