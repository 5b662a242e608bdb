import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { orgs } from "@db/control/schema";
import { run } from "@/platform/db/work";
import { createPlatformUser, startTestApp, type TestApp } from "@tests/helpers";

let t: TestApp;
let token: string;
const made: Record<string, { id: string; name: string; slug: string }> = {};
beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  for (const name of ["Bravo Dental", "alpha Smiles", "Charlie Ortho", "Delta Kids", "Echo Perio"]) made[name] = await t.createOrg(token, { name });
  await t.rt.control.write((tx) => run(tx.update(orgs).set({ status: "suspended" }).where(eq(orgs.id, made["Charlie Ortho"]!.id))));
  await t.request("POST", `/api/v1/admin/orgs/${made["Delta Kids"]!.id}/archive`, { token });
  await t.request("POST", `/api/v1/admin/orgs/${made["Echo Perio"]!.id}/archive`, { token });
  expect((await t.request("DELETE", `/api/v1/admin/orgs/${made["Echo Perio"]!.id}`, { token })).status).toBe(200);
});
afterAll(() => t.close());

const item = (name: string, status: string) => ({ id: made[name]!.id, name, slug: made[name]!.slug, status });

describe("GET /api/v1/internal/orgs", () => {
  test("default: active orgs only, by name, with id, name, slug and status only", async () => {
    const r = await t.request("GET", "/api/v1/internal/orgs", { token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: [item("alpha Smiles", "active"), item("Bravo Dental", "active")], total: 2 });
  });

  test("status filter; all is every status, deleted orgs never appear", async () => {
    expect((await t.request("GET", "/api/v1/internal/orgs?status=archived", { token })).body).toEqual({ items: [item("Delta Kids", "archived")], total: 1 });
    expect((await t.request("GET", "/api/v1/internal/orgs?status=suspended", { token })).body).toEqual({
      items: [item("Charlie Ortho", "suspended")],
      total: 1,
    });
    expect((await t.request("GET", "/api/v1/internal/orgs?status=migrating", { token })).body).toEqual({ items: [], total: 0 });
    const every = await t.request("GET", "/api/v1/internal/orgs?status=all", { token });
    expect(every.body).toEqual({
      items: [item("alpha Smiles", "active"), item("Bravo Dental", "active"), item("Charlie Ortho", "suspended"), item("Delta Kids", "archived")],
      total: 4,
    });
    for (const q of ["status=deleted", "status=bogus", "page=1"]) {
      const bad = await t.request("GET", `/api/v1/internal/orgs?${q}`, { token });
      expect([q, bad.status]).toEqual([q, 422]);
    }
  });

  test("a service account holding platform.orgs.list may call it; 401 without a token; 403 without the key", async () => {
    const service = await createPlatformUser(t, "Billing service", ["platform.orgs.list"]);
    expect((await t.request("GET", "/api/v1/internal/orgs", { token: service.token })).body.total).toBe(2);
    const other = await createPlatformUser(t, "Audit service", ["platform.audit.read"]);
    const forbidden = await t.request("GET", "/api/v1/internal/orgs", { token: other.token });
    expect([forbidden.status, forbidden.body.code]).toEqual([403, "forbidden"]);
    const anonymous = await t.request("GET", "/api/v1/internal/orgs");
    expect([anonymous.status, anonymous.body.code]).toEqual([401, "unauthorized"]);
  });
});
