import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { DEFINITION_CATEGORIES } from "@db/tenant/definitions";

let t: TestApp;
let admin: string;
let orgA: string;
let A: string; // {P}/definitions of org A
let B: string;
let reader: string; // definitions.read only
let outsider: string; // a member of A holding other keys
let memberOfB: string;
let events: EventEnvelope[];
const MISSING = "01970000-0000-7000-8000-000000000000";

beforeAll(async () => {
  const w = await twoOrgApp(
    {
      reader: ["definitions.read"],
      outsider: ["odontogram.read", "odontogram.write"],
      memberOfB: { org: "B", keys: ["definitions.read", "definitions.write"] },
    },
    { events: true },
  );
  ({ t, admin, orgA, events } = w);
  ({ reader, outsider, memberOfB } = w.tokens);
  A = `${w.pathA}/definitions`;
  B = `${w.pathB}/definitions`;
});
afterAll(() => t.close());

let n = 0;
async function create(body: Record<string, unknown> = {}, P = A) {
  const r = await t.request("POST", P, { token: admin, body: { category: "payment_types", item_name: `Item ${n++}`, ...body } });
  if (r.status !== 201) throw new Error(`create definition failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, P = A) => (await t.request("GET", `${P}/${id}`, { token: admin })).body;
const list = async (query: string, P = A) => (await t.request("GET", `${P}?${query}`, { token: admin })).body;
const names = async (category: string, P = A) => (await list(`category=${category}`, P)).items.map((d: { item_name: string }) => d.item_name);
const total = async (category: string, P = A) => (await list(`category=${category}&page_size=1`, P)).total as number;

describe("seeded categories", () => {
  test("a new org has starter items in every category except holidays, in order, visible and versioned", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/definitions`;
    for (const category of DEFINITION_CATEGORIES) {
      const page = await list(`category=${category}`, P);
      if (category === "holidays") expect(page.total).toBe(0);
      else expect({ category, some: page.total > 0 }).toEqual({ category, some: true });
      expect(page.items.map((d: { item_order: number }) => d.item_order)).toEqual(page.items.map((_: unknown, i: number) => i));
    }
    expect(await names("blockout_types", P)).toEqual(["Lunch", "Staff meeting", "Emergency hold", "Hygiene only", "Doctor out", "New patients only"]);
    expect(await names("prognosis", P)).toEqual(["Good", "Fair", "Poor", "Questionable", "Hopeless"]);
    expect(await names("priority", P)).toEqual(["Urgent", "High", "Normal", "Low", "Elective"]);
    expect(await names("document_categories", P)).toEqual(expect.arrayContaining(["X-rays", "Insurance cards", "Consent forms", "Referrals", "Lab reports"]));
    expect(await names("appointment_confirmation_statuses", P)).toContain("Confirmed");
    expect(await names("billing_types", P)).toContain("Standard account");
    const lunch = (await list("category=blockout_types&search=lunch", P)).items[0];
    expect(lunch).toEqual({
      id: expect.any(String),
      category: "blockout_types",
      item_name: "Lunch",
      item_value: "lunch",
      item_order: 0,
      item_color: "#BDBDBD",
      is_hidden: false,
      metadata: null,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    const caries = (await list("category=diagnosis_codes&search=K02.9", P)).items;
    expect(caries.map((d: { item_name: string }) => d.item_name)).toEqual(["Dental caries"]);
    // seeds are not audited: nothing in the org's trail for a seeded row
    expect(await auditOf(t, org, lunch.id)).toEqual([]);
  });

  test("the blockouts domain accepts a seeded blockout type and refuses a definition of another category", async () => {
    const lunch = (await list("category=blockout_types&search=Lunch")).items[0];
    const holiday = await create({ category: "holidays", item_name: "Closed", item_value: "2026-12-24" });
    const location = (await t.request("POST", `/api/v1/${orgA}/locations`, { token: admin, body: { name: "Main", timezone: "UTC" } })).body;
    const blockout = (type: string) =>
      t.request("POST", `/api/v1/${orgA}/schedule/blockouts`, {
        token: admin,
        body: { location_uuid: location.id, blockout_type_uuid: type, start: "2026-06-01T12:00", end: "2026-06-01T13:00" },
      });
    const ok = await blockout(lunch.id);
    expect(ok.status).toBe(201);
    expect(ok.body.blockout_type).toEqual({ uuid: lunch.id, name: "Lunch" });
    expect((await blockout(holiday.id)).body.code).toBe("blockout_type_invalid");
  });
});

describe("GET /definitions", () => {
  test("filters by category, is_hidden and search (name or value); orders by item_order; pages at 200 by default", async () => {
    const hidden = await create({ category: "adjustment_types", item_name: "Zebra discount", item_value: "-", is_hidden: true, item_order: 0 });
    const page = await list("category=adjustment_types");
    expect(page.page).toBe(1);
    expect(page.page_size).toBe(200);
    expect(page.items.map((d: { category: string }) => d.category).every((c: string) => c === "adjustment_types")).toBe(true);
    expect(page.items.map((d: { id: string }) => d.id)).toContain(hidden.id);
    expect((await list("category=adjustment_types&is_hidden=true")).items.map((d: { id: string }) => d.id)).toEqual([hidden.id]);
    expect((await list("category=adjustment_types&is_hidden=false")).items.map((d: { id: string }) => d.id)).not.toContain(hidden.id);
    expect((await list("category=adjustment_types&search=ZEBRA")).items.map((d: { id: string }) => d.id)).toEqual([hidden.id]);
    // search reaches item_value; % is literal
    expect((await list("category=diagnosis_codes&search=k05.30")).items.map((d: { item_name: string }) => d.item_name)).toEqual(["Chronic periodontitis"]);
    expect((await list("category=diagnosis_codes&search=%25")).total).toBe(0);
    const orders = page.items.map((d: { item_order: number }) => d.item_order);
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    const p2 = await list("category=adjustment_types&page=2&page_size=3");
    expect(p2.items.map((d: { id: string }) => d.id)).toEqual(page.items.slice(3, 6).map((d: { id: string }) => d.id));
    expect(p2.total).toBe(page.total);
  });

  test("archived items leave the list; another org's items never appear", async () => {
    const gone = await create({ category: "patient_alert_categories", item_name: "Old alert" });
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    const foreign = await create({ category: "patient_alert_categories", item_name: "Foreign alert" }, B);
    const ids = (await list("category=patient_alert_categories")).items.map((d: { id: string }) => d.id);
    expect(ids).not.toContain(gone.id);
    expect(ids).not.toContain(foreign.id);
  });

  test.each([
    ["category missing", "", ["query", "category"], "missing"],
    ["unknown category", "category=colours", ["query", "category"], "enum"],
    ["page 0", "category=prognosis&page=0", ["query", "page"], "out_of_range"],
    ["page_size above 200", "category=prognosis&page_size=201", ["query", "page_size"], "out_of_range"],
    ["page_size not a number", "category=prognosis&page_size=lots", ["query", "page_size"], "type_error"],
    ["is_hidden not boolean", "category=prognosis&is_hidden=maybe", ["query", "is_hidden"], "enum"],
    ["unknown parameter", "category=prognosis&org_id=x", ["query", "org_id"], "extra_forbidden"],
  ])("422 %s", async (_name, query, loc, type) => {
    const r = await t.request("GET", `${A}?${query}`, { token: admin });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  test("401 without a token, 403 without definitions.read, 404 for a non-member", async () => {
    expect((await t.request("GET", `${A}?category=prognosis`)).status).toBe(401);
    expect((await t.request("GET", `${A}?category=prognosis`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${A}?category=prognosis`, { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", `${A}?category=prognosis`, { token: reader })).status).toBe(200);
  });
});

describe("POST /definitions", () => {
  test("201 with every field; colour upper-cased; audited and published with the category", async () => {
    const r = await t.request("POST", A, {
      token: admin,
      body: {
        category: "blockout_types",
        item_name: "  Training ",
        item_value: "training",
        item_order: 40,
        item_color: "#a1b2c3",
        is_hidden: true,
        metadata: { book_online: false, minutes: 30 },
      },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      category: "blockout_types",
      item_name: "Training",
      item_value: "training",
      item_order: 40,
      item_color: "#A1B2C3",
      is_hidden: true,
      metadata: { book_online: false, minutes: 30 },
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect(await read(r.body.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit.map((a) => [a.action, a.resource_type, a.after.item_name, a.before])).toEqual([["definition.created", "definition", "Training", null]]);
    expect(events.filter((e) => e.resource_id === r.body.id).map((e) => [e.type, e.resource_type, e.data])).toEqual([
      ["definition.created", "definition", { id: r.body.id, category: "blockout_types" }],
    ]);
  });

  test("defaults: empty item_value, not hidden, no colour or metadata, item_order after the last active item", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/definitions`;
    const d = await create({ category: "prognosis", item_name: "Guarded" }, P);
    expect(d).toMatchObject({ item_value: "", is_hidden: false, item_color: null, metadata: null, item_order: 5 });
    // an archived last item no longer counts
    await t.request("POST", `${P}/${d.id}/archive`, { token: admin });
    expect((await create({ category: "prognosis", item_name: "Guarded" }, P)).item_order).toBe(5);
    expect((await create({ category: "holidays", item_name: "New Year", item_value: "2027-01-01" }, P)).item_order).toBe(0);
  });

  test("holidays: item_value is the closed date, YYYY-MM-DD, and required", async () => {
    const ok = await create({ category: "holidays", item_name: "Independence Day", item_value: "2026-07-04" });
    expect(ok.item_value).toBe("2026-07-04");
    const before = await total("holidays");
    const missing = await t.request("POST", A, { token: admin, body: { category: "holidays", item_name: "Someday" } });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      code: "holiday_date_required",
      detail: [{ loc: ["body", "item_value"], msg: "Field required: a holiday's date, YYYY-MM-DD", type: "missing" }],
    });
    for (const value of ["07/04/2026", "2026-02-30", "", "tomorrow"]) {
      const r = await t.request("POST", A, { token: admin, body: { category: "holidays", item_name: "Bad", item_value: value } });
      expect({ value, status: r.status, code: r.body.code, detail: r.body.detail }).toEqual({
        value,
        status: 422,
        code: "holiday_date_invalid",
        detail: [{ loc: ["body", "item_value"], msg: "A holiday's item_value must be a date, YYYY-MM-DD", type: "format" }],
      });
    }
    expect(await total("holidays")).toBe(before);
  });

  test.each([
    ["missing category", { category: undefined }, ["body", "category"], "missing"],
    ["unknown category", { category: "colours" }, ["body", "category"], "enum"],
    ["missing item_name", { item_name: undefined }, ["body", "item_name"], "missing"],
    ["blank item_name", { item_name: "   " }, ["body", "item_name"], "out_of_range"],
    ["item_name too long", { item_name: "x".repeat(201) }, ["body", "item_name"], "out_of_range"],
    ["item_name not a string", { item_name: 12 }, ["body", "item_name"], "type_error"],
    ["item_value not a string", { item_value: 5 }, ["body", "item_value"], "type_error"],
    ["item_order negative", { item_order: -1 }, ["body", "item_order"], "out_of_range"],
    ["item_order fractional", { item_order: 1.5 }, ["body", "item_order"], "type_error"],
    ["item_color not hex", { item_color: "red" }, ["body", "item_color"], "format"],
    ["item_color 4 digits", { item_color: "#1234" }, ["body", "item_color"], "format"],
    ["is_hidden not boolean", { is_hidden: "yes" }, ["body", "is_hidden"], "type_error"],
    ["metadata an array", { metadata: [1, 2] }, ["body", "metadata"], "type_error"],
    ["metadata a string", { metadata: "x" }, ["body", "metadata"], "type_error"],
    ["metadata too large", { metadata: { blob: "x".repeat(10_001) } }, ["body", "metadata"], "value_error"],
    ["unknown field", { colour: "#FFF" }, ["body", "colour"], "extra_forbidden"],
    ["id", { id: MISSING }, ["body", "id"], "read_only"],
    ["version", { version: 2 }, ["body", "version"], "read_only"],
    ["deleted_at", { deleted_at: null }, ["body", "deleted_at"], "read_only"],
  ])("422 %s, and nothing is created", async (_name, fields, loc, type) => {
    const before = await total("payment_types");
    const r = await t.request("POST", A, { token: admin, body: { category: "payment_types", item_name: "Valid", ...fields } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await total("payment_types")).toBe(before);
  });

  test("422 malformed JSON, 415 another media type; nothing is created", async () => {
    const before = await total("payment_types");
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"category": "payment_types",', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect((await t.request("POST", A, { token: admin, rawBody: "category=x", headers: { "content-type": "text/plain" } })).status).toBe(415);
    expect(await total("payment_types")).toBe(before);
  });

  test("401 without a token, 403 without definitions.write, 404 for a non-member; nothing is created", async () => {
    const before = await total("payment_types");
    const body = { category: "payment_types", item_name: "Nope" };
    expect((await t.request("POST", A, { body })).status).toBe(401);
    expect((await t.request("POST", A, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: memberOfB, body })).status).toBe(404);
    expect(await total("payment_types")).toBe(before);
  });
});

describe("GET /definitions/{definition_uuid}", () => {
  test("200 with ETag; 404 when missing, archived or another org's; 401; 403", async () => {
    const d = await create();
    const r = await t.request("GET", `${A}/${d.id}`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual(d);
    const foreign = await create({}, B);
    for (const id of [MISSING, foreign.id, "not-a-uuid"]) {
      expect(await t.request("GET", `${A}/${id}`, { token: admin })).toMatchObject({ status: 404, body: { code: "not_found" } });
    }
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    expect((await t.request("GET", `${A}/${gone.id}`, { token: admin })).body).toEqual({ detail: "Definition not found", code: "not_found" });
    expect((await t.request("GET", `${A}/${d.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${d.id}`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${A}/${d.id}`, { token: memberOfB })).status).toBe(404);
  });
});

describe("PATCH /definitions/{definition_uuid}", () => {
  test("200: changes the fields, bumps the version; audited and published with the changed field names", async () => {
    const d = await create({ item_color: "#000000" });
    const r = await t.request("PATCH", `${A}/${d.id}`, {
      token: admin,
      body: { base_version: 1, item_name: "Renamed", item_color: null, is_hidden: true, metadata: { a: 1 }, item_value: "v" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toMatchObject({
      item_name: "Renamed",
      item_color: null,
      is_hidden: true,
      metadata: { a: 1 },
      item_value: "v",
      version: 2,
      category: "payment_types",
    });
    expect(await read(d.id)).toEqual(r.body);
    expect((await auditOf(t, orgA, d.id)).map((a) => [a.action, a.before?.item_name ?? null, a.after.item_name])).toEqual([
      ["definition.created", null, d.item_name],
      ["definition.updated", d.item_name, "Renamed"],
    ]);
    const ev = events.find((e) => e.resource_id === d.id && e.type === "definition.updated")!;
    expect(ev.data.id).toBe(d.id);
    expect([...(ev.data.changed_fields as string[])].sort()).toEqual(["is_hidden", "item_color", "item_name", "item_value", "metadata"]);
  });

  test("409 on a stale base_version; the row is unchanged", async () => {
    const d = await create();
    await t.request("PATCH", `${A}/${d.id}`, { token: admin, body: { base_version: 1, item_name: "First" } });
    const r = await t.request("PATCH", `${A}/${d.id}`, { token: admin, body: { base_version: 1, item_name: "Second" } });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: "The record is at version 2; reload and retry", code: "version_conflict" });
    expect(await read(d.id)).toMatchObject({ item_name: "First", version: 2 });
  });

  test("a holiday's new item_value must be a date; other categories take any value", async () => {
    const h = await create({ category: "holidays", item_name: "Labor Day", item_value: "2026-09-07" });
    const r = await t.request("PATCH", `${A}/${h.id}`, { token: admin, body: { base_version: 1, item_value: "September" } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("holiday_date_invalid");
    expect(await read(h.id)).toEqual(h);
    expect((await t.request("PATCH", `${A}/${h.id}`, { token: admin, body: { base_version: 1, item_name: "Labour Day" } })).body.item_value).toBe("2026-09-07");
    expect((await t.request("PATCH", `${A}/${h.id}`, { token: admin, body: { base_version: 2, item_value: "2027-09-06" } })).body.item_value).toBe(
      "2027-09-06",
    );
  });

  test.each([
    ["base_version missing", { item_name: "X" }, ["body", "base_version"], "missing"],
    ["base_version 0", { base_version: 0 }, ["body", "base_version"], "out_of_range"],
    ["category (immutable)", { base_version: 1, category: "holidays" }, ["body", "category"], "read_only"],
    ["blank item_name", { base_version: 1, item_name: "" }, ["body", "item_name"], "out_of_range"],
    ["item_color", { base_version: 1, item_color: "blue" }, ["body", "item_color"], "format"],
    ["item_order string", { base_version: 1, item_order: "1" }, ["body", "item_order"], "type_error"],
    ["unknown field", { base_version: 1, sort: 1 }, ["body", "sort"], "extra_forbidden"],
    ["version", { base_version: 1, version: 5 }, ["body", "version"], "read_only"],
  ])("422 %s; the row is unchanged", async (_name, body, loc, type) => {
    const d = await create();
    const r = await t.request("PATCH", `${A}/${d.id}`, { token: admin, body });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await read(d.id)).toEqual(d);
  });

  test("422 malformed JSON; 404 missing, archived or another org's; 401; 403 — nothing changes", async () => {
    const d = await create();
    expect((await t.request("PATCH", `${A}/${d.id}`, { token: admin, rawBody: "{", headers: { "content-type": "application/json" } })).status).toBe(422);
    const foreign = await create({}, B);
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    for (const id of [MISSING, foreign.id, gone.id]) {
      expect((await t.request("PATCH", `${A}/${id}`, { token: admin, body: { base_version: 1, item_name: "Hijack" } })).status).toBe(404);
    }
    expect((await t.request("PATCH", `${A}/${d.id}`, { body: { base_version: 1, item_name: "X" } })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${d.id}`, { token: reader, body: { base_version: 1, item_name: "X" } })).status).toBe(403);
    expect((await t.request("PATCH", `${A}/${d.id}`, { token: memberOfB, body: { base_version: 1, item_name: "X" } })).status).toBe(404);
    expect(await read(d.id)).toEqual(d);
    expect(await read(foreign.id, B)).toEqual(foreign);
  });
});

describe("POST /definitions/{definition_uuid}/archive", () => {
  test("200 sets deleted_at; audited and published; a second archive is 404", async () => {
    const d = await create();
    const r = await t.request("POST", `${A}/${d.id}/archive`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: d.id, version: 2, deleted_at: expect.stringMatching(/Z$/) });
    expect((await auditOf(t, orgA, d.id)).map((a) => a.action)).toEqual(["definition.created", "definition.archived"]);
    expect(events.filter((e) => e.resource_id === d.id).map((e) => e.type)).toEqual(["definition.created", "definition.archived"]);
    expect((await t.request("POST", `${A}/${d.id}/archive`, { token: admin })).status).toBe(404);
  });

  test("404 missing or another org's; 401; 403 — nothing changes", async () => {
    const d = await create();
    const foreign = await create({}, B);
    for (const id of [MISSING, foreign.id]) expect((await t.request("POST", `${A}/${id}/archive`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${A}/${d.id}/archive`)).status).toBe(401);
    expect((await t.request("POST", `${A}/${d.id}/archive`, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${A}/${d.id}/archive`, { token: memberOfB })).status).toBe(404);
    expect(await read(d.id)).toEqual(d);
    expect(await read(foreign.id, B)).toEqual(foreign);
  });
});

describe("POST /definitions/reorder", () => {
  const reorder = (body: unknown, token = admin, P = A) => t.request("POST", `${P}/reorder`, { token, body });

  test("sets item_order 0..n-1 in the listed order (hidden items included); only moved items get a new version", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/definitions`;
    const seen: EventEnvelope[] = [];
    t.rt.events.subscribe(org, (e) => seen.push(e));
    const before = (await list("category=prognosis", P)).items as { id: string; item_name: string }[];
    await t.request("PATCH", `${P}/${before[4]!.id}`, { token: admin, body: { base_version: 1, is_hidden: true } });
    // Hopeless first, then the rest in their order: Good..Questionable each move down by one
    const wanted = [before[4]!.id, ...before.slice(0, 4).map((d) => d.id)];
    const r = await reorder({ category: "prognosis", definition_uuids: wanted }, admin, P);
    expect(r.status).toBe(200);
    expect(r.body.category).toBe("prognosis");
    expect(r.body.items.map((d: { item_name: string; item_order: number; version: number }) => [d.item_name, d.item_order, d.version])).toEqual([
      ["Hopeless", 0, 3],
      ["Good", 1, 2],
      ["Fair", 2, 2],
      ["Poor", 3, 2],
      ["Questionable", 4, 2],
    ]);
    expect(await names("prognosis", P)).toEqual(["Hopeless", "Good", "Fair", "Poor", "Questionable"]);
    expect((await auditOf(t, org, before[0]!.id)).map((a) => [a.action, a.before.item_order, a.after.item_order])).toEqual([["definition.reordered", 0, 1]]);
    expect(seen.filter((e) => e.resource_id === before[0]!.id).map((e) => [e.type, e.data])).toEqual([
      ["definition.reordered", { id: before[0]!.id, changed_fields: ["item_order"] }],
    ]);
    // the same order again changes nothing
    const again = await reorder({ category: "prognosis", definition_uuids: wanted }, admin, P);
    expect(again.body.items.map((d: { version: number }) => d.version)).toEqual([3, 2, 2, 2, 2]);
  });

  test("422 reorder_mismatch unless every active item is listed exactly once; another org's ids do not count; nothing changes", async () => {
    const current = (await list("category=priority")).items as { id: string }[];
    const ids = current.map((d) => d.id);
    const foreign = (await list("category=priority", B)).items[0].id;
    const archived = await create({ category: "priority", item_name: "Archived" });
    await t.request("POST", `${A}/${archived.id}/archive`, { token: admin });
    for (const list of [ids.slice(1), [...ids, foreign], [...ids.slice(1), foreign], [...ids, archived.id], [...ids.slice(1), MISSING]]) {
      const r = await reorder({ category: "priority", definition_uuids: [...list].reverse() });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({
        code: "reorder_mismatch",
        detail: [{ loc: ["body", "definition_uuids"], msg: `Must list each of the category's ${ids.length} active items exactly once`, type: "value_error" }],
      });
    }
    // items of another category are not this category's
    const other = (await list("category=prognosis")).items.map((d: { id: string }) => d.id);
    expect((await reorder({ category: "priority", definition_uuids: other })).status).toBe(422);
    expect((await list("category=priority")).items).toEqual(current);
    expect((await list("category=priority", B)).items[0].item_order).toBe(0);
  });

  test.each([
    ["category missing", { definition_uuids: [MISSING] }, ["body", "category"], "missing"],
    ["unknown category", { category: "x", definition_uuids: [MISSING] }, ["body", "category"], "enum"],
    ["definition_uuids missing", { category: "priority" }, ["body", "definition_uuids"], "missing"],
    ["definition_uuids empty", { category: "priority", definition_uuids: [] }, ["body", "definition_uuids"], "out_of_range"],
    ["definition_uuids not uuids", { category: "priority", definition_uuids: ["x"] }, ["body", "definition_uuids", 0], "format"],
    ["repeated id", { category: "priority", definition_uuids: [MISSING, MISSING] }, ["body", "definition_uuids"], "value_error"],
    ["unknown field", { category: "priority", definition_uuids: [MISSING], base_version: 1 }, ["body", "base_version"], "extra_forbidden"],
  ])("422 %s", async (_name, body, loc, type) => {
    const r = await reorder(body);
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  test("401, 403 without definitions.write, 404 for a non-member; nothing changes", async () => {
    const current = (await list("category=priority")).items;
    const body = { category: "priority", definition_uuids: current.map((d: { id: string }) => d.id).reverse() };
    expect((await t.request("POST", `${A}/reorder`, { body })).status).toBe(401);
    expect((await reorder(body, reader)).status).toBe(403);
    expect((await reorder(body, memberOfB)).status).toBe(404);
    expect((await list("category=priority")).items).toEqual(current);
  });
});
