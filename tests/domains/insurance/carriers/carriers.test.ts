import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { insuranceCarriers } from "@db/tenant/insurance";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, expectValidationCases, unique, type TestApp } from "@tests/helpers";
import { created, insertPlan, insertSubscription, insuranceWorld, JSON_HEADERS, MISSING, storedRow } from "./fixtures";

let t: TestApp;
let admin: string;
let reader: string; // insurance.read only
let outsider: string; // a member of A without insurance keys
let orgA: string;
let orgB: string;
let A: string; // {P}/insurance/carriers of org A
let B: string;
let events: EventEnvelope[];

beforeAll(async () => {
  ({ t, admin, reader, outsider, orgA, orgB, events } = await insuranceWorld());
  A = `/api/v1/${orgA}/insurance/carriers`;
  B = `/api/v1/${orgB}/insurance/carriers`;
});
afterAll(() => t.close());

const create = (body: Record<string, unknown> = {}, P = A) => created(t, admin, P, { carrier_name: unique("Carrier"), ...body });
const read = (id: string, P = A) => t.request("GET", `${P}/${id}`, { token: admin });
const total = async () => (await t.request("GET", `${A}?page_size=1&include_hidden=true`, { token: admin })).body.total as number;
const stored = (id: string) => storedRow(t, orgA, insuranceCarriers, id);
const archive = (id: string, v = 1, P = A) => t.request("POST", `${P}/${id}/archive?base_version=${v}`, { token: admin });

const FULL = {
  carrier_name: "  Delta Dental of California ",
  carrier_group_name: "Delta Dental",
  address_line1: "PO Box 997330",
  address_line2: "Claims dept.",
  city: "Sacramento",
  state: "CA",
  zip_code: "95899-7330",
  phone: "800-765-6003",
  notes: "Send narratives for crowns",
  electronic_id: "cdca1",
  electronic_filing_type: "do_not_send_secondary_electronically",
  era_automation_override: "manual_review",
  cob_insurance_paid_behavior_override: "procedure_level",
  trust_level: "trusted",
  is_hidden: true,
};

describe("POST /insurance/carriers", () => {
  test("201 with every field; readable by id; audited and published with ids and enums only", async () => {
    const before = events.length;
    const r = await t.request("POST", A, { token: admin, body: FULL });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      ...FULL,
      carrier_name: "Delta Dental of California",
      electronic_id: "CDCA1",
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect((await read(r.body.id)).body).toEqual(r.body);
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["insurance_carrier.created"]);
    const mine = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(mine.map((e) => [e.type, e.resource_type, e.practice_id, e.data])).toEqual([
      [
        "insurance_carrier.created",
        "insurance_carrier",
        null,
        { id: r.body.id, electronic_filing_type: "do_not_send_secondary_electronically", trust_level: "trusted" },
      ],
    ]);
  });

  test("only carrier_name is required; defaults send_electronically, standard trust, not hidden, no overrides", async () => {
    const c = await create({ carrier_name: "Aetna" });
    expect(c).toMatchObject({
      carrier_name: "Aetna",
      carrier_group_name: null,
      electronic_id: null,
      electronic_filing_type: "send_electronically",
      era_automation_override: null,
      cob_insurance_paid_behavior_override: null,
      trust_level: "standard",
      is_hidden: false,
    });
  });

  test("names and electronic ids need not be unique (one payer id serves several carriers)", async () => {
    const a = await create({ carrier_name: "Cigna", electronic_id: "62308" });
    const b = await create({ carrier_name: "Cigna", electronic_id: "62308" });
    expect(a.id).not.toBe(b.id);
  });

  test("422 for missing, blank, wrong-typed, enum, format, unknown and read-only fields and malformed JSON; nothing is written", async () => {
    const n = await total();
    await expectValidationCases(t, "POST", A, admin, [
      [{}, ["body", "carrier_name"], "missing"],
      [{ carrier_name: "   " }, ["body", "carrier_name"], "out_of_range"],
      [{ carrier_name: "x".repeat(201) }, ["body", "carrier_name"], "out_of_range"],
      [{ carrier_name: 5 }, ["body", "carrier_name"], "type_error"],
      [{ carrier_name: "A", electronic_filing_type: "fax" }, ["body", "electronic_filing_type"], "enum"],
      [{ carrier_name: "A", era_automation_override: "auto" }, ["body", "era_automation_override"], "enum"],
      [{ carrier_name: "A", cob_insurance_paid_behavior_override: "default" }, ["body", "cob_insurance_paid_behavior_override"], "enum"],
      [{ carrier_name: "A", trust_level: "high" }, ["body", "trust_level"], "enum"],
      [{ carrier_name: "A", trust_level: null }, ["body", "trust_level"], "enum"],
      [{ carrier_name: "A", electronic_id: "60 054" }, ["body", "electronic_id"], "format"],
      [{ carrier_name: "A", electronic_id: "x".repeat(21) }, ["body", "electronic_id"], "format"],
      [{ carrier_name: "A", is_hidden: "true" }, ["body", "is_hidden"], "type_error"],
      [{ carrier_name: "A", notes: "x".repeat(4001) }, ["body", "notes"], "out_of_range"],
      [{ carrier_name: "A", payer_id: "x" }, ["body", "payer_id"], "extra_forbidden"],
      [{ carrier_name: "A", id: MISSING }, ["body", "id"], "read_only"],
      [{ carrier_name: "A", deleted_at: null }, ["body", "deleted_at"], "read_only"],
    ]);
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"carrier_name": ', headers: JSON_HEADERS });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
    expect(await total()).toBe(n);
  });

  test("401, 403 without insurance.write, 404 for a non-member or unknown org; nothing is written", async () => {
    const n = await total();
    const body = { carrier_name: unique("Nope") };
    expect((await t.request("POST", A, { body })).status).toBe(401);
    expect((await t.request("POST", A, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", B, { token: reader, body })).status).toBe(404);
    expect((await t.request("POST", `/api/v1/${MISSING}/insurance/carriers`, { token: admin, body })).status).toBe(404);
    expect(await total()).toBe(n);
  });
});

describe("GET /insurance/carriers", () => {
  let tag: string;
  let ids: Record<string, string>;
  beforeAll(async () => {
    tag = unique("lst").toUpperCase().replace(/-/g, "");
    const metlife = await create({ carrier_name: `MetLife ${tag}`, carrier_group_name: "MetLife", electronic_id: "65978", trust_level: "trusted" });
    const guardian = await create({ carrier_name: `guardian ${tag}`, carrier_group_name: "Guardian Life", electronic_id: "64246", trust_level: "untrusted" });
    const deltaTx = await create({ carrier_name: `Delta Dental of Texas ${tag}`, carrier_group_name: "Delta Dental", electronic_id: null });
    const deltaCa = await create({ carrier_name: `Delta Dental of California ${tag}`, carrier_group_name: "Delta Dental", electronic_id: `D${tag}` });
    const hidden = await create({ carrier_name: `Zeta Hidden ${tag}`, carrier_group_name: "Delta Dental subsidiaries", is_hidden: true });
    const gone = await create({ carrier_name: `Archived ${tag}` });
    await archive(gone.id);
    await create({ carrier_name: `Foreign ${tag}` }, B);
    ids = { metlife: metlife.id, guardian: guardian.id, deltaTx: deltaTx.id, deltaCa: deltaCa.id, hidden: hidden.id, gone: gone.id };
  });
  const list = async (qs: string, token = admin) => {
    const r = await t.request("GET", `${A}?search=${tag}&${qs}`, { token });
    expect([qs, r.status]).toEqual([qs, 200]);
    return r.body;
  };
  const idsOf = async (qs: string) => (await list(qs)).items.map((c: any) => c.id);

  test("paged by carrier_name ignoring case; hidden, archived and other orgs' carriers are left out", async () => {
    const body = await list("", reader);
    expect(body).toMatchObject({ page: 1, page_size: 50, total: 4 });
    expect(body.items.map((c: any) => c.id)).toEqual([ids.deltaCa, ids.deltaTx, ids.guardian, ids.metlife]);
    const p2 = await list("page=2&page_size=3");
    expect([p2.total, p2.page, p2.page_size, p2.items.map((c: any) => c.id)]).toEqual([4, 2, 3, [ids.metlife]]);
  });

  test("include_hidden adds hidden carriers, never archived ones", async () => {
    expect(await idsOf("include_hidden=true")).toEqual([ids.deltaCa, ids.deltaTx, ids.guardian, ids.metlife, ids.hidden]);
    expect(await idsOf("include_hidden=false")).toEqual([ids.deltaCa, ids.deltaTx, ids.guardian, ids.metlife]);
  });

  test("search matches carrier name, electronic id or group name (any case); carrier_group_name is exact (any case)", async () => {
    const one = async (qs: string) => (await t.request("GET", `${A}?${qs}`, { token: admin })).body.items.map((c: any) => c.id);
    expect(await one(`search=${`metlife ${tag}`.toLowerCase().replace(/ /g, "%20")}`)).toEqual([ids.metlife]);
    expect(await one(`search=d${tag.toLowerCase()}`)).toEqual([ids.deltaCa]);
    expect(await one("search=GUARDIAN%20LIFE")).toContain(ids.guardian);
    expect(await idsOf("carrier_group_name=delta%20dental")).toEqual([ids.deltaCa, ids.deltaTx]);
    expect(await idsOf("carrier_group_name=Delta%20Dental&include_hidden=true")).toEqual([ids.deltaCa, ids.deltaTx]);
    expect(await idsOf("carrier_group_name=Delta")).toEqual([]);
  });

  test("sort_by each column, asc and desc: text ignores case, empty values last, trust_level by rank, ties by name", async () => {
    expect(await idsOf("sort_by=carrier_name&sort_order=desc")).toEqual([ids.metlife, ids.guardian, ids.deltaTx, ids.deltaCa]);
    // 64246 < 65978 < D<tag>, the carrier without one last in both directions
    expect(await idsOf("sort_by=electronic_id")).toEqual([ids.guardian, ids.metlife, ids.deltaCa, ids.deltaTx]);
    expect(await idsOf("sort_by=electronic_id&sort_order=desc")).toEqual([ids.deltaCa, ids.metlife, ids.guardian, ids.deltaTx]);
    expect(await idsOf("sort_by=carrier_group_name")).toEqual([ids.deltaCa, ids.deltaTx, ids.guardian, ids.metlife]);
    expect(await idsOf("sort_by=carrier_group_name&sort_order=desc")).toEqual([ids.metlife, ids.guardian, ids.deltaCa, ids.deltaTx]);
    expect(await idsOf("sort_by=trust_level")).toEqual([ids.guardian, ids.deltaCa, ids.deltaTx, ids.metlife]);
    expect(await idsOf("sort_by=trust_level&sort_order=desc")).toEqual([ids.metlife, ids.deltaCa, ids.deltaTx, ids.guardian]);
    expect(await idsOf("sort_by=created_at")).toEqual([ids.metlife, ids.guardian, ids.deltaTx, ids.deltaCa]);
    expect(await idsOf("sort_by=created_at&sort_order=desc")).toEqual([ids.deltaCa, ids.deltaTx, ids.guardian, ids.metlife]);
  });

  test("422 for a bad sort_by or sort_order and other malformed query parameters", async () => {
    for (const [qs, loc, type] of [
      ["sort_by=phone", ["query", "sort_by"], "enum"],
      ["sort_by=carrier_name;drop", ["query", "sort_by"], "enum"],
      ["sort_order=up", ["query", "sort_order"], "enum"],
      ["include_hidden=yes", ["query", "include_hidden"], "enum"],
      ["page_size=201", ["query", "page_size"], "out_of_range"],
      ["page=0", ["query", "page"], "out_of_range"],
      ["name=x", ["query", "name"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("GET", `${A}?${qs}`, { token: admin });
      expect([qs, r.status]).toEqual([qs, 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    }
  });

  test("401, 403 without insurance.read, 404 for a non-member org", async () => {
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", B, { token: reader })).status).toBe(404);
  });
});

describe("GET /insurance/carriers/{id}", () => {
  test("200 with ETag; an archived carrier stays readable; 404 for a missing or another org's carrier; 401, 403, 404 non-member", async () => {
    const c = await create({ electronic_id: "60054" });
    const r = await t.request("GET", `${A}/${c.id}`, { token: reader });
    expect([r.status, r.body, r.headers.get("etag")]).toEqual([200, c, '"1"']);
    const upper = await t.request("GET", `${A}/${c.id.toUpperCase()}`, { token: reader });
    expect(upper.body.id).toBe(c.id);
    const gone = await create();
    const archived = (await archive(gone.id)).body;
    expect((await read(gone.id)).body).toEqual(archived);
    expect(archived.deleted_at).toMatch(/Z$/);
    const foreign = await create({}, B);
    for (const id of [MISSING, foreign.id, "not-a-uuid"]) {
      const miss = await read(id);
      expect([miss.status, miss.body]).toEqual([404, { detail: "Insurance carrier not found", code: "not_found" }]);
    }
    expect((await t.request("GET", `${A}/${c.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${c.id}`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${B}/${c.id}`, { token: reader })).status).toBe(404);
  });
});

describe("GET /insurance/carriers/stats", () => {
  test("plan and subscriber counts per active carrier; hidden, archived and other orgs' carriers are left out", async () => {
    const orgC = (await t.createOrg()).id;
    const C = `/api/v1/${orgC}/insurance/carriers`;
    const patient = async () => (await created(t, admin, `/api/v1/${orgC}/patients`, { first_name: "Pat", last_name: unique("Sub") })).id as string;
    const [p1, p2, p3, p4, p5] = [await patient(), await patient(), await patient(), await patient(), await patient()];
    const busy = await create({ carrier_name: "United Concordia", electronic_id: "CX014" }, C);
    const idle = await create({ carrier_name: "aetna" }, C);
    const hidden = await create({ carrier_name: "Hidden Co", is_hidden: true }, C);
    const gone = await create({ carrier_name: "Gone Co" }, C);
    const planA = await insertPlan(t, orgC, busy.id);
    const planB = await insertPlan(t, orgC, busy.id);
    const deadPlan = await insertPlan(t, orgC, busy.id, { deleted: true });
    await insertSubscription(t, orgC, planA, p1);
    await insertSubscription(t, orgC, planA, p2);
    await insertSubscription(t, orgC, planB, p1); // p1 subscribes twice: counted once
    await insertSubscription(t, orgC, planB, p3, { deleted: true });
    await insertSubscription(t, orgC, deadPlan, p4);
    const hiddenPlan = await insertPlan(t, orgC, hidden.id);
    await insertSubscription(t, orgC, hiddenPlan, p5);
    await insertPlan(t, orgC, gone.id);
    await archive(gone.id, 1, C);
    await create({ carrier_name: "Foreign" }, B);

    const r = await t.request("GET", `${C}/stats`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      items: [
        { carrier_uuid: idle.id, carrier_name: "aetna", electronic_id: null, plan_count: 0, subscriber_count: 0 },
        { carrier_uuid: busy.id, carrier_name: "United Concordia", electronic_id: "CX014", plan_count: 2, subscriber_count: 2 },
      ],
    });
  });

  test("401, 403 without insurance.read, 404 for a non-member org", async () => {
    expect((await t.request("GET", `${A}/stats`)).status).toBe(401);
    expect((await t.request("GET", `${A}/stats`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${B}/stats`, { token: reader })).status).toBe(404);
    expect((await t.request("GET", `${A}/stats`, { token: reader })).status).toBe(200);
  });
});

describe("PATCH /insurance/carriers/{id}", () => {
  test("changes the given fields, bumps the version, audits and publishes the changed field names; null clears", async () => {
    const c = await create({ electronic_id: "60054", era_automation_override: "auto_receive", notes: "old" });
    const before = events.length;
    const body = { base_version: 1, trust_level: "untrusted", era_automation_override: null, electronic_id: "cx014", notes: null, is_hidden: true };
    const r = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...c,
      trust_level: "untrusted",
      era_automation_override: null,
      electronic_id: "CX014",
      notes: null,
      is_hidden: true,
      version: 2,
      updated_at: expect.any(String),
    });
    expect((await read(c.id)).body).toEqual(r.body);
    expect((await auditOf(t, orgA, c.id)).map((a) => a.action)).toEqual(["insurance_carrier.created", "insurance_carrier.updated"]);
    const mine = events.slice(before).filter((e) => e.resource_id === c.id);
    expect(mine.map((e) => [e.type, e.data])).toEqual([
      ["insurance_carrier.updated", { id: c.id, changed_fields: ["notes", "electronic_id", "era_automation_override", "trust_level", "is_hidden"] }],
    ]);
  });

  test("409 stale base_version, 422 bad input; the row is unchanged", async () => {
    const c = await create();
    const rowBefore = await stored(c.id);
    const stale = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 2, carrier_name: "Fresh" } });
    expect([stale.status, stale.body]).toEqual([409, { detail: "The record is at version 1; reload and retry", code: "version_conflict" }]);
    await expectValidationCases(t, "PATCH", `${A}/${c.id}`, admin, [
      [{ carrier_name: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: 0, carrier_name: "X" }, ["body", "base_version"], "out_of_range"],
      [{ base_version: 1, carrier_name: null }, ["body", "carrier_name"], "type_error"],
      [{ base_version: 1, electronic_filing_type: null }, ["body", "electronic_filing_type"], "enum"],
      [{ base_version: 1, trust_level: "vip" }, ["body", "trust_level"], "enum"],
      [{ base_version: 1, electronic_id: "!" }, ["body", "electronic_id"], "format"],
      [{ base_version: 1, version: 2 }, ["body", "version"], "read_only"],
    ]);
    expect((await t.request("PATCH", `${A}/${c.id}`, { token: admin, rawBody: "{", headers: JSON_HEADERS })).status).toBe(422);
    expect(await stored(c.id)).toEqual(rowBefore);
  });

  test("422 carrier_archived for an archived carrier (stale first: 409); nothing changes", async () => {
    const c = await create();
    await archive(c.id);
    const rowBefore = await stored(c.id);
    const r = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 2, carrier_name: "Back" } });
    expect([r.status, r.body.code, r.body.detail[0].loc]).toEqual([422, "carrier_archived", ["path", "carrier_uuid"]]);
    const stale = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 1, carrier_name: "Back" } });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect(await stored(c.id)).toEqual(rowBefore);
  });

  test("404 for a missing or another org's carrier; 401, 403, 404 non-member; nothing changes", async () => {
    const foreign = await create({}, B);
    for (const id of [MISSING, foreign.id]) {
      const r = await t.request("PATCH", `${A}/${id}`, { token: admin, body: { base_version: 1, carrier_name: "Z" } });
      expect([r.status, r.body.code]).toEqual([404, "not_found"]);
    }
    expect((await storedRow(t, orgB, insuranceCarriers, foreign.id)).version).toBe(1);
    const c = await create();
    const body = { base_version: 1, carrier_name: "Y" };
    expect((await t.request("PATCH", `${A}/${c.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${c.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${B}/${c.id}`, { token: reader, body })).status).toBe(404);
    expect((await stored(c.id)).version).toBe(1);
  });
});

describe("POST /insurance/carriers/{id}/archive", () => {
  test("answers the archived record; it leaves lists and stats but stays readable by id; audited and published", async () => {
    const c = await create({ carrier_name: unique("Archive me") });
    const before = events.length;
    const r = await archive(c.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...c, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await read(c.id)).body).toEqual(r.body);
    const listed = await t.request("GET", `${A}?search=${c.carrier_name}&include_hidden=true`, { token: admin });
    expect(listed.body.total).toBe(0);
    const stats = await t.request("GET", `${A}/stats`, { token: admin });
    expect(stats.body.items.map((i: any) => i.carrier_uuid)).not.toContain(c.id);
    expect((await auditOf(t, orgA, c.id)).map((a) => a.action)).toEqual(["insurance_carrier.created", "insurance_carrier.archived"]);
    const mine = events.slice(before).filter((e) => e.resource_id === c.id);
    expect(mine.map((e) => [e.type, e.data])).toEqual([["insurance_carrier.archived", { id: c.id, changed_fields: ["deleted_at"] }]]);
  });

  test("409 stale, 422 without base_version, 422 carrier_archived when archived already, 404 missing / another org's, 401, 403; nothing changes", async () => {
    const c = await create();
    const stale = await archive(c.id, 2);
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const noVersion = await t.request("POST", `${A}/${c.id}/archive`, { token: admin });
    expect(noVersion.status).toBe(422);
    expect(noVersion.body.detail[0]).toMatchObject({ loc: ["query", "base_version"], type: "missing" });
    const gone = await create();
    await archive(gone.id);
    const again = await archive(gone.id, 2);
    expect([again.status, again.body.code]).toEqual([422, "carrier_archived"]);
    expect((await stored(gone.id)).version).toBe(2);
    const foreign = await create({}, B);
    for (const id of [MISSING, foreign.id]) expect((await archive(id)).status).toBe(404);
    expect((await storedRow(t, orgB, insuranceCarriers, foreign.id)).deleted_at).toBeNull();
    expect((await t.request("POST", `${A}/${c.id}/archive?base_version=1`)).status).toBe(401);
    expect((await t.request("POST", `${A}/${c.id}/archive?base_version=1`, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${B}/${c.id}/archive?base_version=1`, { token: reader })).status).toBe(404);
    const row = await stored(c.id);
    expect([row.version, row.deleted_at]).toEqual([1, null]);
  });
});
