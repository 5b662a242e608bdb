import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, unique, expectValidationCases, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { requireProvider } from "@/domains/providers/record/service";
import { NotFound } from "@/platform/errors";
import { withoutIdsAndTimes } from "@tests/support/secrets";

let t: TestApp;
let admin: string;
let orgA: string;
let A: string; // {P}/providers of org A
let B: string;
let reader: string; // providers.read only
let outsider: string; // a member of A holding no provider keys
let memberOfB: string; // a member of B only (holds providers.* there)
let events: EventEnvelope[];

const NPI = "1234567893";
const NPI2 = "9876543213";
const MISSING = "01970000-0000-7000-8000-000000000000";

beforeAll(async () => {
  const w = await twoOrgApp(
    { reader: ["providers.read"], outsider: ["locations.read"], memberOfB: { org: "B", keys: ["providers.read", "providers.write"] } },
    { events: true },
  );
  ({ t, admin, orgA, events } = w);
  ({ reader, outsider, memberOfB } = w.tokens);
  A = `${w.pathA}/providers`;
  B = `${w.pathB}/providers`;
});
afterAll(() => t.close());

async function create(body: Record<string, unknown> = {}, P = A) {
  const r = await t.request("POST", P, { token: admin, body: { abbreviation: unique("AB").slice(-12), first_name: "Jane", last_name: "Doe", ...body } });
  if (r.status !== 201) throw new Error(`create provider failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, P = A) => (await t.request("GET", `${P}/${id}`, { token: admin })).body;
const count = async (P = A) => (await t.request("GET", `${P}?page_size=1`, { token: admin })).body.total as number;

describe("POST /providers", () => {
  test("201 with every field of the record; refs, money and title; audited (SSN masked) and published", async () => {
    const boss = await create({ first_name: "Ada", last_name: "Lovelace" });
    const before = events.length;
    const r = await t.request("POST", A, {
      token: admin,
      body: {
        abbreviation: " SMITH1 ",
        first_name: " John ",
        last_name: "Smith",
        middle_name: "Q",
        preferred_name: "Jack",
        suffix: "DDS",
        title: "Dr.",
        billing_override_provider_uuid: boss.id,
        birthdate: "1980-04-12",
        custom_id: "C-17",
        date_term: "2030-12-31",
        erx_enabled: "enabled",
        hourly_production_goal: 250.5,
        is_hidden: true,
        is_hidden_report: true,
        is_instructor: true,
        is_not_person: false,
        is_secondary: true,
        item_order: 3,
        medicaid_id: "MD-99",
        national_provider_id: NPI,
        outline_color: -16777216,
        provider_color: 3368703,
        provider_type_uuid: "0197AAAA-0000-7000-8000-000000000001",
        schedule_note: "Mornings only",
        sig_on_file: true,
        specialty_uuid: "0197bbbb-0000-7000-8000-000000000002",
        ssn_tin: "123-45-6789",
        status: "inactive",
        taxonomy_code_override: "1223G0001X",
        using_tin: true,
      },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      abbreviation: "SMITH1",
      first_name: "John",
      last_name: "Smith",
      middle_name: "Q",
      preferred_name: "Jack",
      suffix: "DDS",
      title: "Dr.",
      billing_override_provider: { uuid: boss.id, name: "Ada Lovelace" },
      birthdate: "1980-04-12",
      custom_id: "C-17",
      date_term: "2030-12-31",
      erx_enabled: "enabled",
      hourly_production_goal: "250.50",
      is_hidden: true,
      is_hidden_report: true,
      is_instructor: true,
      is_not_person: false,
      is_secondary: true,
      item_order: 3,
      medicaid_id: "MD-99",
      national_provider_id: NPI,
      outline_color: -16777216,
      provider_color: 3368703,
      provider_type: { uuid: "0197aaaa-0000-7000-8000-000000000001", name: null },
      provider_type_name: null,
      schedule_note: "Mornings only",
      sig_on_file: true,
      specialty: { uuid: "0197bbbb-0000-7000-8000-000000000002", name: null },
      specialty_name: null,
      ssn_tin: "123-45-6789",
      status: "inactive",
      taxonomy_code_override: "1223G0001X",
      using_tin: true,
      fee_schedule: null,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect(await read(r.body.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit.map((a) => a.action)).toEqual(["provider.created"]);
    expect(audit[0].after.first_name).toBe("John");
    expect(audit[0].after.ssn_tin).toBe("***6789");
    const mine = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(mine.map((e) => [e.type, e.resource_type])).toEqual([["provider.created", "provider"]]);
    expect(withoutIdsAndTimes(JSON.stringify(mine))).not.toContain("6789");
  });

  test("defaults: status active, booleans false, item_order 0, optional fields null", async () => {
    const p = await create({ first_name: "Min", last_name: "Imal" });
    expect(p).toMatchObject({
      status: "active",
      is_hidden: false,
      is_hidden_report: false,
      is_instructor: false,
      is_not_person: false,
      is_secondary: false,
      sig_on_file: false,
      using_tin: false,
      item_order: 0,
      title: null,
      hourly_production_goal: null,
      billing_override_provider: null,
      provider_type: null,
      specialty: null,
      national_provider_id: null,
      ssn_tin: null,
      deleted_at: null,
      version: 1,
    });
  });

  test("money: whole numbers and cents render with two decimals", async () => {
    expect((await create({ hourly_production_goal: 100 })).hourly_production_goal).toBe("100.00");
    expect((await create({ hourly_production_goal: 0.1 })).hourly_production_goal).toBe("0.10");
    expect((await create({ hourly_production_goal: 1234.99 })).hourly_production_goal).toBe("1234.99");
  });

  test("409 duplicate abbreviation among non-archived providers (case-insensitive); an archived provider's is reusable", async () => {
    const abbr = unique("DUP").slice(-10).toUpperCase();
    await create({ abbreviation: abbr });
    const total = await count();
    const r = await t.request("POST", A, { token: admin, body: { abbreviation: ` ${abbr.toLowerCase()} `, first_name: "X", last_name: "Y" } });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: expect.any(String), code: "duplicate" });
    expect(await count()).toBe(total);
    // the same abbreviation in another org is fine
    expect((await create({ abbreviation: abbr }, B)).abbreviation).toBe(abbr);
    const old = await create({ abbreviation: `${abbr}Z` });
    await t.request("POST", `${A}/${old.id}/archive`, { token: admin });
    expect((await create({ abbreviation: `${abbr}Z` })).abbreviation).toBe(`${abbr}Z`);
  });

  test("404 when billing_override_provider_uuid is unknown, archived or another org's; nothing is written", async () => {
    const archived = await create();
    await t.request("POST", `${A}/${archived.id}/archive`, { token: admin });
    const foreign = await create({}, B);
    const total = await count();
    for (const id of [MISSING, archived.id, foreign.id]) {
      const r = await t.request("POST", A, {
        token: admin,
        body: { abbreviation: unique("O").slice(-10), first_name: "A", last_name: "B", billing_override_provider_uuid: id },
      });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Billing override provider not found", code: "not_found" });
    }
    expect(await count()).toBe(total);
  });

  test("422 for missing, wrong-typed, out-of-range, enum, format, unknown and read-only fields; nothing is written", async () => {
    const total = await count();
    const ok = { abbreviation: "OK1", first_name: "A", last_name: "B" };
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ first_name: "A", last_name: "B" }, ["body", "abbreviation"], "missing"],
      [{ abbreviation: "Q", last_name: "B" }, ["body", "first_name"], "missing"],
      [{ abbreviation: "Q", first_name: "A" }, ["body", "last_name"], "missing"],
      [{ ...ok, first_name: "   " }, ["body", "first_name"], "out_of_range"],
      [{ ...ok, abbreviation: "X".repeat(21) }, ["body", "abbreviation"], "out_of_range"],
      [{ ...ok, is_hidden: "yes" }, ["body", "is_hidden"], "type_error"],
      [{ ...ok, item_order: 1.5 }, ["body", "item_order"], "type_error"],
      [{ ...ok, item_order: -1 }, ["body", "item_order"], "out_of_range"],
      [{ ...ok, provider_color: "red" }, ["body", "provider_color"], "type_error"],
      [{ ...ok, hourly_production_goal: "250" }, ["body", "hourly_production_goal"], "type_error"],
      [{ ...ok, hourly_production_goal: -5 }, ["body", "hourly_production_goal"], "out_of_range"],
      [{ ...ok, hourly_production_goal: 10.005 }, ["body", "hourly_production_goal"], "value_error"],
      [{ ...ok, status: "retired" }, ["body", "status"], "enum"],
      [{ ...ok, birthdate: "1980-02-30" }, ["body", "birthdate"], "format"],
      [{ ...ok, date_term: "31/12/2030" }, ["body", "date_term"], "format"],
      [{ ...ok, national_provider_id: "1234567890" }, ["body", "national_provider_id"], "value_error"],
      [{ ...ok, national_provider_id: "123456789" }, ["body", "national_provider_id"], "value_error"],
      [{ ...ok, national_provider_id: 1234567893 }, ["body", "national_provider_id"], "type_error"],
      [{ ...ok, ssn_tin: "12345" }, ["body", "ssn_tin"], "format"],
      [{ ...ok, taxonomy_code_override: "12-3" }, ["body", "taxonomy_code_override"], "format"],
      [{ ...ok, provider_type_uuid: "not-a-uuid" }, ["body", "provider_type_uuid"], "format"],
      [{ ...ok, nickname: "x" }, ["body", "nickname"], "extra_forbidden"],
      [{ ...ok, id: MISSING }, ["body", "id"], "read_only"],
      [{ ...ok, version: 3 }, ["body", "version"], "read_only"],
    ];
    await expectValidationCases(t, "POST", A, admin, cases);
    // derived fields are refused too (read_only once the platform reads a schema's declared derived fields)
    for (const field of ["provider_type_name", "specialty_name", "billing_override_provider", "specialty"]) {
      const r = await t.request("POST", A, { token: admin, body: { ...ok, [field]: "x" } });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", field]);
      expect(["read_only", "extra_forbidden"]).toContain(r.body.detail[0].type);
    }
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"abbreviation": "X",', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect(await count()).toBe(total);
  });

  test("401 without a token, 403 without providers.write, 404 for a non-member or unknown org; nothing is written", async () => {
    const total = await count();
    const body = { abbreviation: "NOPE", first_name: "A", last_name: "B" };
    const anon = await t.request("POST", A, { body });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    const r403 = await t.request("POST", A, { token: reader, body });
    expect(r403.status).toBe(403);
    expect(r403.body.code).toBe("forbidden");
    expect((await t.request("POST", A, { token: memberOfB, body })).status).toBe(404);
    expect((await t.request("POST", `/api/v1/${MISSING}/providers`, { token: admin, body })).status).toBe(404);
    expect(await count()).toBe(total);
  });
});

describe("GET /providers", () => {
  let org: string;
  let P: string;
  const ids: Record<string, string> = {};
  const TYPE = "0197cccc-0000-7000-8000-000000000003";
  beforeAll(async () => {
    org = (await t.createOrg()).id;
    P = `/api/v1/${org}/providers`;
    const rows: Record<string, unknown>[] = [
      { abbreviation: "BRN", first_name: "Carla", last_name: "Brown", item_order: 1 },
      { abbreviation: "ADM", first_name: "Bob", last_name: "Adams", item_order: 1, provider_type_uuid: TYPE },
      { abbreviation: "HYG1", first_name: "Zoe", last_name: "Young", item_order: 0, is_hidden: true, provider_type_uuid: TYPE },
      { abbreviation: "OLD", first_name: "Old", last_name: "Timer", item_order: 2, status: "terminated" },
      { abbreviation: "IN", first_name: "Ina", last_name: "Active", item_order: 2, status: "inactive", preferred_name: "Inny" },
    ];
    for (const body of rows) ids[body.abbreviation as string] = (await create(body, P)).id;
    ids.GONE = (await create({ abbreviation: "GONE" }, P)).id;
    await t.request("POST", `${P}/${ids.GONE}/archive`, { token: admin });
  });
  const abbrs = async (qs: string, token = admin) => {
    const r = await t.request("GET", `${P}${qs}`, { token });
    expect(r.status).toBe(200);
    return r.body.items.map((p: { abbreviation: string }) => p.abbreviation);
  };

  test("paged, ordered by item_order then last and first name; archived providers are left out", async () => {
    const r = await t.request("GET", P, { token: admin });
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 5 });
    expect(r.body.items.map((p: { abbreviation: string }) => p.abbreviation)).toEqual(["HYG1", "ADM", "BRN", "IN", "OLD"]);
    const p2 = (await t.request("GET", `${P}?page=2&page_size=2`, { token: admin })).body;
    expect(p2).toMatchObject({ page: 2, page_size: 2, total: 5 });
    expect(p2.items.map((p: { abbreviation: string }) => p.abbreviation)).toEqual(["BRN", "IN"]);
    expect((await t.request("GET", `${P}?page=9`, { token: admin })).body).toMatchObject({ items: [], total: 5 });
  });

  test("filters: status, is_hidden, provider_type_uuid, search on names and abbreviation; unknown parameters are 422", async () => {
    expect(await abbrs("?status=active")).toEqual(["HYG1", "ADM", "BRN"]);
    expect(await abbrs("?status=terminated")).toEqual(["OLD"]);
    expect(await abbrs("?is_hidden=true")).toEqual(["HYG1"]);
    expect(await abbrs("?is_hidden=false&status=active")).toEqual(["ADM", "BRN"]);
    expect(await abbrs(`?provider_type_uuid=${TYPE}`)).toEqual(["HYG1", "ADM"]);
    expect(await abbrs("?search=brown")).toEqual(["BRN"]);
    expect(await abbrs("?search=hyg")).toEqual(["HYG1"]);
    expect(await abbrs(`?search=${encodeURIComponent("Bob Adams")}`)).toEqual(["ADM"]);
    expect(await abbrs("?search=inny")).toEqual(["IN"]);
    expect(await abbrs("?search=gone")).toEqual([]);
    expect(await abbrs("?search=zzz")).toEqual([]);
    expect(await abbrs("?status=inactive")).toEqual(["IN"]);
    const unknown = await t.request("GET", `${A}?_=12345&status=inactive`, { token: admin });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toEqual([{ loc: ["query", "_"], msg: "Unknown field", type: "extra_forbidden" }]);
  });

  test("a providers.read member may list; items are full records", async () => {
    const r = await t.request("GET", A, { token: reader });
    expect(r.status).toBe(200);
    expect(r.body.items.length).toBeGreaterThan(0);
    expect(Object.keys(r.body.items[0])).toContain("billing_override_provider");
  });

  test("the billing override provider's name is resolved in lists", async () => {
    const boss = await create({ abbreviation: "BOSS", first_name: "Big", last_name: "Boss", item_order: 9 }, P);
    await create({ abbreviation: "SUB", first_name: "Sub", last_name: "Ordinate", item_order: 9, billing_override_provider_uuid: boss.id }, P);
    const items = (await t.request("GET", `${P}?search=ordinate`, { token: admin })).body.items;
    expect(items.map((p: { billing_override_provider: unknown }) => p.billing_override_provider)).toEqual([{ uuid: boss.id, name: "Big Boss" }]);
  });

  test("422 for bad paging and filter values", async () => {
    const cases: [string, string][] = [
      ["page=0", "page"],
      ["page_size=201", "page_size"],
      ["page_size=abc", "page_size"],
      ["status=retired", "status"],
      ["is_hidden=maybe", "is_hidden"],
      ["provider_type_uuid=nope", "provider_type_uuid"],
    ];
    for (const [qs, field] of cases) {
      const r = await t.request("GET", `${P}?${qs}`, { token: admin });
      expect({ qs, status: r.status }).toEqual({ qs, status: 422 });
      expect(r.body.detail[0].loc).toEqual(["query", field]);
    }
  });

  test("401, 403 without providers.read, 404 for a non-member org", async () => {
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", A, { token: memberOfB })).status).toBe(404);
  });
});

describe("GET /providers/summary", () => {
  test("counts non-archived providers by status set; hidden ones only on request", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/providers`;
    await create({ abbreviation: "A1" }, P);
    await create({ abbreviation: "A2", is_hidden: true }, P);
    await create({ abbreviation: "I1", status: "inactive" }, P);
    await create({ abbreviation: "T1", status: "terminated" }, P);
    const gone = await create({ abbreviation: "A3" }, P);
    await t.request("POST", `${P}/${gone.id}/archive`, { token: admin });
    const sum = async (qs: string) => {
      const r = await t.request("GET", `${P}/summary${qs}`, { token: admin });
      expect(r.status).toBe(200);
      return r.body;
    };
    expect(await sum("")).toEqual({ include_hidden: false, status_set: ["active"], total: 1 });
    expect(await sum("?include_hidden=true")).toEqual({ include_hidden: true, status_set: ["active"], total: 2 });
    expect(await sum("?status_set=active&status_set=inactive")).toEqual({ include_hidden: false, status_set: ["active", "inactive"], total: 2 });
    expect(await sum("?status_set=terminated")).toEqual({ include_hidden: false, status_set: ["terminated"], total: 1 });
    const bad = await t.request("GET", `${P}/summary?status_set=retired`, { token: admin });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc[1]).toBe("status_set");
    expect((await t.request("GET", `${P}/summary?include_hidden=perhaps`, { token: admin })).status).toBe(422);
  });

  test("401, 403, 404", async () => {
    expect((await t.request("GET", `${A}/summary`)).status).toBe(401);
    expect((await t.request("GET", `${A}/summary`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${A}/summary`, { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", `${A}/summary`, { token: reader })).status).toBe(200);
  });
});

describe("GET /providers/{provider_uuid}", () => {
  test("200 with ETag for a providers.read member", async () => {
    const p = await create({ title: "Dr." });
    const r = await t.request("GET", `${A}/${p.id}`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual(p);
  });

  test("404 for an unknown id, a malformed id, another org's provider and an archived provider", async () => {
    const foreign = await create({}, B);
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    for (const id of [MISSING, "not-a-uuid", foreign.id, gone.id]) {
      const r = await t.request("GET", `${A}/${id}`, { token: admin });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Provider not found", code: "not_found" });
    }
  });

  test("401, 403, 404 for a non-member org", async () => {
    const p = await create();
    expect((await t.request("GET", `${A}/${p.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${p.id}`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${A}/${p.id}`, { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", `${B}/${p.id}`, { token: memberOfB })).status).toBe(404);
  });
});

describe("PATCH /providers/{provider_uuid}", () => {
  test("200: changes the sent fields only, bumps the version, clears with null; audited and published with changed field names", async () => {
    const boss = await create({ first_name: "Grace", last_name: "Hopper" });
    const p = await create({ middle_name: "M", hourly_production_goal: 100, national_provider_id: NPI });
    const before = events.length;
    const r = await t.request("PATCH", `${A}/${p.id}`, {
      token: admin,
      body: {
        base_version: 1,
        first_name: "Janet",
        middle_name: null,
        hourly_production_goal: 175.25,
        national_provider_id: NPI2,
        billing_override_provider_uuid: boss.id,
        status: "inactive",
        title: "Dr.",
      },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...p,
      first_name: "Janet",
      middle_name: null,
      hourly_production_goal: "175.25",
      national_provider_id: NPI2,
      billing_override_provider: { uuid: boss.id, name: "Grace Hopper" },
      status: "inactive",
      title: "Dr.",
      version: 2,
      updated_at: expect.any(String),
    });
    expect(await read(p.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, p.id);
    expect(audit.map((a) => a.action)).toEqual(["provider.created", "provider.updated"]);
    expect(audit[1].before.first_name).toBe("Jane");
    expect(audit[1].after.first_name).toBe("Janet");
    const ev = events.slice(before).filter((e) => e.resource_id === p.id);
    expect(ev.map((e) => e.type)).toEqual(["provider.updated"]);
    expect((ev[0]!.data.changed_fields as string[]).sort()).toEqual(
      ["billing_override_provider_id", "first_name", "hourly_production_goal_cents", "middle_name", "national_provider_id", "status", "title"].sort(),
    );
    // clearing the override and the goal
    const c = await t.request("PATCH", `${A}/${p.id}`, {
      token: admin,
      body: { base_version: 2, billing_override_provider_uuid: null, hourly_production_goal: null },
    });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ billing_override_provider: null, hourly_production_goal: null, version: 3 });
  });

  test("keeping its own abbreviation is fine; taking another provider's is 409 duplicate and changes nothing", async () => {
    const a = await create({ abbreviation: unique("KA").slice(-10) });
    const b = await create({ abbreviation: unique("KB").slice(-10) });
    const same = await t.request("PATCH", `${A}/${a.id}`, { token: admin, body: { base_version: 1, abbreviation: a.abbreviation.toLowerCase() } });
    expect(same.status).toBe(200);
    const r = await t.request("PATCH", `${A}/${b.id}`, { token: admin, body: { base_version: 1, abbreviation: a.abbreviation, first_name: "Changed" } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("duplicate");
    expect(await read(b.id)).toEqual(b);
  });

  test("409 version_conflict on a stale base_version; the record is unchanged", async () => {
    const p = await create();
    await t.request("PATCH", `${A}/${p.id}`, { token: admin, body: { base_version: 1, first_name: "Second" } });
    const r = await t.request("PATCH", `${A}/${p.id}`, { token: admin, body: { base_version: 1, first_name: "Lost" } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("version_conflict");
    const now = await read(p.id);
    expect(now.first_name).toBe("Second");
    expect(now.version).toBe(2);
  });

  test("billing override: 404 for unknown or archived providers, 422 for itself; the record is unchanged", async () => {
    const p = await create();
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    for (const id of [MISSING, gone.id]) {
      const r = await t.request("PATCH", `${A}/${p.id}`, { token: admin, body: { base_version: 1, billing_override_provider_uuid: id } });
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe("Billing override provider not found");
    }
    const self = await t.request("PATCH", `${A}/${p.id}`, { token: admin, body: { base_version: 1, billing_override_provider_uuid: p.id } });
    expect(self.status).toBe(422);
    expect(self.body.detail[0]).toMatchObject({ loc: ["body", "billing_override_provider_uuid"], type: "value_error" });
    expect(await read(p.id)).toEqual(p);
  });

  test("422: missing base_version, null for a required field, invalid NPI, unknown and read-only fields; the record is unchanged", async () => {
    const p = await create();
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ first_name: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: 0, first_name: "X" }, ["body", "base_version"], "out_of_range"],
      [{ base_version: "1", first_name: "X" }, ["body", "base_version"], "type_error"],
      [{ base_version: 1, first_name: null }, ["body", "first_name"], "type_error"],
      [{ base_version: 1, is_secondary: null }, ["body", "is_secondary"], "type_error"],
      [{ base_version: 1, national_provider_id: "9876543210" }, ["body", "national_provider_id"], "value_error"],
      [{ base_version: 1, status: "gone" }, ["body", "status"], "enum"],
      [{ base_version: 1, created_at: "2020-01-01T00:00:00Z" }, ["body", "created_at"], "read_only"],
      [{ base_version: 1, colour: 1 }, ["body", "colour"], "extra_forbidden"],
    ];
    await expectValidationCases(t, "PATCH", `${A}/${p.id}`, admin, cases);
    const bad = await t.request("PATCH", `${A}/${p.id}`, { token: admin, rawBody: "{nope", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    expect(await read(p.id)).toEqual(p);
  });

  test("404 for an unknown id and another org's provider (which stays unchanged)", async () => {
    const foreign = await create({}, B);
    expect((await t.request("PATCH", `${A}/${MISSING}`, { token: admin, body: { base_version: 1, first_name: "X" } })).status).toBe(404);
    const r = await t.request("PATCH", `${A}/${foreign.id}`, { token: admin, body: { base_version: 1, first_name: "Hijack" } });
    expect(r.status).toBe(404);
    expect(await read(foreign.id, B)).toEqual(foreign);
  });

  test("401, 403 for a providers.read member, 404 for a non-member org; the record is unchanged", async () => {
    const p = await create();
    const body = { base_version: 1, first_name: "Nope" };
    expect((await t.request("PATCH", `${A}/${p.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${p.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${A}/${p.id}`, { token: memberOfB, body })).status).toBe(404);
    expect(await read(p.id)).toEqual(p);
  });
});

describe("POST /providers/{provider_uuid}/archive", () => {
  test("200 with deleted_at and a new version; then 404 and out of lists; audited and published", async () => {
    const p = await create();
    const before = events.length;
    const r = await t.request("POST", `${A}/${p.id}/archive`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...p, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await t.request("GET", `${A}/${p.id}`, { token: admin })).status).toBe(404);
    const list = (await t.request("GET", `${A}?page_size=200`, { token: admin })).body.items.map((x: { id: string }) => x.id);
    expect(list).not.toContain(p.id);
    expect((await t.request("POST", `${A}/${p.id}/archive`, { token: admin })).status).toBe(404);
    expect((await auditOf(t, orgA, p.id)).map((a) => a.action)).toEqual(["provider.created", "provider.archived"]);
    expect(
      events
        .slice(before)
        .filter((e) => e.resource_id === p.id)
        .map((e) => e.type),
    ).toEqual(["provider.archived"]);
  });

  test("a billing override ref keeps the archived provider's name", async () => {
    const boss = await create({ first_name: "Kept", last_name: "Name" });
    const sub = await create({ billing_override_provider_uuid: boss.id });
    await t.request("POST", `${A}/${boss.id}/archive`, { token: admin });
    expect((await read(sub.id)).billing_override_provider).toEqual({ uuid: boss.id, name: "Kept Name" });
  });

  test("409 for a stale ?base_version; 200 for the current one", async () => {
    const p = await create();
    const stale = await t.request("POST", `${A}/${p.id}/archive?base_version=2`, { token: admin });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    expect(await read(p.id)).toEqual(p);
    expect((await t.request("POST", `${A}/${p.id}/archive?base_version=x`, { token: admin })).status).toBe(422);
    expect((await t.request("POST", `${A}/${p.id}/archive?base_version=1`, { token: admin })).status).toBe(200);
  });

  test("404 unknown and another org's; 401, 403, 404 non-member; the record is unchanged", async () => {
    const p = await create();
    const foreign = await create({}, B);
    expect((await t.request("POST", `${A}/${MISSING}/archive`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${A}/${foreign.id}/archive`, { token: admin })).status).toBe(404);
    expect(await read(foreign.id, B)).toEqual(foreign);
    expect((await t.request("POST", `${A}/${p.id}/archive`)).status).toBe(401);
    expect((await t.request("POST", `${A}/${p.id}/archive`, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${A}/${p.id}/archive`, { token: memberOfB })).status).toBe(404);
    expect(await read(p.id)).toEqual(p);
  });
});

describe("requireProvider (for other domains' units of work)", () => {
  test("returns the row of a live provider; 404 Provider for unknown and archived ones", async () => {
    const p = await create({ title: "Dr." });
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    const org = (await t.rt.access.org(orgA))!;
    const db = await t.rt.orgDbs.get(org.id, org.shard);
    const row = await db.read((d) => requireProvider(d, p.id));
    expect(row).toMatchObject({ id: p.id, first_name: "Jane", last_name: "Doe", title: "Dr." });
    for (const id of [gone.id, MISSING]) {
      const err = await Promise.resolve()
        .then(() => db.read((d) => requireProvider(d, id)))
        .catch((e) => e);
      expect(err).toBeInstanceOf(NotFound);
      expect(err.message).toBe("Provider not found");
    }
  });
});
