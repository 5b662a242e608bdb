import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { estimateBooks } from "@db/tenant/insurance";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, unique, type TestApp } from "@tests/helpers";
import { booksPath, bookWorld, created, insertCarrier, insertPlan, JSON_HEADERS, MISSING, rowsOf, SETUP_TIMEOUT_MS } from "./fixtures";

let t: TestApp;
let admin: string;
let reader: string; // insurance.read only
let outsider: string; // a member of A without insurance keys
let orgA: string;
let orgB: string;
let A: string; // {P}/insurance/estimate-books of org A
let B: string;
let events: EventEnvelope[];
let carrier: string;
let plan: string; // a plan of `carrier`
let otherCarrier: string;

beforeAll(async () => {
  ({ t, admin, reader, outsider, orgA, orgB, events } = await bookWorld());
  A = booksPath(orgA);
  B = booksPath(orgB);
  carrier = await insertCarrier(t, orgA, { carrier_name: "Delta Dental of Ohio" });
  otherCarrier = await insertCarrier(t, orgA, { carrier_name: "MetLife" });
  plan = await insertPlan(t, orgA, { carrier_id: carrier, plan_name: "Acme Corp PPO", group_number: "G-100" });
}, SETUP_TIMEOUT_MS);
afterAll(() => t.close());

const create = (body: Record<string, unknown> = {}, P = A) => created(t, admin, P, { name: unique("Book"), rule_type: "manual_fee_schedule", ...body });
const books = () => rowsOf(t, orgA, estimateBooks);

describe("POST /estimate-books", () => {
  test("201 with every field; readable by id; audited and published with ids only", async () => {
    const before = events.length;
    const scheduleName = unique("Delta PPO fees");
    const schedule = (await t.request("POST", `/api/v1/${orgA}/fee-schedules`, { token: admin, body: { name: scheduleName, schedule_type: "ppo" } })).body.id;
    const body = {
      name: " Delta PPO allowed fees ",
      rule_type: "allowed_from_claims",
      scope_type: "carrier",
      carrier_uuid: carrier.toUpperCase(),
      allowed_fee_schedule_uuid: schedule,
      claim_match_method: "group_number",
      exclude_over_ucr: true,
      status: "active",
    };
    const r = await t.request("POST", A, { token: admin, body });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      name: "Delta PPO allowed fees",
      rule_type: "allowed_from_claims",
      scope_type: "carrier",
      status: "active",
      allowed_fee_schedule: { uuid: schedule, name: scheduleName },
      carrier: { uuid: carrier, name: "Delta Dental of Ohio" },
      insurance_plan: null,
      claim_match_method: "group_number",
      exclude_over_ucr: true,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect((await t.request("GET", `${A}/${r.body.id}`, { token: reader })).body).toEqual(r.body);
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["estimate_book.created"]);
    const mine = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(mine.map((e) => [e.type, e.resource_type, e.data])).toEqual([
      [
        "estimate_book.created",
        "estimate_book",
        { id: r.body.id, scope_type: "carrier", rule_type: "allowed_from_claims", status: "active", carrier_id: carrier, insurance_plan_id: null },
      ],
    ]);
  });

  test("only name and rule_type are required: tenant scope, active, exclude_over_ucr false", async () => {
    const b = await create({ rule_type: "ucr_fallback" });
    expect(b).toMatchObject({
      rule_type: "ucr_fallback",
      scope_type: "tenant",
      status: "active",
      carrier: null,
      insurance_plan: null,
      allowed_fee_schedule: null,
      claim_match_method: null,
      exclude_over_ucr: false,
    });
  });

  test("a plan book names its plan, and may name the plan's carrier; status archived is accepted", async () => {
    const a = await create({ scope_type: "plan", insurance_plan_uuid: plan });
    expect([a.insurance_plan, a.carrier]).toEqual([{ uuid: plan, name: "Acme Corp PPO" }, null]);
    const b = await create({ scope_type: "plan", insurance_plan_uuid: plan, carrier_uuid: carrier, status: "archived" });
    expect([b.insurance_plan.uuid, b.carrier.uuid, b.status]).toEqual([plan, carrier, "archived"]);
  });

  test("422 invalid_scope: each scope names exactly its references; nothing is written", async () => {
    const n = (await books()).length;
    const cases: [Record<string, unknown>, string[][]][] = [
      [{ scope_type: "carrier" }, [["body", "carrier_uuid"]]],
      [{ scope_type: "carrier", carrier_uuid: carrier, insurance_plan_uuid: plan }, [["body", "insurance_plan_uuid"]]],
      [{ scope_type: "plan" }, [["body", "insurance_plan_uuid"]]],
      [{ scope_type: "plan", carrier_uuid: carrier }, [["body", "insurance_plan_uuid"]]],
      [{ carrier_uuid: carrier }, [["body", "carrier_uuid"]]],
      [
        { scope_type: "tenant", carrier_uuid: carrier, insurance_plan_uuid: plan },
        [
          ["body", "carrier_uuid"],
          ["body", "insurance_plan_uuid"],
        ],
      ],
      [{ scope_type: "plan", insurance_plan_uuid: plan, carrier_uuid: otherCarrier }, [["body", "carrier_uuid"]]],
    ];
    for (const [extra, locs] of cases) {
      const r = await t.request("POST", A, { token: admin, body: { name: "Scoped", rule_type: "manual_fee_schedule", ...extra } });
      expect([JSON.stringify(extra), r.status, r.body.code]).toEqual([JSON.stringify(extra), 422, "invalid_scope"]);
      expect(r.body.detail.map((d: any) => d.loc)).toEqual(locs);
    }
    expect((await books()).length).toBe(n);
  });

  test("404 when the carrier or plan is missing, archived or another org's; nothing is written", async () => {
    const n = (await books()).length;
    const gone = await insertCarrier(t, orgA, { deleted: true });
    const foreign = await insertCarrier(t, orgB);
    for (const id of [MISSING, gone, foreign]) {
      const r = await t.request("POST", A, { token: admin, body: { name: "X", rule_type: "manual_fee_schedule", scope_type: "carrier", carrier_uuid: id } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Insurance carrier not found", code: "not_found" });
    }
    const gonePlan = await insertPlan(t, orgA, { carrier_id: carrier, deleted: true });
    const foreignPlan = await insertPlan(t, orgB, { carrier_id: foreign });
    for (const id of [MISSING, gonePlan, foreignPlan]) {
      const r = await t.request("POST", A, {
        token: admin,
        body: { name: "X", rule_type: "manual_fee_schedule", scope_type: "plan", insurance_plan_uuid: id },
      });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Insurance plan not found", code: "not_found" });
    }
    expect((await books()).length).toBe(n);
  });

  test("422 for missing, blank, wrong-typed, enum, unknown and read-only fields and malformed JSON; nothing is written", async () => {
    const n = (await books()).length;
    const ok = { name: "A", rule_type: "manual_fee_schedule" };
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ rule_type: "manual_fee_schedule" }, ["body", "name"], "missing"],
      [{ name: "A" }, ["body", "rule_type"], "missing"],
      [{ ...ok, name: "  " }, ["body", "name"], "out_of_range"],
      [{ ...ok, name: "x".repeat(201) }, ["body", "name"], "out_of_range"],
      [{ ...ok, rule_type: "fee_schedule" }, ["body", "rule_type"], "enum"],
      [{ ...ok, scope_type: "location" }, ["body", "scope_type"], "enum"],
      [{ ...ok, status: "inactive" }, ["body", "status"], "enum"],
      [{ ...ok, exclude_over_ucr: "yes" }, ["body", "exclude_over_ucr"], "type_error"],
      [{ ...ok, carrier_uuid: "abc" }, ["body", "carrier_uuid"], "format"],
      [{ ...ok, claim_match_method: "" }, ["body", "claim_match_method"], "out_of_range"],
      [{ ...ok, carrier: { uuid: carrier } }, ["body", "carrier"], "read_only"],
      [{ ...ok, version: 3 }, ["body", "version"], "read_only"],
      [{ ...ok, color: "red" }, ["body", "color"], "extra_forbidden"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await t.request("POST", A, { token: admin, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    }
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"name": ', headers: JSON_HEADERS });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
    expect((await books()).length).toBe(n);
  });

  test("Idempotency-Key: a repeat replays the first 201 without a second book; another body with the same key is 409 idempotency_conflict", async () => {
    const n = (await books()).length;
    const headers = { "idempotency-key": unique("book-create") };
    const body = { name: "Once only", rule_type: "manual_fee_schedule" };
    const first = await t.request("POST", A, { token: admin, body, headers });
    const again = await t.request("POST", A, { token: admin, body, headers });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await books()).length).toBe(n + 1);

    const other = await t.request("POST", A, { token: admin, body: { ...body, name: "Something else" }, headers });
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ detail: "Idempotency-Key was already used with a different request body", code: "idempotency_conflict" });
    expect((await books()).length).toBe(n + 1);
    // a refusal is replayed too: the same 404 for the same body
    const k404 = { "idempotency-key": unique("book-404") };
    const missing = { name: "X", rule_type: "manual_fee_schedule", scope_type: "carrier", carrier_uuid: MISSING };
    const a = await t.request("POST", A, { token: admin, body: missing, headers: k404 });
    const b = await t.request("POST", A, { token: admin, body: missing, headers: k404 });
    expect([a.status, b.status, b.headers.get("idempotent-replayed")]).toEqual([404, 404, "true"]);
  });

  test("401, 403 without insurance.write, 404 for a non-member or unknown org; nothing is written", async () => {
    const n = (await books()).length;
    const body = { name: "Nope", rule_type: "manual_fee_schedule" };
    expect((await t.request("POST", A, { body })).status).toBe(401);
    expect((await t.request("POST", A, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", B, { token: reader, body })).status).toBe(404);
    expect((await t.request("POST", booksPath(MISSING), { token: admin, body })).status).toBe(404);
    expect((await books()).length).toBe(n);
  });
});

describe("GET /estimate-books", () => {
  let tag: string;
  let ids: Record<string, string>;
  beforeAll(async () => {
    tag = unique("lst");
    const c = await create({ name: `B Carrier ${tag}`, scope_type: "carrier", carrier_uuid: carrier });
    const p = await create({ name: `A Plan ${tag}`, scope_type: "plan", insurance_plan_uuid: plan });
    const old = await create({ name: `C Old ${tag}`, status: "archived" });
    const gone = await create({ name: `D Gone ${tag}` });
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    await create({ name: `E Foreign ${tag}` }, B);
    ids = { c: c.id, p: p.id, old: old.id };
  });
  const list = async (qs: string, token = admin) => {
    const r = await t.request("GET", `${A}?${qs}`, { token });
    expect(r.status).toBe(200);
    return r.body;
  };
  const idsOf = (body: any) => body.items.map((b: any) => b.id);

  test("paged by name; books archived by the archive operation and other orgs' books are left out", async () => {
    const body = await list(`search=${tag}`, reader);
    expect(body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(idsOf(body)).toEqual([ids.p, ids.c, ids.old]);
    expect(body.items[0].insurance_plan).toEqual({ uuid: plan, name: "Acme Corp PPO" });
    expect(body.items[1].carrier).toEqual({ uuid: carrier, name: "Delta Dental of Ohio" });
    const p2 = await list(`search=${tag}&page=2&page_size=1`);
    expect([p2.total, idsOf(p2)]).toEqual([3, [ids.c]]);
  });

  test("filters scope_type and status; search is a case-insensitive substring", async () => {
    expect(idsOf(await list(`search=${tag}&scope_type=carrier`))).toEqual([ids.c]);
    expect(idsOf(await list(`search=${tag}&scope_type=tenant`))).toEqual([ids.old]);
    expect(idsOf(await list(`search=${tag}&status=active`))).toEqual([ids.p, ids.c]);
    expect(idsOf(await list(`search=${tag}&status=archived`))).toEqual([ids.old]);
    expect(idsOf(await list(`search=${`b carrier ${tag}`.toUpperCase().replace(/ /g, "%20")}`))).toEqual([ids.c]);
  });

  test("422 for unknown or malformed query parameters", async () => {
    for (const [qs, loc, type] of [
      ["page_size=0", ["query", "page_size"], "out_of_range"],
      ["page_size=201", ["query", "page_size"], "out_of_range"],
      ["scope_type=location", ["query", "scope_type"], "enum"],
      ["status=deleted", ["query", "status"], "enum"],
      ["carrier_uuid=x", ["query", "carrier_uuid"], "extra_forbidden"],
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

describe("GET /estimate-books/{id}", () => {
  test("200 (status archived stays readable); 404 for a missing, archived or another org's book; 401, 403, 404 non-member", async () => {
    const b = await create({ status: "archived" });
    const r = await t.request("GET", `${A}/${b.id}`, { token: reader });
    expect([r.status, r.body, r.headers.get("etag")]).toEqual([200, b, '"1"']);
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    const foreign = await create({}, B);
    for (const id of [MISSING, gone.id, foreign.id]) {
      const miss = await t.request("GET", `${A}/${id}`, { token: admin });
      expect([miss.status, miss.body]).toEqual([404, { detail: "Estimate book not found", code: "not_found" }]);
    }
    expect((await t.request("GET", `${A}/${b.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${b.id}`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${B}/${b.id}`, { token: reader })).status).toBe(404);
  });
});

describe("PATCH /estimate-books/{id}", () => {
  test("changes the given fields, bumps the version, audits and publishes the changed API field names", async () => {
    const b = await create({ scope_type: "carrier", carrier_uuid: carrier });
    const before = events.length;
    const r = await t.request("PATCH", `${A}/${b.id}`, {
      token: admin,
      body: { base_version: 1, carrier_uuid: otherCarrier, exclude_over_ucr: true, status: "archived", name: "Renamed" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...b,
      name: "Renamed",
      carrier: { uuid: otherCarrier, name: "MetLife" },
      exclude_over_ucr: true,
      status: "archived",
      version: 2,
      updated_at: expect.any(String),
    });
    expect((await auditOf(t, orgA, b.id)).map((a) => a.action)).toEqual(["estimate_book.created", "estimate_book.updated"]);
    const mine = events.slice(before).filter((e) => e.resource_id === b.id);
    expect(mine.map((e) => [e.type, e.data])).toEqual([
      ["estimate_book.updated", { id: b.id, changed_fields: ["name", "status", "carrier", "exclude_over_ucr"] }],
    ]);
  });

  test("a scope change is judged on the result: references the new scope does not use must be cleared with null", async () => {
    const b = await create({ scope_type: "carrier", carrier_uuid: carrier });
    const stale = await t.request("PATCH", `${A}/${b.id}`, { token: admin, body: { base_version: 1, scope_type: "tenant" } });
    expect([stale.status, stale.body.code, stale.body.detail[0].loc]).toEqual([422, "invalid_scope", ["body", "carrier_uuid"]]);
    const toPlan = await t.request("PATCH", `${A}/${b.id}`, { token: admin, body: { base_version: 1, scope_type: "plan", insurance_plan_uuid: plan } });
    expect([toPlan.status, toPlan.body.scope_type, toPlan.body.carrier.uuid, toPlan.body.insurance_plan.uuid]).toEqual([200, "plan", carrier, plan]);
    const toTenant = await t.request("PATCH", `${A}/${b.id}`, {
      token: admin,
      body: { base_version: 2, scope_type: "tenant", carrier_uuid: null, insurance_plan_uuid: null },
    });
    expect([toTenant.status, toTenant.body.carrier, toTenant.body.insurance_plan, toTenant.body.version]).toEqual([200, null, null, 3]);
  });

  test("409 on a stale base_version, 422 on a scope or schema problem, 404 for a missing carrier; nothing changes", async () => {
    const b = await create({ scope_type: "carrier", carrier_uuid: carrier });
    await t.request("PATCH", `${A}/${b.id}`, { token: admin, body: { base_version: 1, name: "V2" } });
    const row = (await books()).find((x) => x.id === b.id);
    const stale = await t.request("PATCH", `${A}/${b.id}`, { token: admin, body: { base_version: 1, scope_type: "tenant" } });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const cases: [Record<string, unknown>, number, string | undefined][] = [
      [{ base_version: 2, carrier_uuid: null }, 422, "invalid_scope"],
      [{ base_version: 2, insurance_plan_uuid: plan }, 422, "invalid_scope"],
      [{ base_version: 2, carrier_uuid: MISSING }, 404, "not_found"],
      [{ base_version: 2, rule_type: "other" }, 422, undefined],
      [{ name: "no version" }, 422, undefined],
      [{ base_version: 2, id: MISSING }, 422, undefined],
    ];
    for (const [body, status, code] of cases) {
      const r = await t.request("PATCH", `${A}/${b.id}`, { token: admin, body });
      expect([JSON.stringify(body), r.status, r.body.code]).toEqual([JSON.stringify(body), status, code]);
    }
    expect((await books()).find((x) => x.id === b.id)).toEqual(row);
  });

  test("404 for a missing, archived or another org's book; 401, 403, 404 non-member", async () => {
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    const foreign = await create({}, B);
    for (const id of [MISSING, gone.id, foreign.id]) {
      expect((await t.request("PATCH", `${A}/${id}`, { token: admin, body: { base_version: 1, name: "x" } })).status).toBe(404);
    }
    const b = await create();
    const body = { base_version: 1, name: "x" };
    expect((await t.request("PATCH", `${A}/${b.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${b.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${B}/${b.id}`, { token: reader, body })).status).toBe(404);
    expect((await books()).find((x) => x.id === b.id).version).toBe(1);
  });
});

describe("POST /estimate-books/{id}/archive", () => {
  test("200 with deleted_at and status archived; then 404 and out of lists; audited and published", async () => {
    const b = await create();
    const before = events.length;
    const r = await t.request("POST", `${A}/${b.id}/archive?base_version=1`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...b, status: "archived", deleted_at: expect.stringMatching(/Z$/), version: 2, updated_at: expect.any(String) });
    expect((await t.request("GET", `${A}/${b.id}`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${A}/${b.id}/archive`, { token: admin })).status).toBe(404);
    expect((await auditOf(t, orgA, b.id)).map((a) => a.action)).toEqual(["estimate_book.created", "estimate_book.archived"]);
    const mine = events.slice(before).filter((e) => e.resource_id === b.id);
    expect(mine.map((e) => [e.type, e.data])).toEqual([["estimate_book.archived", { id: b.id, changed_fields: ["status", "deleted_at"] }]]);
  });

  test("409 on a stale base_version, 422 on a malformed one; 404 another org's; 401, 403; nothing changes", async () => {
    const b = await create();
    await t.request("PATCH", `${A}/${b.id}`, { token: admin, body: { base_version: 1, name: "V2" } });
    const row = (await books()).find((x) => x.id === b.id);
    const stale = await t.request("POST", `${A}/${b.id}/archive?base_version=1`, { token: admin });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect((await t.request("POST", `${A}/${b.id}/archive?base_version=x`, { token: admin })).status).toBe(422);
    const foreign = await create({}, B);
    expect((await t.request("POST", `${A}/${foreign.id}/archive`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${A}/${b.id}/archive`)).status).toBe(401);
    expect((await t.request("POST", `${A}/${b.id}/archive`, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${B}/${b.id}/archive`, { token: reader })).status).toBe(404);
    expect((await books()).find((x) => x.id === b.id)).toEqual(row);
  });
});
