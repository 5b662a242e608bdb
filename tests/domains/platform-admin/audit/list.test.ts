import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditIndex } from "@db/control/schema";
import { run } from "@/platform/db/work";
import { newId } from "@/platform/ids";
import { createPlatformUser, startTestApp, type TestApp } from "@tests/helpers";

const BASE = "/api/v1/platform/audit";
let t: TestApp;
let token: string;
let orgA: { id: string; name: string };
let orgB: { id: string; name: string };
let locA: { id: string };
let locB: { id: string };

const list = (qs = "", tok = token) => t.request("GET", `${BASE}${qs}`, { token: tok });

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgA = await t.createOrg(token, { name: "Bright Smiles, Inc." });
  orgB = await t.createOrg(token, { name: "Tooth 100%_Fairy" });
  const a = await t.request("POST", `/api/v1/${orgA.id}/locations`, { token, body: { name: "Downtown", timezone: "America/New_York" } });
  const b = await t.request("POST", `/api/v1/${orgB.id}/locations`, { token, body: { name: "Uptown", timezone: "America/New_York" } });
  locA = a.body;
  locB = b.body;
  const p = await t.request("PATCH", `/api/v1/${orgA.id}/locations/${locA.id}`, { token, body: { base_version: 1, name: "Downtown East" } });
  expect(p.status).toBe(200);
  // orgA: organization.created, location.created, location.updated; orgB: organization.created, location.created
});

afterAll(async () => {
  await t.close();
});

describe("access", () => {
  test("401 without a token, with WWW-Authenticate", async () => {
    for (const path of ["", "/export", "/resource-types", "/stats", `/${newId()}`]) {
      const r = await t.request("GET", `${BASE}${path}`);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe("unauthorized");
      expect(r.headers.get("www-authenticate")).toBe("Bearer");
    }
  });

  test("403 for a user without platform keys, on every route", async () => {
    const user = await createPlatformUser(t, "Plain User");
    for (const path of ["", "/export", "/resource-types", "/stats", `/${newId()}`]) {
      const r = await t.request("GET", `${BASE}${path}`, { token: user.token });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
  });

  test("platform.audit.read is enough to list", async () => {
    const reader = await createPlatformUser(t, "Audit Reader", ["platform.audit.read"]);
    const r = await list("", reader.token);
    expect(r.status).toBe(200);
    expect(r.body.total).toBeGreaterThanOrEqual(5);
  });
});

describe("list", () => {
  test("default: newest first, page 1, page_size 25, summary fields without before/after", async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(r.body.page).toBe(1);
    expect(r.body.page_size).toBe(25);
    expect(r.body.total).toBe(5);
    const times = r.body.items.map((i: any) => `${i.created_at}|${i.id}`);
    expect(times).toEqual([...times].sort().reverse());
    const updated = r.body.items.find((i: any) => i.action === "location.updated");
    expect(updated).toMatchObject({
      action: "location.updated",
      actor_type: "user",
      actor_display_name: "Platform administrator",
      resource_type: "location",
      resource_display_id: locA.id,
      org_id: orgA.id,
      org_name: "Bright Smiles, Inc.",
    });
    expect(typeof updated.trace_id).toBe("string");
    expect("before" in updated).toBe(false);
    expect("after" in updated).toBe(false);
  });

  test("filters: org_uuid, actor_id, resource_type, action (repeatable and single)", async () => {
    let r = await list(`?org_uuid=${orgA.id}`);
    expect(r.body.total).toBe(3);
    expect(r.body.items.every((i: any) => i.org_id === orgA.id)).toBe(true);

    r = await list(`?org_uuid=${orgA.id.toUpperCase()}`);
    expect(r.body.total).toBe(3);

    r = await list("?resource_type=location");
    expect(r.body.total).toBe(3);

    r = await list("?action=organization.created");
    expect(r.body.total).toBe(2);

    r = await list("?action=organization.created&action=location.updated");
    expect(r.body.total).toBe(3);
    expect(new Set(r.body.items.map((i: any) => i.action))).toEqual(new Set(["organization.created", "location.updated"]));

    r = await list(`?action=location.created&org_uuid=${orgB.id}`);
    expect(r.body.total).toBe(1);
    expect(r.body.items[0].resource_display_id).toBe(locB.id);

    const actorId = r.body.items[0].actor_id;
    r = await list(`?actor_id=${actorId}`);
    expect(r.body.total).toBe(5);
    r = await list(`?actor_id=${newId()}`);
    expect(r.body).toMatchObject({ items: [], total: 0 });
  });

  test("search: action, resource type, resource id, actor name, org name; literal % and _, commas", async () => {
    const count = async (s: string) => (await list(`?search=${encodeURIComponent(s)}`)).body.total;
    expect(await count("UPDATED")).toBe(1); // case-insensitive action
    expect(await count("organiz")).toBe(2); // action / resource type
    expect(await count(locB.id.slice(-12))).toBe(1); // resource id
    expect(await count("platform admin")).toBe(5); // actor display name
    expect(await count("bright smiles")).toBe(3); // org name
    expect(await count("Smiles, Inc")).toBe(3); // a comma is text, not a list
    expect(await count("100%_")).toBe(2);
    expect(await count("%")).toBe(2); // only the org whose name has a literal %
    expect(await count("_")).toBe(2);
    expect(await count("nothing-matches-this")).toBe(0);
  });

  test("org_name follows a renamed org and search finds the new name", async () => {
    const org = await t.createOrg(token, { name: "Old Name Dental" });
    try {
      const got = await t.request("GET", `/api/v1/admin/orgs/${org.id}`, { token });
      const renamed = await t.request("PATCH", `/api/v1/admin/orgs/${org.id}`, { token, body: { base_version: got.body.version, name: "New Name Dental" } });
      expect(renamed.status).toBe(200);
      const r = await list(`?org_uuid=${org.id}`);
      expect(r.body.items.map((i: any) => i.action).sort()).toEqual(["organization.created", "organization.updated"]);
      expect(r.body.items.every((i: any) => i.org_name === "New Name Dental")).toBe(true);
      expect((await list(`?search=new%20name&org_uuid=${org.id}`)).body.total).toBe(2);
      // the creation entry was indexed under the old name, which still finds it
      const old = await list(`?search=old%20name&org_uuid=${org.id}`);
      expect(old.body.items.map((i: any) => i.action)).toEqual(["organization.created"]);
    } finally {
      await t.rt.control.write((tx) => run(tx.delete(auditIndex).where(eq(auditIndex.org_id, org.id))));
    }
  });

  test("sorting by each field, both directions, ties broken by id", async () => {
    for (const field of ["created_at", "action", "resource_type", "actor_id"]) {
      for (const order of ["asc", "desc"]) {
        const r = await list(`?sort_by=${field}&sort_order=${order}`);
        expect(r.status).toBe(200);
        const keys = r.body.items.map((i: any) => [i[field], i.id]);
        const sorted = [...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
        expect(keys).toEqual(order === "asc" ? sorted : sorted.reverse());
      }
    }
    const byAction = await list("?sort_by=action&sort_order=asc");
    expect(byAction.body.items.map((i: any) => i.action)).toEqual([
      "location.created",
      "location.created",
      "location.updated",
      "organization.created",
      "organization.created",
    ]);
  });

  test("paging: pages do not overlap and add up to total; default 25, max 100", async () => {
    const org = await t.createOrg(token);
    try {
      for (let i = 0; i < 26; i++) {
        const r = await t.request("POST", `/api/v1/${org.id}/locations`, { token, body: { name: `Site ${i}`, timezone: "America/New_York" } });
        expect(r.status).toBe(201);
      }
      const first = await list(`?org_uuid=${org.id}`);
      expect(first.body.total).toBe(27);
      expect(first.body.items.length).toBe(25);
      const second = await list(`?org_uuid=${org.id}&page=2`);
      expect(second.body.items.length).toBe(2);
      const ids = [...first.body.items, ...second.body.items].map((i: any) => i.id);
      expect(new Set(ids).size).toBe(27);

      const seen: string[] = [];
      for (let page = 1; page <= 6; page++) {
        const r = await list(`?org_uuid=${org.id}&page_size=5&page=${page}&sort_by=action&sort_order=asc`);
        expect(r.body.page).toBe(page);
        expect(r.body.page_size).toBe(5);
        seen.push(...r.body.items.map((i: any) => i.id));
      }
      expect(seen.length).toBe(27);
      expect(new Set(seen).size).toBe(27);

      const max = await list(`?org_uuid=${org.id}&page_size=100`);
      expect(max.status).toBe(200);
      expect(max.body.items.length).toBe(27);
      const beyond = await list(`?org_uuid=${org.id}&page=9`);
      expect(beyond.body).toMatchObject({ items: [], total: 27, page: 9 });
    } finally {
      await t.rt.control.write((tx) => run(tx.delete(auditIndex).where(eq(auditIndex.org_id, org.id))));
    }
  });

  test("date range: inclusive bounds, a bare end date covers its whole day, offsets are honoured", async () => {
    const org = await t.createOrg(token);
    const made: string[] = [];
    for (const name of ["d1", "d2", "d3", "d4"]) {
      const r = await t.request("POST", `/api/v1/${org.id}/locations`, { token, body: { name, timezone: "America/New_York" } });
      made.push(r.body.id);
    }
    try {
      // Place the real entries on known instants (the writes themselves happen "now").
      const stamps: Record<string, string> = {
        [made[0]!]: "2024-01-15T10:00:00.000Z",
        [made[1]!]: "2024-01-16T00:00:00.000Z",
        [made[2]!]: "2024-01-16T23:59:59.999Z",
        [made[3]!]: "2024-01-17T00:00:00.000Z",
      };
      await t.rt.control.write(function* (tx) {
        for (const [resourceId, at] of Object.entries(stamps))
          yield* run(tx.update(auditIndex).set({ created_at: at }).where(eq(auditIndex.resource_id, resourceId)));
      });
      const names = async (qs: string) => {
        const r = await list(`?org_uuid=${org.id}&resource_type=location&sort_order=asc&${qs}`);
        expect(r.status).toBe(200);
        return r.body.items.map((i: any) => made.indexOf(i.resource_display_id));
      };
      expect(await names("start_date=2024-01-16&end_date=2024-01-16")).toEqual([1, 2]);
      expect(await names("end_date=2024-01-16")).toEqual([0, 1, 2]);
      expect(await names("start_date=2024-01-16")).toEqual([1, 2, 3]);
      expect(await names("start_date=2024-01-16T23:59:59.999Z")).toEqual([2, 3]);
      expect(await names("end_date=2024-01-16T23:59:59Z")).toEqual([0, 1, 2]); // the whole second written
      expect(await names("end_date=2024-01-16T23:59:59.998Z")).toEqual([0, 1]);
      expect(await names("start_date=2024-01-17T01:00:00%2B01:00")).toEqual([3]); // +01:00 is 00:00Z
      expect(await names("start_date=2024-01-17T01:00:00+01:00")).toEqual([3]); // an unencoded + arrives as a space
      expect(await names("end_date=2024-01-15T19:00:00-05:00")).toEqual([0, 1]); // = 2024-01-16T00:00:00Z
      expect(await names("start_date=2024-01-15T10:00&end_date=2024-01-15T10:00")).toEqual([0]);
    } finally {
      await t.rt.control.write((tx) => run(tx.delete(auditIndex).where(eq(auditIndex.org_id, org.id))));
    }
  });

  test("invalid parameters are 422 with the contract's detail", async () => {
    const cases: [string, string][] = [
      ["?page_size=101", "page_size"],
      ["?page_size=0", "page_size"],
      ["?page=0", "page"],
      ["?page=abc", "page"],
      ["?sort_by=ip_address", "sort_by"],
      ["?sort_order=up", "sort_order"],
      ["?org_uuid=not-a-uuid", "org_uuid"],
      ["?start_date=yesterday", "start_date"],
      ["?end_date=2024-02-30", "end_date"],
      ["?start_date=2024-01-02&end_date=2024-01-01", "end_date"],
      ["?org_id=" + orgA.id, "org_id"],
    ];
    for (const [qs, field] of cases) {
      const r = await list(qs);
      expect(r.status, qs).toBe(422);
      expect(
        r.body.detail.some((d: any) => d.loc[0] === "query" && d.loc[1] === field),
        qs,
      ).toBe(true);
    }
  });
});

describe("action lists", () => {
  test("several actions: repeated, comma separated, or both", async () => {
    const token = await t.adminToken();
    const get = async (qs: string) => (await t.request("GET", `/api/v1/platform/audit${qs}`, { token })).body.total;
    const repeated = await get("?action=organization.created&action=location.updated");
    expect(repeated).toBeGreaterThan(0);
    expect(await get("?action=organization.created,location.updated")).toBe(repeated);
    expect(await get("?action=organization.created,location.updated&action=organization.created")).toBe(repeated);
    expect((await t.request("GET", "/api/v1/platform/audit?action=,", { token })).status).toBe(422);
  });
});
