import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { orgs } from "@db/control/schema";
import { run } from "@/platform/db/work";
import { PLATFORM_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { createPlatformUser, startTestApp, type TestApp } from "@tests/helpers";

const BASE = "/api/v1/platform/orgs";
let t: TestApp;
let admin: string;
let bright: { id: string; name: string; slug: string };
let tooth: { id: string; name: string; slug: string };
let moving: { id: string; name: string; slug: string };
let archived: { id: string; name: string; slug: string };

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.adminToken();
  bright = await t.createOrg(admin, { name: "Bright Smiles", slug: "bright-smiles" });
  tooth = await t.createOrg(admin, { name: "Tooth 100%_Fairy", slug: "fairy-dental" });
  moving = await t.createOrg(admin, { name: "Moving Molars", slug: "moving-molars" });
  archived = await t.createOrg(admin, { name: "Archived Smiles", slug: "archived-smiles" });
  await t.rt.control.write((tx) => run(tx.update(orgs).set({ status: "migrating" }).where(eq(orgs.id, moving.id))));
  expect((await t.request("POST", `/api/v1/admin/orgs/${archived.id}/archive`, { token: admin })).status).toBe(200);
});

afterAll(async () => {
  await t.close();
});

describe("access", () => {
  test("401 without a token", async () => {
    const r = await t.request("GET", BASE);
    expect(r.status).toBe(401);
    expect(r.headers.get("www-authenticate")).toBe("Bearer");
  });

  test("403 for a platform user holding every platform key but platform.orgs.list; 200 with it", async () => {
    const lacking = await createPlatformUser(
      t,
      "Lacking",
      PLATFORM_PERMISSION_KEYS.filter((k) => k !== "platform.orgs.list"),
    );
    const r = await t.request("GET", BASE, { token: lacking.token });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("forbidden");
    const lister = await createPlatformUser(t, "Lister", ["platform.orgs.list"]);
    expect((await t.request("GET", BASE, { token: lister.token })).status).toBe(200);
  });
});

describe("list", () => {
  test("by name, page_size 50 by default, archived organizations left out, Organization records", async () => {
    const r = await t.request("GET", BASE, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(r.body.items.map((o: any) => o.name)).toEqual(["Bright Smiles", "Moving Molars", "Tooth 100%_Fairy"]);
    expect(r.body.items[0]).toMatchObject({
      id: bright.id,
      name: "Bright Smiles",
      slug: "bright-smiles",
      status: "active",
      account_type: "practice",
      onboarding_status: "pending",
      shard: { name: "default" },
      deleted_at: null,
      version: 1,
    });
    expect(r.body.items[0].created_at).toBeString();
  });

  test("search: case-insensitive substring of the name or slug, % and _ taken literally", async () => {
    const names = async (qs: string) => (await t.request("GET", `${BASE}?${qs}`, { token: admin })).body.items.map((o: any) => o.id);
    expect(await names("search=SMILES")).toEqual([bright.id]);
    expect(await names("search=fairy-dental")).toEqual([tooth.id]);
    expect(await names(`search=${encodeURIComponent("100%_")}`)).toEqual([tooth.id]);
    expect(await names(`search=${encodeURIComponent("%")}`)).toEqual([tooth.id]);
    expect(await names("search=archived")).toEqual([]);
  });

  test("status filter: active, migrating, suspended", async () => {
    const ids = async (status: string) => (await t.request("GET", `${BASE}?status=${status}`, { token: admin })).body.items.map((o: any) => o.id);
    expect(await ids("migrating")).toEqual([moving.id]);
    expect(await ids("active")).toEqual([bright.id, tooth.id]);
    expect(await ids("suspended")).toEqual([]);
  });

  test("paging", async () => {
    const r = await t.request("GET", `${BASE}?page=2&page_size=2`, { token: admin });
    expect(r.body).toMatchObject({ page: 2, page_size: 2, total: 3 });
    expect(r.body.items.map((o: any) => o.id)).toEqual([tooth.id]);
  });

  test("422: unknown status (archived included), bad paging, unknown parameters", async () => {
    for (const qs of ["status=archived", "status=nope", "page=0", "page_size=201", "org_id=x", "search="]) {
      const r = await t.request("GET", `${BASE}?${qs}`, { token: admin });
      expect({ qs, status: r.status }).toEqual({ qs, status: 422 });
      expect(r.body.detail[0].loc[0]).toBe("query");
    }
  });
});
