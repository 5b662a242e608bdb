import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, expectGuarded, unique, type TestApp } from "@tests/helpers";
import { byLastName, createLocation, MISSING, revenueWorld, storedList } from "./fixtures";

let w: Awaited<ReturnType<typeof revenueWorld>>;
let t: TestApp;
let L: string; // {P}/revenue-module/lists of org A
let location: string;

beforeAll(async () => {
  w = await revenueWorld();
  t = w.t;
  L = `${w.A}/lists`;
  location = await createLocation(t, w.admin, w.orgA, "North Office");
});
afterAll(() => t.close());

const post = (token: string, body: Record<string, unknown>, path = L) => t.request("POST", path, { token, body });
async function make(token: string, body: Record<string, unknown> = {}) {
  const r = await post(token, { name: unique("List"), list_type: "dynamic", scope: "organization", filter_definition: byLastName("Nobody"), ...body });
  if (r.status !== 201) throw new Error(`create list: ${r.status} ${r.text}`);
  return r.body;
}
const count = async (token = w.writer.token) => (await t.request("GET", `${L}?page_size=1`, { token })).body.total as number;

describe("POST /lists", () => {
  test("201 with every field; readable by id; audited; owner is the caller", async () => {
    const body = {
      name: " Recall push ",
      list_type: "dynamic",
      scope: "location",
      scope_location_uuid: location.toUpperCase(),
      description: "Spring recall campaign",
      filter_definition: byLastName("Smith"),
      is_pinned: true,
      sort_order: 3,
      tags: ["recall", "spring", "recall"],
    };
    const r = await post(w.writer.token, body);
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      name: "Recall push",
      list_type: "dynamic",
      scope: "location",
      owner: { uuid: w.writer.userId, name: "Wendy Writer" },
      scope_location: { uuid: location, name: "North Office" },
      description: "Spring recall campaign",
      filter_definition: byLastName("Smith"),
      is_pinned: true,
      sort_order: 3,
      tags: ["recall", "spring"],
      preset_key: null,
      last_executed_at: null,
      last_result_count: null,
      source_version: 4,
      needs_review: false,
      review_reason: null,
      version: 1,
      base_version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect((await t.request("GET", `${L}/${r.body.id}`, { token: w.reader.token })).body).toEqual(r.body);
    expect((await auditOf(t, w.orgA, r.body.id)).map((a) => a.action)).toEqual(["smart_list.created"]);
  });

  test("a static list takes no filter; defaults: not pinned, sort_order 0, no tags", async () => {
    const r = await post(w.writer.token, { name: unique("Static"), list_type: "static", scope: "personal" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      list_type: "static",
      scope: "personal",
      filter_definition: null,
      source_version: null,
      is_pinned: false,
      sort_order: 0,
      tags: [],
    });
  });

  test("422: dynamic without filter, static with filter, preset, location scope without location, location on another scope, bad filter condition; nothing written", async () => {
    const n = await count();
    const cases: [Record<string, unknown>, unknown[], string, string | undefined][] = [
      [{ list_type: "dynamic", scope: "organization" }, ["body", "filter_definition"], "missing", "filter_required"],
      [{ list_type: "static", scope: "organization", filter_definition: byLastName("X") }, ["body", "filter_definition"], "value_error", "filter_not_allowed"],
      [{ list_type: "preset", scope: "organization", filter_definition: byLastName("X") }, ["body", "list_type"], "enum", undefined],
      [{ list_type: "static", scope: "location" }, ["body", "scope_location_uuid"], "missing", "scope_location_required"],
      [{ list_type: "static", scope: "personal", scope_location_uuid: location }, ["body", "scope_location_uuid"], "value_error", "scope_location_not_allowed"],
      [
        { list_type: "dynamic", scope: "organization", filter_definition: { groups: [{ conditions: [{ field: "shoe_size", operator: "eq", value: 9 }] }] } },
        ["body", "filter_definition", "groups", 0, "conditions", 0, "field"],
        "unknown_field",
        undefined,
      ],
      [
        { list_type: "dynamic", scope: "organization", filter_definition: { groups: [{ conditions: [{ field: "has_email", operator: "gt", value: true }] }] } },
        ["body", "filter_definition", "groups", 0, "conditions", 0, "operator"],
        "operator_not_allowed",
        undefined,
      ],
      [{ list_type: "static", scope: "everyone" }, ["body", "scope"], "enum", undefined],
      [{ list_type: "static", scope: "personal", id: MISSING }, ["body", "id"], "read_only", undefined],
      [{ list_type: "static", scope: "personal", preset_key: "balances_over_90" }, ["body", "preset_key"], "read_only", undefined],
      [{ list_type: "static", scope: "personal", tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, ["body", "tags"], "out_of_range", undefined],
    ];
    for (const [body, loc, type, code] of cases) {
      const r = await post(w.writer.token, { name: unique("Bad"), ...body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
      if (code) expect(r.body.code).toBe(code);
    }
    const noName = await post(w.writer.token, { list_type: "static", scope: "personal" });
    expect(noName.body.detail[0]).toMatchObject({ loc: ["body", "name"], type: "missing" });
    expect(await count()).toBe(n);
  });

  test("404 for an unknown location or another org's location; nothing written", async () => {
    const n = await count();
    const other = await createLocation(t, w.admin, w.orgB);
    for (const id of [MISSING, other]) {
      const r = await post(w.writer.token, { name: unique("L"), list_type: "static", scope: "location", scope_location_uuid: id });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Location not found", code: "not_found" });
    }
    expect(await count()).toBe(n);
  });

  test("409 duplicate: same name (any case) for the owner and scope; other scopes, other owners, other orgs and archived names are free", async () => {
    const name = unique("Dup");
    const first = await make(w.writer.token, { name, scope: "personal" });
    const n = await count();
    const r = await post(w.writer.token, { name: ` ${name.toUpperCase()} `, list_type: "static", scope: "personal" });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: "You already have a smart list with this name in this scope", code: "duplicate" });
    expect(await count()).toBe(n);
    expect((await make(w.writer.token, { name, scope: "organization" })).name).toBe(name);
    expect((await make(w.writer2.token, { name, scope: "personal" })).name).toBe(name);
    expect((await post(w.writerB.token, { name, list_type: "static", scope: "personal" }, `${w.B}/lists`)).status).toBe(201);
    await t.request("POST", `${L}/${first.id}/archive?base_version=1`, { token: w.writer.token });
    expect((await make(w.writer.token, { name, scope: "personal" })).name).toBe(name);
  });

  test("401, 403 without revenue.write (reader, member without revenue keys), 404 in another org; nothing written", async () => {
    const n = await count();
    const body = { name: unique("Nope"), list_type: "static", scope: "organization" };
    await expectGuarded(t, w.orgA, w.orgB, "POST", L, "revenue.write", body);
    expect((await post(w.reader.token, body)).status).toBe(403);
    expect((await post(w.outsider.token, body)).status).toBe(403);
    expect((await post(w.writerB.token, body)).status).toBe(404);
    expect(await count()).toBe(n);
  });
});

describe("visibility", () => {
  let mine: any;
  let org: any;
  let theirs: any;
  beforeAll(async () => {
    const tag = unique("vis");
    mine = await make(w.writer.token, { name: `Mine ${tag}`, scope: "personal" });
    org = await make(w.writer2.token, { name: `Org ${tag}`, scope: "organization" });
    theirs = await make(w.writer2.token, { name: `Theirs ${tag}`, scope: "personal" });
  });

  test("GET /lists shows org and location lists and the caller's own personal lists only", async () => {
    const names = async (token: string) => (await t.request("GET", `${L}?search=vis&page_size=100`, { token })).body.items.map((l: any) => l.id);
    const forWriter = await names(w.writer.token);
    expect(forWriter).toContain(mine.id);
    expect(forWriter).toContain(org.id);
    expect(forWriter).not.toContain(theirs.id);
    const forWriter2 = await names(w.writer2.token);
    expect(forWriter2).toContain(theirs.id);
    expect(forWriter2).not.toContain(mine.id);
    const forReader = await names(w.reader.token);
    expect(forReader).toEqual([org.id]);
  });

  test("another user's personal list is 404 for every verb, and unchanged", async () => {
    const before = await storedList(t, w.orgA, theirs.id);
    const tok = w.writer.token;
    const P = `${L}/${theirs.id}`;
    expect((await t.request("GET", P, { token: tok })).status).toBe(404);
    expect((await t.request("PATCH", P, { token: tok, body: { base_version: 1, name: "hijack" } })).status).toBe(404);
    expect((await t.request("POST", `${P}/archive?base_version=1`, { token: tok })).status).toBe(404);
    expect((await t.request("POST", `${P}/pin`, { token: tok })).status).toBe(404);
    expect((await t.request("POST", `${P}/execute`, { token: tok, body: {} })).status).toBe(404);
    expect((await t.request("POST", `${P}/count`, { token: tok })).status).toBe(404);
    expect(await storedList(t, w.orgA, theirs.id)).toEqual(before);
  });

  test("another org's list is 404 through this org's path; the other org's member gets 404 for this org", async () => {
    const b = await post(w.writerB.token, { name: unique("B"), list_type: "static", scope: "organization" }, `${w.B}/lists`);
    expect((await t.request("GET", `${L}/${b.body.id}`, { token: w.admin })).status).toBe(404);
    expect((await t.request("GET", `${L}/${org.id}`, { token: w.writerB.token })).status).toBe(404);
    expect((await t.request("GET", `${L}/${MISSING}`, { token: w.writer.token })).body).toEqual({ detail: "Smart list not found", code: "not_found" });
  });
});

describe("GET /lists", () => {
  let tag: string;
  let ids: Record<string, string>;
  beforeAll(async () => {
    tag = unique("flt");
    const a = await make(w.writer.token, { name: `Alpha ${tag}`, scope: "organization", sort_order: 2 });
    const b = await make(w.writer.token, { name: `beta ${tag}`, scope: "personal", list_type: "static", filter_definition: undefined });
    const c = await make(w.writer.token, { name: `Gamma ${tag}`, scope: "location", scope_location_uuid: location, is_pinned: true, sort_order: 9 });
    const d = await make(w.writer.token, { name: `Delta ${tag}`, scope: "organization", sort_order: 1 });
    const gone = await make(w.writer.token, { name: `Gone ${tag}` });
    await t.request("POST", `${L}/${gone.id}/archive?base_version=1`, { token: w.writer.token });
    ids = { a: a.id, b: b.id, c: c.id, d: d.id };
  });
  const ids_ = async (q: string) => {
    const r = await t.request("GET", `${L}?search=${tag}${q}`, { token: w.writer.token });
    expect(r.status).toBe(200);
    return r.body.items.map((l: any) => l.id);
  };

  test("pinned first, then sort_order, then name; archived lists are left out", async () => {
    expect(await ids_("")).toEqual([ids.c, ids.b, ids.d, ids.a]);
  });

  test("filters: scope, list_type, is_pinned, search (case-insensitive)", async () => {
    expect(await ids_("&scope=organization")).toEqual([ids.d, ids.a]);
    expect(await ids_("&scope=location")).toEqual([ids.c]);
    expect(await ids_("&list_type=static")).toEqual([ids.b]);
    expect(await ids_("&is_pinned=true")).toEqual([ids.c]);
    expect(await ids_("&is_pinned=false")).toEqual([ids.b, ids.d, ids.a]);
    const r = await t.request("GET", `${L}?search=${tag.toUpperCase()}%20`, { token: w.writer.token });
    expect(r.body.total).toBe(4); // a trailing space is trimmed; upper case matches
    const upper = await t.request("GET", `${L}?search=ALPHA%20${tag.toUpperCase()}`, { token: w.writer.token });
    expect(upper.body.items.map((l: any) => l.id)).toEqual([ids.a]);
  });

  test("paging: default 25, at most 100; 422 out of range", async () => {
    const r = await t.request("GET", `${L}?search=${tag}&page_size=2&page=2`, { token: w.writer.token });
    expect(r.body).toMatchObject({ page: 2, page_size: 2, total: 4 });
    expect(r.body.items.map((l: any) => l.id)).toEqual([ids.d, ids.a]);
    expect((await t.request("GET", L, { token: w.writer.token })).body.page_size).toBe(25);
    for (const q of ["page_size=101", "page=0", "scope=world", "list_type=smart", "is_pinned=maybe"]) {
      expect([q, (await t.request("GET", `${L}?${q}`, { token: w.writer.token })).status]).toEqual([q, 422]);
    }
  });

  test("401, 403 without revenue.read, 404 for another org", async () => {
    await expectGuarded(t, w.orgA, w.orgB, "GET", L, "revenue.read");
    expect((await t.request("GET", L, { token: w.outsider.token })).status).toBe(403);
  });
});

describe("PATCH, archive, pin", () => {
  test("PATCH changes the given fields, bumps version, audits; a new filter is checked and saved with its source_version", async () => {
    const l = await make(w.writer.token);
    const r = await t.request("PATCH", `${L}/${l.id}`, {
      token: w.writer2.token,
      body: { base_version: 1, name: "Renamed list", description: "now with text", filter_definition: byLastName("Jones"), sort_order: 7, tags: ["a"] },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: "Renamed list",
      description: "now with text",
      filter_definition: byLastName("Jones"),
      sort_order: 7,
      tags: ["a"],
      version: 2,
      base_version: 2,
      owner: { uuid: w.writer.userId },
    });
    expect((await auditOf(t, w.orgA, l.id)).map((a) => a.action)).toEqual(["smart_list.created", "smart_list.updated"]);
  });

  test("409 stale base_version, 409 duplicate name, 422 bad filter, 422 filter on a static list, 422 read-only fields; nothing changes", async () => {
    const l = await make(w.writer.token, { scope: "personal" });
    const other = await make(w.writer.token, { scope: "personal" });
    const s = await make(w.writer.token, { list_type: "static", filter_definition: undefined });
    const before = await storedList(t, w.orgA, l.id);
    const P = `${L}/${l.id}`;
    const stale = await t.request("PATCH", P, { token: w.writer.token, body: { base_version: 2, name: "x" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const dup = await t.request("PATCH", P, { token: w.writer.token, body: { base_version: 1, name: other.name.toLowerCase() } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate");
    const bad = await t.request("PATCH", P, {
      token: w.writer.token,
      body: { base_version: 1, filter_definition: { groups: [{ conditions: [{ field: "age", operator: "gt", value: "old" }] }] } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body", "filter_definition", "groups", 0, "conditions", 0, "value"], type: "value_error" });
    for (const body of [
      { base_version: 1, scope: "organization" },
      { base_version: 1, list_type: "static" },
      { base_version: 1, owner: {} },
    ]) {
      const r = await t.request("PATCH", P, { token: w.writer.token, body });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].type).toBe("read_only");
    }
    expect((await t.request("PATCH", P, { token: w.writer.token, body: { name: "x" } })).body.detail[0]).toMatchObject({
      loc: ["body", "base_version"],
      type: "missing",
    });
    expect(await storedList(t, w.orgA, l.id)).toEqual(before);
    const st = await t.request("PATCH", `${L}/${s.id}`, { token: w.writer.token, body: { base_version: 1, filter_definition: byLastName("X") } });
    expect(st.status).toBe(422);
    expect(st.body.code).toBe("filter_not_allowed");
    expect((await t.request("PATCH", `${L}/${l.id}`, { token: w.reader.token, body: { base_version: 1, name: "r" } })).status).toBe(403);
    expect((await t.request("PATCH", `${L}/${MISSING}`, { token: w.writer.token, body: { base_version: 1, name: "r" } })).status).toBe(404);
    expect(await storedList(t, w.orgA, l.id)).toEqual(before);
  });

  test("archive: soft delete with base_version (409 stale); then 404 and out of the list", async () => {
    const l = await make(w.writer.token);
    const stale = await t.request("POST", `${L}/${l.id}/archive?base_version=3`, { token: w.writer.token });
    expect(stale.status).toBe(409);
    expect((await storedList(t, w.orgA, l.id)).deleted_at).toBeNull();
    expect((await t.request("POST", `${L}/${l.id}/archive`, { token: w.writer.token })).status).toBe(422);
    expect((await t.request("POST", `${L}/${l.id}/archive?base_version=1`, { token: w.reader.token })).status).toBe(403);
    const r = await t.request("POST", `${L}/${l.id}/archive?base_version=1`, { token: w.writer.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: l.id, version: 2, deleted_at: expect.stringMatching(/Z$/) });
    expect((await t.request("GET", `${L}/${l.id}`, { token: w.writer.token })).status).toBe(404);
    expect((await t.request("POST", `${L}/${l.id}/archive?base_version=2`, { token: w.writer.token })).status).toBe(404);
    expect((await storedList(t, w.orgA, l.id)).name).toBe(l.name); // data kept
    expect((await auditOf(t, w.orgA, l.id)).map((a) => a.action)).toEqual(["smart_list.created", "smart_list.archived"]);
  });

  test("pin and unpin set the flag (idempotent: pinning a pinned list keeps its version); is_pinned also through PATCH", async () => {
    const l = await make(w.writer.token);
    const p = await t.request("POST", `${L}/${l.id}/pin`, { token: w.writer.token });
    expect(p.body).toMatchObject({ is_pinned: true, version: 2 });
    expect((await t.request("POST", `${L}/${l.id}/pin`, { token: w.writer.token })).body).toMatchObject({ is_pinned: true, version: 2 });
    expect((await t.request("POST", `${L}/${l.id}/unpin`, { token: w.writer.token })).body).toMatchObject({ is_pinned: false, version: 3 });
    expect((await t.request("PATCH", `${L}/${l.id}`, { token: w.writer.token, body: { base_version: 3, is_pinned: true } })).body).toMatchObject({
      is_pinned: true,
      version: 4,
    });
    expect((await t.request("POST", `${L}/${l.id}/pin`, { token: w.reader.token })).status).toBe(403);
    expect((await t.request("POST", `${L}/${MISSING}/pin`, { token: w.writer.token })).status).toBe(404);
    expect((await auditOf(t, w.orgA, l.id)).map((a) => a.action)).toEqual([
      "smart_list.created",
      "smart_list.pinned",
      "smart_list.unpinned",
      "smart_list.updated",
    ]);
  });
});
