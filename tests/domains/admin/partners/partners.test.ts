import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditIndex, partners } from "@db/control/schema";
import { all } from "@/platform/db/work";
import { createPlatformUser, startTestApp, unique, type TestApp } from "@tests/helpers";

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
});
afterAll(() => t.close());

const P = "/api/v1/admin/partners";
const rows = () => t.rt.control.read((db) => all<typeof partners.$inferSelect>(db.select().from(partners)));
const rowOf = async (id: string) => (await rows()).find((r) => r.id === id);
const create = async (fields: Record<string, unknown> = {}) => {
  const r = await t.request("POST", P, { token, body: { name: "Acme Dental Supply", slug: unique("acme"), ...fields } });
  if (r.status !== 201) throw new Error(`create partner: ${r.status} ${r.text}`);
  return r.body;
};

describe("partners", () => {
  test("create with every field answers 201 with the Partner; defaults partner_type reseller, extra_data {}; audited at platform level", async () => {
    const slug = unique("smile-net");
    const r = await t.request("POST", P, {
      token,
      body: {
        name: "Smile Network",
        slug,
        partner_type: "dso",
        display_name: "Smile Network Inc.",
        description: "Dental service organization",
        contact_email: "partners@smile.example",
        contact_name: "Ada Lovelace",
        contact_phone: "+1 303 555 0100",
        extra_data: { crm_id: "A-17", tiers: [1, 2] },
        internal_notes: "Signed 2025",
        logo_url: "https://smile.example/logo.png",
        website: "https://smile.example",
      },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: r.body.id,
      name: "Smile Network",
      slug,
      partner_type: "dso",
      status: "active",
      display_name: "Smile Network Inc.",
      description: "Dental service organization",
      contact_email: "partners@smile.example",
      contact_name: "Ada Lovelace",
      contact_phone: "+1 303 555 0100",
      extra_data: { crm_id: "A-17", tiers: [1, 2] },
      internal_notes: "Signed 2025",
      logo_url: "https://smile.example/logo.png",
      website: "https://smile.example",
      created_at: r.body.created_at,
      updated_at: r.body.created_at,
      deleted_at: null,
      version: 1,
    });
    expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
    const minimal = await t.request("POST", P, { token, body: { name: "Min", slug: unique("min") } });
    expect(minimal.status).toBe(201);
    expect(minimal.body).toMatchObject({ partner_type: "reseller", extra_data: {}, status: "active", display_name: null, website: null });
    const audit = await t.rt.control.read((db) => all<any>(db.select().from(auditIndex).where(eq(auditIndex.resource_id, r.body.id))));
    expect(audit.map((a) => [a.action, a.org_id, a.actor_type])).toEqual([["partner.created", null, "user"]]);
  });

  test("create refuses an invalid slug, partner_type, extra_data or a read-only field (422) and a duplicate slug (409); nothing is written", async () => {
    const taken = await create();
    const before = (await rows()).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ slug: "Not A Slug" }, "slug"],
      [{ slug: "-leading" }, "slug"],
      [{ slug: "trailing-" }, "slug"],
      [{ slug: "double--hyphen" }, "slug"],
      [{ slug: "x" }, "slug"],
      [{ slug: "a".repeat(64) }, "slug"],
      [{ partner_type: "vendor" }, "partner_type"],
      [{ extra_data: [1, 2] }, "extra_data"],
      [{ extra_data: { big: "x".repeat(17_000) } }, "extra_data"],
      [{ extra_data: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, "extra_data"],
      [{ status: "active" }, "status"],
      [{ version: 3 }, "version"],
      [{ contact_email: "not-an-email" }, "contact_email"],
    ];
    for (const [fields, field] of cases) {
      const r = await t.request("POST", P, { token, body: { name: "Bad", slug: unique("bad"), ...fields } });
      expect([r.status, r.body.detail?.[0]?.loc]).toEqual([422, ["body", field]]);
    }
    const missing = await t.request("POST", P, { token, body: { slug: unique("noname") } });
    expect([missing.status, missing.body.detail[0].loc]).toEqual([422, ["body", "name"]]);
    const dup = await t.request("POST", P, { token, body: { name: "Other", slug: taken.slug } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ detail: "A partner with this slug already exists", code: "duplicate" });
    expect((await rows()).length).toBe(before);
  });

  test("get by id; unknown and malformed ids are 404", async () => {
    const p = await create({ partner_type: "integrator" });
    const r = await t.request("GET", `${P}/${p.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(p);
    expect((await t.request("GET", `${P}/01a1fe29-0000-7000-8000-000000000000`, { token })).status).toBe(404);
    const bad = await t.request("GET", `${P}/not-a-uuid`, { token });
    expect(bad.status).toBe(404);
    expect(bad.body.code).toBe("not_found");
  });

  test("list: page 1, page_size 20 by default, by name; status and partner_type filters; archived only with status=archived", async () => {
    const own = await startTestApp();
    try {
      const tk = await own.adminToken();
      const mk = async (name: string, partner_type: string) =>
        (await own.request("POST", P, { token: tk, body: { name, slug: unique("p"), partner_type } })).body as { id: string };
      const a = await mk("Alpha", "reseller");
      const b = await mk("bravo", "technology");
      const c = await mk("Charlie", "technology");
      for (let i = 0; i < 20; i++) await mk(`Zulu ${String(i).padStart(2, "0")}`, "referral");
      await own.request("POST", `${P}/${c.id}/archive`, { token: tk });
      const sus = await own.request("PATCH", `${P}/${b.id}`, { token: tk, body: { base_version: 1, status: "suspended" } });
      expect(sus.body.status).toBe("suspended");

      const first = await own.request("GET", P, { token: tk });
      expect(first.status).toBe(200);
      expect([first.body.page, first.body.page_size, first.body.total, first.body.items.length]).toEqual([1, 20, 22, 20]);
      expect(first.body.items.slice(0, 3).map((p: { name: string }) => p.name)).toEqual(["Alpha", "bravo", "Zulu 00"]);
      const second = await own.request("GET", `${P}?page=2`, { token: tk });
      expect(second.body.items.map((p: { name: string }) => p.name)).toEqual(["Zulu 18", "Zulu 19"]);
      const tech = await own.request("GET", `${P}?partner_type=technology`, { token: tk });
      expect(tech.body.items.map((p: { id: string }) => p.id)).toEqual([b.id]);
      const archived = await own.request("GET", `${P}?status=archived`, { token: tk });
      expect(archived.body.items.map((p: { id: string }) => p.id)).toEqual([c.id]);
      const suspended = await own.request("GET", `${P}?status=suspended&partner_type=technology`, { token: tk });
      expect(suspended.body.total).toBe(1);
      const active = await own.request("GET", `${P}?status=active&page_size=5`, { token: tk });
      expect([active.body.total, active.body.items[0].id]).toEqual([21, a.id]);
      for (const q of ["status=bogus", "partner_type=vendor", "page=0", "page_size=201", "sort=name"]) {
        expect((await own.request("GET", `${P}?${q}`, { token: tk })).status).toBe(422);
      }
    } finally {
      await own.close();
    }
  });

  test("patch with base_version: fields and status change, version +1; 409 stale or duplicate slug; 404; 422; refused writes change nothing", async () => {
    const p = await create({ extra_data: { a: 1 } });
    const other = await create();
    const r = await t.request("PATCH", `${P}/${p.id}`, {
      token,
      body: { base_version: 1, name: "Renamed", display_name: "Renamed Co", extra_data: { b: 2 }, website: null, partner_type: "technology" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: "Renamed", display_name: "Renamed Co", extra_data: { b: 2 }, website: null, partner_type: "technology", version: 2 });
    expect(r.headers.get("etag")).toBe('"2"');
    const snapshot = await rowOf(p.id);

    const stale = await t.request("PATCH", `${P}/${p.id}`, { token, body: { base_version: 1, name: "Lost" } });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const dup = await t.request("PATCH", `${P}/${p.id}`, { token, body: { base_version: 2, slug: other.slug } });
    expect([dup.status, dup.body.code]).toEqual([409, "duplicate"]);
    for (const body of [
      { name: "No version" },
      { base_version: 2, slug: "Bad Slug" },
      { base_version: 2, partner_type: "vendor" },
      { base_version: 2, status: "deleted" },
      { base_version: 2, id: p.id },
    ]) {
      expect((await t.request("PATCH", `${P}/${p.id}`, { token, body })).status).toBe(422);
    }
    expect(await rowOf(p.id)).toEqual(snapshot);
    expect((await t.request("PATCH", `${P}/01a1fe29-0000-7000-8000-000000000000`, { token, body: { base_version: 1, name: "X" } })).status).toBe(404);

    // the same slug again is not a conflict with itself
    const same = await t.request("PATCH", `${P}/${p.id}`, { token, body: { base_version: 2, slug: p.slug } });
    expect([same.status, same.body.version]).toEqual([200, 3]);
  });

  test("archive: status archived with deleted_at, still readable; again changes nothing; PATCH status active restores; 404; audited", async () => {
    const p = await create();
    const a = await t.request("POST", `${P}/${p.id}/archive`, { token });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ id: p.id, status: "archived", version: 2 });
    expect(a.body.deleted_at).toBeString();
    expect((await t.request("GET", `${P}/${p.id}`, { token })).body.status).toBe("archived");
    const again = await t.request("POST", `${P}/${p.id}/archive`, { token });
    expect([again.status, again.body.version]).toEqual([200, 2]);
    const restored = await t.request("PATCH", `${P}/${p.id}`, { token, body: { base_version: 2, status: "active" } });
    expect(restored.body).toMatchObject({ status: "active", deleted_at: null, version: 3 });
    expect((await t.request("POST", `${P}/01a1fe29-0000-7000-8000-000000000000/archive`, { token })).status).toBe(404);
    const audit = await t.rt.control.read((db) => all<any>(db.select().from(auditIndex).where(eq(auditIndex.resource_id, p.id))));
    expect(audit.map((x) => x.action).sort()).toEqual(["partner.archived", "partner.created", "partner.updated"]);
  });

  test("401 without a token; 403 without the platform key (reads need platform.orgs.list, writes platform.orgs.manage); nothing written", async () => {
    const p = await create();
    const before = await rows();
    expect((await t.request("GET", P)).status).toBe(401);
    expect((await t.request("POST", P, { body: { name: "X", slug: unique("x") } })).status).toBe(401);
    const reader = await createPlatformUser(t, "Reader", ["platform.orgs.list"]);
    const nobody = await createPlatformUser(t, "Nobody");
    expect((await t.request("GET", P, { token: nobody.token })).status).toBe(403);
    expect((await t.request("GET", `${P}/${p.id}`, { token: nobody.token })).status).toBe(403);
    expect((await t.request("GET", `${P}/${p.id}`, { token: reader.token })).status).toBe(200);
    for (const [method, path, body] of [
      ["POST", P, { name: "X", slug: unique("x") }],
      ["PATCH", `${P}/${p.id}`, { base_version: 1, name: "Hijack" }],
      ["POST", `${P}/${p.id}/archive`, undefined],
    ] as const) {
      const r = await t.request(method, path, { token: reader.token, body });
      expect([method, path, r.status]).toEqual([method, path, 403]);
    }
    expect(await rows()).toEqual(before);
  });
});
