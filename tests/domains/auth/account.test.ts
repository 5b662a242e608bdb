// Account self-service over HTTP (docs/auth/account.md): change-password,
// forgot-password and reset-password, resend-verification and verify-email,
// the embedded outbox mailer, and the SMTP mailer against a tiny SMTP server
// started here with Bun.listen. Throttle limits are small (3 per account or
// invitation, 6 per address, locks of 1 s); each test uses addresses of its own.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditIndex, emailVerificationTokens, passwordResetTokens, users } from "@db/control/schema";
import { all, get, run } from "@/platform/db/work";
import { sha256 } from "@/platform/ids";
import { readOutbox } from "@/platform/mail/outbox";
import { SmtpMailer } from "@/platform/mail/smtp";
import { accountMailSettled, FORGOT_PASSWORD_ANSWER } from "@/domains/auth/account";
import { createMember, startTestApp, unique, type TestApp, type TestResponse } from "@tests/helpers";
import { waitFor } from "@tests/support/wait";

const CLIENT = "x-test-client";
const APP_URL = "https://app.example.test";
const ENV = {
  LOGIN_MAX_FAILURES: "3",
  LOGIN_MAX_FAILURES_PER_ADDRESS: "6",
  LOGIN_LOCKOUT_SECONDS: "1",
  LOGIN_LOCKOUT_MAX_SECONDS: "3",
  LOGIN_FAILURE_WINDOW_SECONDS: "60",
  CLIENT_IP_HEADER: CLIENT,
  PUBLIC_APP_URL: `${APP_URL}/`,
};
const AUTH = "/api/v1/auth";
const INVALID_TOKEN = {
  detail: [{ loc: ["body", "token"], msg: "This link is invalid or has expired", type: "invalid_token" }],
  code: "invalid_token",
};
const WRONG_PASSWORD = {
  detail: [{ loc: ["body", "current_password"], msg: "The current password is not correct", type: "invalid_password" }],
  code: "invalid_password",
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp(ENV);
});
afterAll(() => t.close());

let n = 0;
const newAddress = () => `10.77.${n++ & 255}.${Math.floor(Math.random() * 250)}`;
const post = (path: string, opts: { token?: string; body?: unknown; address?: string; app?: TestApp } = {}) =>
  (opts.app ?? t).request("POST", `${AUTH}${path}`, { token: opts.token, body: opts.body, headers: { [CLIENT]: opts.address ?? newAddress() } });
const answer = (r: TestResponse) => ({ status: r.status, body: r.body, retryAfter: r.headers.get("retry-after") });
const user = (app = t) => createMember(app, null, [], { password: "right-password" });
const login = (email: string, password: string, app = t) =>
  app.request("POST", `${AUTH}/login`, { body: { email, password }, headers: { [CLIENT]: newAddress() } });
const me = (token: string, app = t) => app.request("GET", `${AUTH}/me/orgs`, { token });
const refresh = (token: string, app = t) => app.request("POST", `${AUTH}/refresh`, { body: { refresh_token: token }, headers: { [CLIENT]: newAddress() } });

const tokenIn = (text: string, page: string) => {
  const m = new RegExp(`${APP_URL.replaceAll(".", "\\.")}/${page}#token=([A-Za-z0-9_-]+)`).exec(text);
  if (!m) throw new Error(`no ${page} link in: ${text}`);
  return m[1]!;
};
const outboxTo = async (email: string, app = t) => {
  await accountMailSettled(app.rt);
  return readOutbox(app.rt.control, { to: email });
};
const userRow = (id: string, app = t) => app.rt.control.read((db) => get<any>(db.select().from(users).where(eq(users.id, id))));
const auditActions = async (userId: string, app = t) =>
  (await app.rt.control.read((db) => all<any>(db.select().from(auditIndex).where(eq(auditIndex.resource_id, userId))))).map((r) => r.action);

/** A user who asked for a reset: the token from the mail. */
async function resetTokenFor(email: string, app = t) {
  expect((await post("/forgot-password", { body: { email }, app })).status).toBe(202);
  const mails = await outboxTo(email, app);
  expect(mails.length).toBeGreaterThan(0);
  return tokenIn(mails[0]!.text, "reset-password");
}

describe("POST /api/v1/auth/change-password", () => {
  test("changes the password, keeps the caller's session, revokes the user's other sessions, audited", async () => {
    const u = await user();
    const other = await login(u.email, "right-password");
    expect(other.status).toBe(200);
    const before = (await userRow(u.userId)).password_hash;

    const r = await post("/change-password", { token: u.token, body: { current_password: "right-password", new_password: "a-new-password" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ detail: "Password changed; your other sessions have been signed out" });

    // the caller's session lives on (access and refresh); the other one is gone
    expect((await me(u.token)).status).toBe(200);
    expect((await me(other.body.access_token)).status).toBe(401);
    expect((await refresh(other.body.refresh_token)).status).toBe(401);
    expect((await refresh(u.refresh)).status).toBe(200);

    expect((await login(u.email, "right-password")).status).toBe(401);
    expect((await login(u.email, "a-new-password")).status).toBe(200);
    const after = (await userRow(u.userId)).password_hash;
    expect(after).not.toBe(before);
    expect(after).toStartWith("$argon2id$");

    const rows = await t.rt.control.read((db) => all<any>(db.select().from(auditIndex).where(eq(auditIndex.resource_id, u.userId))));
    expect(rows.map((x) => x.action)).toEqual(["user.password_changed"]);
    expect(rows[0]).toMatchObject({ actor_id: u.userId, actor_type: "user", resource_type: "user", org_id: null });
    expect(JSON.stringify(rows)).not.toContain("a-new-password");
  });

  test("401 without a credential", async () => {
    const r = await post("/change-password", { body: { current_password: "x", new_password: "a-new-password" } });
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe("Bearer");
    expect(r.body.code).toBe("unauthorized");
  });

  test("422 on a missing, short or unknown field; nothing changes", async () => {
    const u = await user();
    const hash = (await userRow(u.userId)).password_hash;
    const cases: [unknown, unknown[], string][] = [
      [{ new_password: "a-new-password" }, ["body", "current_password"], "missing"],
      [{ current_password: "right-password" }, ["body", "new_password"], "missing"],
      [{ current_password: "right-password", new_password: "short" }, ["body", "new_password"], "out_of_range"],
      [{ current_password: "right-password", new_password: "x".repeat(1025) }, ["body", "new_password"], "out_of_range"],
      [{ current_password: "right-password", new_password: "a-new-password", email: "x@example.com" }, ["body", "email"], "extra_forbidden"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await post("/change-password", { token: u.token, body });
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect(r.body.detail).toContainEqual({ loc, msg: expect.any(String), type });
    }
    expect((await post("/change-password", { token: u.token })).status).toBe(422);
    expect((await userRow(u.userId)).password_hash).toBe(hash);
  });

  test("a wrong current password is 422 invalid_password, changes nothing, and counts toward the login throttle", async () => {
    const u = await user();
    const other = await login(u.email, "right-password");
    const hash = (await userRow(u.userId)).password_hash;
    for (let i = 0; i < 3; i++) {
      const r = await post("/change-password", { token: u.token, body: { current_password: "wrong-password", new_password: "a-new-password" } });
      expect(answer(r)).toEqual({ status: 422, body: WRONG_PASSWORD, retryAfter: null });
    }
    expect((await userRow(u.userId)).password_hash).toBe(hash);
    expect((await me(other.body.access_token)).status).toBe(200);
    expect(await auditActions(u.userId)).toEqual([]);
    // three failures locked the account: login and change-password, even with the right password
    const locked = { detail: "Too many failed attempts; try again in 1 second", code: "rate_limited" };
    expect(answer(await login(u.email, "right-password"))).toEqual({ status: 429, body: locked, retryAfter: "1" });
    expect(answer(await post("/change-password", { token: u.token, body: { current_password: "right-password", new_password: "a-new-password" } }))).toEqual({
      status: 429,
      body: locked,
      retryAfter: "1",
    });
    expect((await userRow(u.userId)).password_hash).toBe(hash);
  });
});

describe("POST /api/v1/auth/forgot-password and /reset-password", () => {
  test("a known and an unknown email get the same 202 answer; only the known one gets mail, with a link whose token's hash is stored", async () => {
    const u = await user();
    const unknown = `nobody-${unique()}@example.com`;
    const known = await post("/forgot-password", { body: { email: u.email.toUpperCase() } });
    const missing = await post("/forgot-password", { body: { email: unknown } });
    expect(answer(known)).toEqual({ status: 202, body: FORGOT_PASSWORD_ANSWER, retryAfter: null });
    expect(answer(missing)).toEqual(answer(known));
    expect(missing.text).toBe(known.text);

    expect(await outboxTo(unknown)).toEqual([]);
    const mails = await outboxTo(u.email);
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail).toMatchObject({ to: u.email, subject: "Reset your Cusp password", sent_at: null });
    expect(mail.text).toContain("expires in 1 hour");
    const token = tokenIn(mail.text, "reset-password");
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    expect(mail.html).toContain(`href="${APP_URL}/reset-password#token=${token}"`);

    const rows = await t.rt.control.read((db) => all<any>(db.select().from(passwordResetTokens).where(eq(passwordResetTokens.user_id, u.userId))));
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(sha256(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(Date.parse(rows[0].expires_at) - Date.parse(rows[0].created_at)).toBe(3600_000);
    expect(rows[0].used_at).toBeNull();
    const audit = await t.rt.control.read((db) => all<any>(db.select().from(auditIndex).where(eq(auditIndex.resource_id, u.userId))));
    expect(audit.map((a) => a.action)).toEqual(["user.password_reset_requested"]);
    expect(audit[0]).toMatchObject({ actor_type: "system", org_id: null });
  });

  test("reset-password sets the password once, revokes every session, verifies the email, audited", async () => {
    const u = await user();
    const second = await login(u.email, "right-password");
    const token = await resetTokenFor(u.email);
    expect((await userRow(u.userId)).email_verified_at).toBeNull();

    const r = await post("/reset-password", { body: { token, new_password: "brand-new-password" } });
    expect(answer(r)).toEqual({ status: 200, body: { detail: "Your password has been reset; sign in with the new password" }, retryAfter: null });
    for (const s of [u.token, second.body.access_token]) expect((await me(s)).status).toBe(401);
    for (const s of [u.refresh, second.body.refresh_token]) expect((await refresh(s)).status).toBe(401);
    expect((await login(u.email, "right-password")).status).toBe(401);
    expect((await login(u.email, "brand-new-password")).status).toBe(200);
    expect((await userRow(u.userId)).email_verified_at).toBeString();

    // single use
    expect(answer(await post("/reset-password", { body: { token, new_password: "another-password" } }))).toEqual({
      status: 422,
      body: INVALID_TOKEN,
      retryAfter: null,
    });
    expect((await login(u.email, "brand-new-password")).status).toBe(200);
    expect(await auditActions(u.userId)).toEqual(["user.password_reset_requested", "user.password_reset"]);
  });

  test("redeeming one reset link spends the user's other outstanding links", async () => {
    const u = await user();
    const first = await resetTokenFor(u.email);
    const second = await resetTokenFor(u.email);
    expect(first).not.toBe(second);
    expect((await post("/reset-password", { body: { token: second, new_password: "brand-new-password" } })).status).toBe(200);
    expect(answer(await post("/reset-password", { body: { token: first, new_password: "other-password" } }))).toEqual({
      status: 422,
      body: INVALID_TOKEN,
      retryAfter: null,
    });
  });

  test("an unknown, a used and an expired token get one and the same answer", async () => {
    const quick = await startTestApp({ ...ENV, PASSWORD_RESET_TTL_SECONDS: "0.3" });
    try {
      const u = await user(quick);
      const expiring = await resetTokenFor(u.email, quick);
      expect((await outboxTo(u.email, quick))[0]!.text).toContain("expires in 0.3 seconds");
      await Bun.sleep(350);
      const expired = await post("/reset-password", { body: { token: expiring, new_password: "brand-new-password" }, app: quick });
      const unknown = await post("/reset-password", { body: { token: "x".repeat(43), new_password: "third-password" }, app: quick });
      // the used token comes from the app with the default lifetime: redeeming it must not race a 0.3 s expiry
      const v = await user();
      const used = await resetTokenFor(v.email);
      expect((await post("/reset-password", { body: { token: used, new_password: "brand-new-password" } })).status).toBe(200);
      const usedAgain = await post("/reset-password", { body: { token: used, new_password: "third-password" } });
      for (const r of [expired, usedAgain, unknown]) expect(answer(r)).toEqual({ status: 422, body: INVALID_TOKEN, retryAfter: null });
      expect(expired.text).toBe(unknown.text);
      expect(usedAgain.text).toBe(unknown.text);
      expect((await login(v.email, "brand-new-password")).status).toBe(200);
      expect((await login(u.email, "brand-new-password", quick)).status).toBe(401); // the expired token changed nothing
    } finally {
      await quick.close();
    }
  });

  test("no mail for a suspended account (the same answer)", async () => {
    const u = await user();
    await t.rt.control.write((tx) => run(tx.update(users).set({ status: "suspended" }).where(eq(users.id, u.userId))));
    expect(answer(await post("/forgot-password", { body: { email: u.email } }))).toEqual({ status: 202, body: FORGOT_PASSWORD_ANSWER, retryAfter: null });
    expect(await outboxTo(u.email)).toEqual([]);
  });

  test("422 on bad input", async () => {
    const cases: [string, unknown, unknown[], string][] = [
      ["/forgot-password", {}, ["body", "email"], "missing"],
      ["/forgot-password", { email: "not-an-email" }, ["body", "email"], "format"],
      ["/forgot-password", { email: "a@example.com", password: "x" }, ["body", "password"], "extra_forbidden"],
      ["/reset-password", { new_password: "brand-new-password" }, ["body", "token"], "missing"],
      ["/reset-password", { token: "abc", new_password: "short" }, ["body", "new_password"], "out_of_range"],
      ["/reset-password", { token: "", new_password: "brand-new-password" }, ["body", "token"], "out_of_range"],
    ];
    for (const [path, body, loc, type] of cases) {
      const r = await post(path, { body });
      expect({ path, body, status: r.status }).toEqual({ path, body, status: 422 });
      expect(r.body.detail[0]).toEqual({ loc, msg: expect.any(String), type });
    }
    for (const path of ["/forgot-password", "/reset-password"]) expect((await post(path)).status).toBe(422);
  });

  test("forgot-password is limited per email (known or not, the same answers) and per client address", async () => {
    const limited = { detail: "Too many password reset requests; try again in 1 second", code: "rate_limited" };
    const u = await user();
    const unknown = `nobody-${unique()}@example.com`;
    const answers: Record<string, unknown[]> = { known: [], unknown: [] };
    for (let i = 0; i < 4; i++) {
      answers.known!.push(answer(await post("/forgot-password", { body: { email: u.email } })));
      answers.unknown!.push(answer(await post("/forgot-password", { body: { email: unknown } })));
    }
    expect(answers.unknown).toEqual(answers.known);
    expect(answers.known).toEqual([
      ...Array(3).fill({ status: 202, body: FORGOT_PASSWORD_ANSWER, retryAfter: null }),
      { status: 429, body: limited, retryAfter: "1" },
    ]);
    expect(await outboxTo(u.email)).toHaveLength(3);

    // six requests from one address, for six emails, lock the address
    const address = newAddress();
    for (let i = 0; i < 6; i++) expect((await post("/forgot-password", { body: { email: `a-${unique()}@example.com` }, address })).status).toBe(202);
    const other = await user();
    expect(answer(await post("/forgot-password", { body: { email: other.email }, address }))).toEqual({ status: 429, body: limited, retryAfter: "1" });
    expect(await outboxTo(other.email)).toEqual([]);
  });

  test("refused reset tokens lock the client address; a valid token is refused there until the lock ends", async () => {
    const u = await user();
    const token = await resetTokenFor(u.email);
    const address = newAddress();
    for (let i = 0; i < 6; i++)
      expect((await post("/reset-password", { body: { token: `guess-${unique()}`, new_password: "brand-new-password" }, address })).status).toBe(422);
    expect(answer(await post("/reset-password", { body: { token, new_password: "brand-new-password" }, address }))).toEqual({
      status: 429,
      body: { detail: "Too many failed attempts; try again in 1 second", code: "rate_limited" },
      retryAfter: "1",
    });
    expect((await login(u.email, "right-password")).status).toBe(200);
    expect((await post("/reset-password", { body: { token, new_password: "brand-new-password" } })).status).toBe(200);
  });
});

describe("POST /api/v1/auth/resend-verification and /verify-email", () => {
  test("mails a one-time link (hash stored), verify-email marks the address verified, then resend says so and sends nothing", async () => {
    const u = await user();
    const r = await post("/resend-verification", { token: u.token });
    expect(answer(r)).toEqual({ status: 200, body: { detail: "A verification email has been sent" }, retryAfter: null });
    const mails = await outboxTo(u.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ to: u.email, subject: "Confirm your email address for Cusp" });
    expect(mails[0]!.text).toContain("expires in 24 hours");
    const token = tokenIn(mails[0]!.text, "verify-email");
    const rows = await t.rt.control.read((db) => all<any>(db.select().from(emailVerificationTokens).where(eq(emailVerificationTokens.user_id, u.userId))));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ token_hash: sha256(token), email: u.email, used_at: null });
    expect(Date.parse(rows[0].expires_at) - Date.parse(rows[0].created_at)).toBe(86_400_000);

    const v = await post("/verify-email", { body: { token } });
    expect(answer(v)).toEqual({ status: 200, body: { detail: "Your email address has been verified" }, retryAfter: null });
    expect((await userRow(u.userId)).email_verified_at).toBeString();
    expect(answer(await post("/verify-email", { body: { token } }))).toEqual({ status: 422, body: INVALID_TOKEN, retryAfter: null });

    const again = await post("/resend-verification", { token: u.token });
    expect(answer(again)).toEqual({ status: 200, body: { detail: "Your email address is already verified" }, retryAfter: null });
    expect(await outboxTo(u.email)).toHaveLength(1);
    expect(await auditActions(u.userId)).toEqual(["user.email_verification_sent", "user.email_verified"]);
  });

  test("401 without a credential", async () => {
    const r = await post("/resend-verification");
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe("Bearer");
  });

  test("an expired, unknown or stale-address token is one 422 answer; the address stays unverified", async () => {
    const quick = await startTestApp({ ...ENV, EMAIL_VERIFICATION_TTL_SECONDS: "0.3" });
    try {
      const u = await user(quick);
      expect((await post("/resend-verification", { token: u.token, app: quick })).status).toBe(200);
      const expiring = tokenIn((await outboxTo(u.email, quick))[0]!.text, "verify-email");
      await Bun.sleep(350);
      const expired = await post("/verify-email", { body: { token: expiring }, app: quick });
      const unknown = await post("/verify-email", { body: { token: "y".repeat(43) }, app: quick });
      for (const r of [expired, unknown]) expect(answer(r)).toEqual({ status: 422, body: INVALID_TOKEN, retryAfter: null });
      expect((await userRow(u.userId, quick)).email_verified_at).toBeNull();
    } finally {
      await quick.close();
    }
    // a token sent to an address the account no longer has proves nothing
    const u = await user();
    expect((await post("/resend-verification", { token: u.token })).status).toBe(200);
    const token = tokenIn((await outboxTo(u.email))[0]!.text, "verify-email");
    await t.rt.control.write((tx) =>
      run(
        tx
          .update(users)
          .set({ email: `moved-${u.email}` })
          .where(eq(users.id, u.userId)),
      ),
    );
    expect(answer(await post("/verify-email", { body: { token } }))).toEqual({ status: 422, body: INVALID_TOKEN, retryAfter: null });
    expect((await userRow(u.userId)).email_verified_at).toBeNull();
  });

  test("422 on bad input to verify-email", async () => {
    for (const [body, loc, type] of [
      [{}, ["body", "token"], "missing"],
      [{ token: "" }, ["body", "token"], "out_of_range"],
      [{ token: "abc", email: "x@example.com" }, ["body", "email"], "extra_forbidden"],
    ] as const) {
      const r = await post("/verify-email", { body });
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toEqual({ loc, msg: expect.any(String), type });
    }
  });

  test("resend-verification is limited per account: the fourth request in the window is 429", async () => {
    const u = await user();
    for (let i = 0; i < 3; i++) expect((await post("/resend-verification", { token: u.token })).status).toBe(200);
    expect(answer(await post("/resend-verification", { token: u.token }))).toEqual({
      status: 429,
      body: { detail: "Too many verification requests; try again in 1 second", code: "rate_limited" },
      retryAfter: "1",
    });
    expect(await outboxTo(u.email)).toHaveLength(3);
  });

  test("the OpenAPI document lists the account routes with their answers", async () => {
    const doc = (await t.request("GET", "/openapi.json")).body;
    const statuses = (path: string) => Object.keys(doc.paths[`${AUTH}${path}`].post.responses);
    expect(statuses("/change-password")).toEqual(expect.arrayContaining(["200", "401", "422", "429"]));
    expect(statuses("/forgot-password")).toEqual(expect.arrayContaining(["202", "422", "429"]));
    expect(statuses("/reset-password")).toEqual(expect.arrayContaining(["200", "422", "429"]));
    expect(statuses("/resend-verification")).toEqual(expect.arrayContaining(["200", "401", "429"]));
    expect(statuses("/verify-email")).toEqual(expect.arrayContaining(["200", "422", "429"]));
  });
});

// ---- SMTP ----

type Received = { ehlo: string; auth: string | null; mailFrom: string; rcptTo: string[]; data: string };

/**
 * Just enough of an SMTP server (RFC 5321) for nodemailer: EHLO (offering AUTH
 * PLAIN), AUTH PLAIN, MAIL, RCPT, DATA (dot-unstuffed), RSET, NOOP, QUIT.
 */
function startSmtpServer() {
  const received: Received[] = [];
  type State = { buf: string; inData: boolean; lines: string[]; cur: Received };
  const fresh = (ehlo = ""): Received => ({ ehlo, auth: null, mailFrom: "", rcptTo: [], data: "" });
  const server = Bun.listen<State>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        s.data = { buf: "", inData: false, lines: [], cur: fresh() };
        s.write("220 smtp.test ESMTP ready\r\n");
      },
      data(s, chunk) {
        const st = s.data;
        st.buf += chunk.toString("latin1");
        for (let i = st.buf.indexOf("\r\n"); i >= 0; i = st.buf.indexOf("\r\n")) {
          const line = st.buf.slice(0, i);
          st.buf = st.buf.slice(i + 2);
          if (st.inData) {
            if (line === ".") {
              st.inData = false;
              received.push({ ...st.cur, data: st.lines.join("\r\n") });
              st.cur = { ...fresh(st.cur.ehlo), auth: st.cur.auth };
              st.lines = [];
              s.write("250 2.0.0 queued\r\n");
            } else st.lines.push(line.startsWith("..") ? line.slice(1) : line);
            continue;
          }
          const verb = line.slice(0, 4).toUpperCase();
          if (verb === "EHLO") {
            st.cur.ehlo = line.slice(5);
            s.write("250-smtp.test\r\n250-AUTH PLAIN\r\n250 8BITMIME\r\n");
          } else if (verb === "HELO") s.write("250 smtp.test\r\n");
          else if (verb === "AUTH") {
            st.cur.auth = Buffer.from(line.split(" ")[2] ?? "", "base64").toString("utf8");
            s.write("235 2.7.0 Authentication successful\r\n");
          } else if (verb === "MAIL") {
            st.cur.mailFrom = /<([^>]*)>/.exec(line)?.[1] ?? "";
            s.write("250 2.1.0 OK\r\n");
          } else if (verb === "RCPT") {
            st.cur.rcptTo.push(/<([^>]*)>/.exec(line)?.[1] ?? "");
            s.write("250 2.1.5 OK\r\n");
          } else if (verb === "DATA") {
            st.inData = true;
            s.write("354 End data with <CR><LF>.<CR><LF>\r\n");
          } else if (verb === "RSET") {
            st.cur = { ...fresh(st.cur.ehlo), auth: st.cur.auth };
            s.write("250 2.0.0 OK\r\n");
          } else if (verb === "NOOP") s.write("250 2.0.0 OK\r\n");
          else if (verb === "QUIT") {
            s.write("221 2.0.0 Bye\r\n");
            s.end();
          } else s.write("502 5.5.2 Command not recognized\r\n");
        }
      },
    },
  });
  return { port: server.port, received, stop: () => server.stop(true) };
}

/** The decoded text of a message: quoted-printable soft breaks and escapes undone. */
const decodeQp = (raw: string) => raw.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));

describe("SMTP mailer (SMTP_URL)", () => {
  test("SmtpMailer sends a text and html message with MAIL_FROM, over AUTH PLAIN", async () => {
    const smtp = startSmtpServer();
    const mailer = new SmtpMailer(`smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, "Cusp Test <noreply@cusp.test>");
    try {
      await mailer.send({ to: "patient.office@example.com", subject: "Hello there", text: "Plain body line.", html: "<p>Rich <b>body</b></p>" });
      expect(smtp.received).toHaveLength(1);
      const m = smtp.received[0]!;
      expect(m.auth).toBe("\0mailer\0s3cret");
      expect(m.mailFrom).toBe("noreply@cusp.test");
      expect(m.rcptTo).toEqual(["patient.office@example.com"]);
      const data = decodeQp(m.data);
      expect(data).toContain("From: Cusp Test <noreply@cusp.test>");
      expect(data).toContain("To: patient.office@example.com");
      expect(data).toContain("Subject: Hello there");
      expect(data).toContain("multipart/alternative");
      expect(data).toContain("Plain body line.");
      expect(data).toContain("<p>Rich <b>body</b></p>");
    } finally {
      await mailer.close();
      smtp.stop();
    }
  });

  test("with SMTP_URL set, forgot-password mails the reset link over SMTP and nothing goes to the outbox", async () => {
    const smtp = startSmtpServer();
    const app = await startTestApp({ ...ENV, SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: "Cusp Test <noreply@cusp.test>" });
    try {
      const u = await user(app);
      expect((await post("/forgot-password", { body: { email: u.email }, app })).status).toBe(202);
      await accountMailSettled(app.rt);
      const m = await waitFor(() => smtp.received.find((x) => x.rcptTo.includes(u.email)), { what: "the reset mail" });
      expect(m.auth).toBeNull();
      const data = decodeQp(m.data);
      expect(data).toContain("Subject: Reset your Cusp password");
      const token = tokenIn(data, "reset-password");
      const row = await app.rt.control.read((db) => get<any>(db.select().from(passwordResetTokens).where(eq(passwordResetTokens.user_id, u.userId))));
      expect(row.token_hash).toBe(sha256(token));
      expect(await readOutbox(app.rt.control)).toEqual([]);
      expect((await post("/reset-password", { body: { token, new_password: "brand-new-password" }, app })).status).toBe(200);
      expect((await login(u.email, "brand-new-password", app)).status).toBe(200);
    } finally {
      await app.close();
      smtp.stop();
    }
  });
});
