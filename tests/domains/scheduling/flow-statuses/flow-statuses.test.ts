import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, expectValidationCases, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";

let t: TestApp;
let admin: string;
let orgA: string;
let A: string; // {P}/schedule/flow-statuses of org A
let B: string;
let reader: string; // schedule.read only
let outsider: string; // a member of A without schedule keys
let memberOfB: string;
let events: EventEnvelope[];
const MISSING = "01970000-0000-7000-8000-000000000000";

beforeAll(async () => {
  const w = await twoOrgApp(
    {
      reader: ["schedule.read"],
      outsider: ["schedule.appointments.read", "schedule.appointments.write"],
      memberOfB: { org: "B", keys: ["schedule.read", "schedule.write"] },
    },
    { events: true },
  );
  ({ t, admin, orgA, events } = w);
  ({ reader, outsider, memberOfB } = w.tokens);
  A = `${w.pathA}/schedule/flow-statuses`;
  B = `${w.pathB}/schedule/flow-statuses`;
});
afterAll(() => t.close());

let n = 0;
async function create(body: Record<string, unknown> = {}, P = A) {
  const r = await t.request("POST", P, { token: admin, body: { name: `Status ${n++}`, color: "#112233", ...body } });
  if (r.status !== 201) throw new Error(`create flow status failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, P = A) => (await t.request("GET", `${P}/${id}`, { token: admin })).body;
const total = async (P = A) => (await t.request("GET", `${P}?page_size=1`, { token: admin })).body.total as number;

describe("POST /schedule/flow-statuses", () => {
  test("201: slug derived from the name, colour upper-cased, defaults; audited and published", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/schedule/flow-statuses`;
    const seen: EventEnvelope[] = [];
    t.rt.events.subscribe(org, (e) => seen.push(e));
    const r = await t.request("POST", P, { token: admin, body: { name: "  Ready for Dr. Café! ", color: "#a1b2c3" } });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      name: "Ready for Dr. Café!",
      slug: "ready_for_dr_cafe",
      color: "#A1B2C3",
      is_active: true,
      item_order: 0,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect(await read(r.body.id, P)).toEqual(r.body);
    // item_order defaults to after the last status
    expect((await t.request("POST", P, { token: admin, body: { name: "Seated", color: "#FFF", is_active: false } })).body).toMatchObject({
      slug: "seated",
      color: "#FFF",
      is_active: false,
      item_order: 1,
    });
    expect((await t.request("POST", P, { token: admin, body: { name: "Late", color: "#000", item_order: 7 } })).body.item_order).toBe(7);
    expect((await t.request("POST", P, { token: admin, body: { name: "Later", color: "#000" } })).body.item_order).toBe(8);
    expect((await auditOf(t, org, r.body.id)).map((a) => [a.action, a.after.slug])).toEqual([["flow_status.created", "ready_for_dr_cafe"]]);
    expect(seen.filter((e) => e.resource_id === r.body.id).map((e) => [e.type, e.resource_type, e.data])).toEqual([
      ["flow_status.created", "flow_status", { id: r.body.id }],
    ]);
  });

  test("409 duplicate when another live status has the same slug (other spelling too); an archived one frees it", async () => {
    const first = await create({ name: "Checked Out" });
    const count = await total();
    for (const name of ["Checked Out", "checked-out", "CHECKED  OUT!"]) {
      const r = await t.request("POST", A, { token: admin, body: { name, color: "#123" } });
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ detail: 'A flow status with the slug "checked_out" already exists', code: "duplicate" });
    }
    expect(await total()).toBe(count);
    await t.request("POST", `${A}/${first.id}/archive`, { token: admin });
    expect((await create({ name: "Checked out" })).slug).toBe("checked_out");
    // slugs are per org
    expect((await create({ name: "Checked Out" }, B)).slug).toBe("checked_out");
  });

  test("422 for each rule, unknown and read-only fields and malformed JSON; nothing is written", async () => {
    const count = await total();
    const ok = { name: "Fine", color: "#123456" };
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ color: "#123" }, ["body", "name"], "missing"],
      [{ name: "X" }, ["body", "color"], "missing"],
      [{ ...ok, name: "" }, ["body", "name"], "out_of_range"],
      [{ ...ok, name: "x".repeat(101) }, ["body", "name"], "out_of_range"],
      [{ ...ok, name: "!!! ---" }, ["body", "name"], "value_error"],
      [{ ...ok, name: 5 }, ["body", "name"], "type_error"],
      [{ ...ok, color: "red" }, ["body", "color"], "format"],
      [{ ...ok, color: "#12345" }, ["body", "color"], "format"],
      [{ ...ok, is_active: "yes" }, ["body", "is_active"], "type_error"],
      [{ ...ok, item_order: -1 }, ["body", "item_order"], "out_of_range"],
      [{ ...ok, item_order: 1.5 }, ["body", "item_order"], "type_error"],
      [{ ...ok, icon: "x" }, ["body", "icon"], "extra_forbidden"],
      [{ ...ok, id: MISSING }, ["body", "id"], "read_only"],
      [{ ...ok, slug: "custom" }, ["body", "slug"], "read_only"],
    ];
    await expectValidationCases(t, "POST", A, admin, cases);
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"name": ', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect(await total()).toBe(count);
  });

  test("401, 403 (a schedule.read member too), 404 for a non-member or unknown org; nothing is written", async () => {
    const count = await total();
    const body = { name: "Nope", color: "#000" };
    const anon = await t.request("POST", A, { body });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    expect((await t.request("POST", A, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: memberOfB, body })).status).toBe(404);
    expect((await t.request("POST", `/api/v1/${MISSING}/schedule/flow-statuses`, { token: admin, body })).status).toBe(404);
    expect(await total()).toBe(count);
  });
});

describe("GET /schedule/flow-statuses", () => {
  let P: string;
  beforeAll(async () => {
    const org = (await t.createOrg()).id;
    P = `/api/v1/${org}/schedule/flow-statuses`;
    await create({ name: "Seated", item_order: 2 }, P);
    await create({ name: "Arrived", item_order: 1 }, P);
    await create({ name: "Inactive", item_order: 0, is_active: false }, P);
    await create({ name: "Billing", item_order: 2 }, P);
    const gone = await create({ name: "Gone", item_order: 0 }, P);
    await t.request("POST", `${P}/${gone.id}/archive`, { token: admin });
  });
  const names = async (qs: string, token = admin) => {
    const r = await t.request("GET", `${P}${qs}`, { token });
    expect(r.status).toBe(200);
    return r.body.items.map((s: { name: string }) => s.name);
  };

  test("ordered by item_order (then name); inactive included by default; archived left out; paged", async () => {
    const r = await t.request("GET", P, { token: admin });
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 4 });
    expect(r.body.items.map((s: { name: string }) => s.name)).toEqual(["Inactive", "Arrived", "Billing", "Seated"]);
    expect(await names("?include_inactive=true")).toEqual(["Inactive", "Arrived", "Billing", "Seated"]);
    expect(await names("?include_inactive=false")).toEqual(["Arrived", "Billing", "Seated"]);
    const p2 = (await t.request("GET", `${P}?page=2&page_size=3`, { token: admin })).body;
    expect(p2).toMatchObject({ page: 2, page_size: 3, total: 4 });
    expect(p2.items.map((s: { name: string }) => s.name)).toEqual(["Seated"]);
    expect((await t.request("GET", `${P}?page_size=200`, { token: reader })).status).toBe(404); // reader is not a member of this org
    expect((await t.request("GET", `${A}?page_size=200`, { token: reader })).status).toBe(200);
  });

  test("422 for page_size above 200, page 0, a bad include_inactive and unknown parameters", async () => {
    for (const [qs, field, type] of [
      ["page_size=201", "page_size", "out_of_range"],
      ["page=0", "page", "out_of_range"],
      ["include_inactive=maybe", "include_inactive", "enum"],
      ["active=1", "active", "extra_forbidden"],
    ]) {
      const r = await t.request("GET", `${P}?${qs}`, { token: admin });
      expect({ qs, status: r.status }).toEqual({ qs, status: 422 });
      expect(r.body.detail[0]).toEqual({ loc: ["query", field], msg: expect.any(String), type });
    }
  });

  test("another org's statuses never show; 401, 403, 404 for a non-member", async () => {
    const foreign = await create({ name: "Foreign only" }, B);
    const ids = (await t.request("GET", `${A}?page_size=200`, { token: admin })).body.items.map((s: { id: string }) => s.id);
    expect(ids).not.toContain(foreign.id);
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", A, { token: memberOfB })).status).toBe(404);
  });
});

describe("GET /schedule/flow-statuses/{id}", () => {
  test("200 with ETag for a schedule.read member; 404 unknown, another org's, archived", async () => {
    const s = await create();
    const r = await t.request("GET", `${A}/${s.id}`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual(s);
    const foreign = await create({}, B);
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    for (const id of [MISSING, foreign.id, gone.id, "not-a-uuid"]) {
      const miss = await t.request("GET", `${A}/${id}`, { token: admin });
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ detail: "Flow status not found", code: "not_found" });
    }
  });

  test("401, 403, 404 for a non-member", async () => {
    const s = await create();
    expect((await t.request("GET", `${A}/${s.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${s.id}`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${A}/${s.id}`, { token: memberOfB })).status).toBe(404);
  });
});

describe("PATCH /schedule/flow-statuses/{id}", () => {
  test("200: rename re-derives the slug; colour, is_active, item_order; version bumps; audited and published", async () => {
    const s = await create({ name: "Waiting Room" });
    const before = events.length;
    const r = await t.request("PATCH", `${A}/${s.id}`, {
      token: admin,
      body: { base_version: 1, name: "In Chair", color: "#abc", is_active: false, item_order: 40 },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...s,
      name: "In Chair",
      slug: "in_chair",
      color: "#ABC",
      is_active: false,
      item_order: 40,
      version: 2,
      updated_at: expect.any(String),
    });
    expect(await read(s.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, s.id);
    expect(audit.map((a) => a.action)).toEqual(["flow_status.created", "flow_status.updated"]);
    expect([audit[1].before.slug, audit[1].after.slug]).toEqual(["waiting_room", "in_chair"]);
    const ev = events.slice(before).filter((e) => e.resource_id === s.id);
    expect(ev.map((e) => e.type)).toEqual(["flow_status.updated"]);
    expect((ev[0]!.data.changed_fields as string[]).sort()).toEqual(["color", "is_active", "item_order", "name", "slug"]);
  });

  test("renaming to its own slug is fine; to another live status's slug is 409 and changes nothing", async () => {
    const taken = await create({ name: "Dismissed" });
    const s = await create({ name: "Ready" });
    const same = await t.request("PATCH", `${A}/${s.id}`, { token: admin, body: { base_version: 1, name: "READY" } });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ name: "READY", slug: "ready", version: 2 });
    const r = await t.request("PATCH", `${A}/${s.id}`, { token: admin, body: { base_version: 2, name: "dismissed" } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("duplicate");
    expect(await read(s.id)).toEqual(same.body);
    expect(await read(taken.id)).toEqual(taken);
  });

  test("422 for each rule; the record is unchanged", async () => {
    const s = await create();
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ name: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: "1" }, ["body", "base_version"], "type_error"],
      [{ base_version: 0 }, ["body", "base_version"], "out_of_range"],
      [{ base_version: 1, name: null }, ["body", "name"], "type_error"],
      [{ base_version: 1, name: "***" }, ["body", "name"], "value_error"],
      [{ base_version: 1, color: "#GGGGGG" }, ["body", "color"], "format"],
      [{ base_version: 1, is_active: null }, ["body", "is_active"], "type_error"],
      [{ base_version: 1, item_order: 1_000_001 }, ["body", "item_order"], "out_of_range"],
      [{ base_version: 1, slug: "x" }, ["body", "slug"], "read_only"],
      [{ base_version: 1, version: 3 }, ["body", "version"], "read_only"],
      [{ base_version: 1, sound: "ding" }, ["body", "sound"], "extra_forbidden"],
    ];
    await expectValidationCases(t, "PATCH", `${A}/${s.id}`, admin, cases);
    const bad = await t.request("PATCH", `${A}/${s.id}`, { token: admin, rawBody: "{", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    expect(await read(s.id)).toEqual(s);
  });

  test("409 on a stale base_version; 404 unknown and another org's (unchanged); 401, 403, 404 non-member", async () => {
    const s = await create();
    await t.request("PATCH", `${A}/${s.id}`, { token: admin, body: { base_version: 1, color: "#111" } });
    const stale = await t.request("PATCH", `${A}/${s.id}`, { token: admin, body: { base_version: 1, color: "#222" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const now = await read(s.id);
    expect(now).toMatchObject({ color: "#111", version: 2 });
    const foreign = await create({}, B);
    expect((await t.request("PATCH", `${A}/${MISSING}`, { token: admin, body: { base_version: 1, color: "#333" } })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/${foreign.id}`, { token: admin, body: { base_version: 1, name: "Hijack" } })).status).toBe(404);
    expect(await read(foreign.id, B)).toEqual(foreign);
    const body = { base_version: 2, color: "#444" };
    expect((await t.request("PATCH", `${A}/${s.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${s.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${A}/${s.id}`, { token: memberOfB, body })).status).toBe(404);
    expect(await read(s.id)).toEqual(now);
  });
});

describe("POST /schedule/flow-statuses/{id}/archive", () => {
  test("200 with deleted_at; then 404 and out of lists; audited and published", async () => {
    const s = await create();
    const before = events.length;
    const r = await t.request("POST", `${A}/${s.id}/archive`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...s, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await t.request("GET", `${A}/${s.id}`, { token: admin })).status).toBe(404);
    const ids = (await t.request("GET", `${A}?page_size=200`, { token: admin })).body.items.map((x: { id: string }) => x.id);
    expect(ids).not.toContain(s.id);
    expect((await t.request("POST", `${A}/${s.id}/archive`, { token: admin })).status).toBe(404);
    expect((await auditOf(t, orgA, s.id)).map((a) => a.action)).toEqual(["flow_status.created", "flow_status.archived"]);
    expect(
      events
        .slice(before)
        .filter((e) => e.resource_id === s.id)
        .map((e) => e.type),
    ).toEqual(["flow_status.archived"]);
  });

  test("409 stale ?base_version, 422 bad one; 404 unknown and another org's; 401, 403, 404 non-member; unchanged", async () => {
    const s = await create();
    const stale = await t.request("POST", `${A}/${s.id}/archive?base_version=4`, { token: admin });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const badVersion = await t.request("POST", `${A}/${s.id}/archive?base_version=x`, { token: admin });
    expect(badVersion.status).toBe(422);
    expect(badVersion.body.detail[0].loc).toEqual(["query", "base_version"]);
    const foreign = await create({}, B);
    expect((await t.request("POST", `${A}/${MISSING}/archive`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${A}/${foreign.id}/archive`, { token: admin })).status).toBe(404);
    expect(await read(foreign.id, B)).toEqual(foreign);
    expect((await t.request("POST", `${A}/${s.id}/archive`)).status).toBe(401);
    expect((await t.request("POST", `${A}/${s.id}/archive`, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${A}/${s.id}/archive`, { token: memberOfB })).status).toBe(404);
    expect(await read(s.id)).toEqual(s);
    expect((await t.request("POST", `${A}/${s.id}/archive?base_version=1`, { token: admin })).status).toBe(200);
  });
});
