import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { adjustmentLogs } from "@db/tenant/insurance";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, type TestApp } from "@tests/helpers";
import { booksPath, bookWithRun, codeId, created, insertRun, JSON_HEADERS, MISSING, rowsOf, SETUP_TIMEOUT_MS } from "./fixtures";

let t: TestApp;
let admin: string;
let reader: string;
let outsider: string;
let orgA: string;
let orgB: string;
let events: EventEnvelope[];
let book: any;
let Lg: string; // the book's adjustment-logs path
let d2391: string;
let d0120: string;
let run: string;

beforeAll(async () => {
  ({ t, admin, reader, outsider, orgA, orgB, events, book, d2391, d0120, run } = await bookWithRun());
  Lg = `${booksPath(orgA)}/${book.id}/adjustment-logs`;
}, SETUP_TIMEOUT_MS);
afterAll(() => t.close());

const valid = (extra: Record<string, unknown> = {}) => ({
  change_reason: "manual_override",
  description: "Carrier renegotiated the PPO fee",
  new_allowed_fee: 150,
  procedure_code_uuid: d2391,
  ...extra,
});
const logs = () => rowsOf(t, orgA, adjustmentLogs);

describe("POST /estimate-books/{id}/adjustment-logs", () => {
  test("201 with every field; money answered as two-decimal strings; audited and published without the description", async () => {
    const before = events.length;
    const r = await t.request("POST", Lg, {
      token: admin,
      body: valid({
        change_reason: "recompute",
        new_allowed_fee: 150,
        previous_allowed_fee: 162.25,
        delta_allowed_fee: -12.25,
        estimate_book_run_uuid: run,
        insurance_claim_procedure_identifier: 55012,
        insurance_procedure_estimate_id: 9001,
      }),
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      estimate_book: { uuid: book.id, name: "Delta PPO" },
      estimate_book_run: { uuid: run, name: "2025-03-01T10:00:00.000Z" },
      procedure_code: { uuid: d2391, name: "D2391" },
      change_reason: "recompute",
      description: "Carrier renegotiated the PPO fee",
      new_allowed_fee: "150.00",
      previous_allowed_fee: "162.25",
      delta_allowed_fee: "-12.25",
      insurance_claim_procedure_identifier: 55012,
      insurance_procedure_estimate_id: 9001,
      created_at: expect.stringMatching(/Z$/),
    });
    const row = (await logs()).find((l) => l.id === r.body.id);
    expect([row.new_allowed_fee_cents, row.previous_allowed_fee_cents, row.delta_allowed_fee_cents]).toEqual([15000, 16225, -1225]);
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["adjustment_log.created"]);
    const mine = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(mine.map((e) => [e.type, e.resource_type, e.data])).toEqual([
      ["adjustment_log.created", "adjustment_log", { id: r.body.id, estimate_book_id: book.id, procedure_code_id: d2391, change_reason: "recompute" }],
    ]);
    expect(JSON.stringify(mine)).not.toContain("renegotiated");
  });

  test("the delta is worked out from previous when omitted, kept as given without previous, and null with neither", async () => {
    expect((await created(t, admin, Lg, valid({ new_allowed_fee: 95.5, previous_allowed_fee: 90 }))).delta_allowed_fee).toBe("5.50");
    expect((await created(t, admin, Lg, valid({ delta_allowed_fee: 3 }))).delta_allowed_fee).toBe("3.00");
    const bare = await created(t, admin, Lg, valid());
    expect([bare.previous_allowed_fee, bare.delta_allowed_fee, bare.estimate_book_run, bare.insurance_procedure_estimate_id]).toEqual([null, null, null, null]);
  });

  test("404 when the book, the procedure code or the run is missing (a run of another book counts as missing); nothing is written", async () => {
    const n = (await logs()).length;
    const other = await created(t, admin, booksPath(orgA), { name: "Other", rule_type: "manual_fee_schedule" });
    const otherRun = await insertRun(t, orgA, other.id);
    const gone = await created(t, admin, booksPath(orgA), { name: "Gone", rule_type: "manual_fee_schedule" });
    await t.request("POST", `${booksPath(orgA)}/${gone.id}/archive`, { token: admin });
    const foreignBook = await created(t, admin, booksPath(orgB), { name: "B's", rule_type: "manual_fee_schedule" });
    const cases: [string, Record<string, unknown>, string][] = [
      [`${booksPath(orgA)}/${MISSING}/adjustment-logs`, valid(), "Estimate book not found"],
      [`${booksPath(orgA)}/${gone.id}/adjustment-logs`, valid(), "Estimate book not found"],
      [`${booksPath(orgA)}/${foreignBook.id}/adjustment-logs`, valid(), "Estimate book not found"],
      [Lg, valid({ procedure_code_uuid: MISSING }), "Procedure code not found"],
      [Lg, valid({ procedure_code_uuid: await codeId(t, orgB, "D2391") }), "Procedure code not found"],
      [Lg, valid({ estimate_book_run_uuid: MISSING }), "Estimate book run not found"],
      [Lg, valid({ estimate_book_run_uuid: otherRun }), "Estimate book run not found"],
    ];
    for (const [path, body, detail] of cases) {
      const r = await t.request("POST", path, { token: admin, body });
      expect([JSON.stringify(body), r.status, r.body]).toEqual([JSON.stringify(body), 404, { detail, code: "not_found" }]);
    }
    expect((await logs()).length).toBe(n);
  });

  test("422 for each rule and schema problem; nothing is written", async () => {
    const n = (await logs()).length;
    const cases: [Record<string, unknown>, unknown[], string, string?][] = [
      [{ ...valid(), change_reason: undefined }, ["body", "change_reason"], "missing"],
      [{ ...valid(), description: undefined }, ["body", "description"], "missing"],
      [{ ...valid(), new_allowed_fee: undefined }, ["body", "new_allowed_fee"], "missing"],
      [{ ...valid(), procedure_code_uuid: undefined }, ["body", "procedure_code_uuid"], "missing"],
      [valid({ change_reason: "typo" }), ["body", "change_reason"], "enum"],
      [valid({ description: "   " }), ["body", "description"], "out_of_range"],
      [valid({ new_allowed_fee: 1.234 }), ["body", "new_allowed_fee"], "value_error"],
      [valid({ new_allowed_fee: -5 }), ["body", "new_allowed_fee"], "out_of_range"],
      [valid({ previous_allowed_fee: "90" }), ["body", "previous_allowed_fee"], "type_error"],
      [valid({ delta_allowed_fee: 0.001 }), ["body", "delta_allowed_fee"], "value_error"],
      [valid({ previous_allowed_fee: 100, delta_allowed_fee: 10 }), ["body", "delta_allowed_fee"], "value_error", "delta_mismatch"],
      [valid({ insurance_procedure_estimate_id: 1.5 }), ["body", "insurance_procedure_estimate_id"], "type_error"],
      [valid({ insurance_claim_procedure_identifier: -1 }), ["body", "insurance_claim_procedure_identifier"], "out_of_range"],
      [valid({ procedure_code: { uuid: d2391 } }), ["body", "procedure_code"], "read_only"],
      [valid({ created_at: "2025-01-01T00:00:00Z" }), ["body", "created_at"], "read_only"],
      [valid({ note: "x" }), ["body", "note"], "extra_forbidden"],
    ];
    for (const [body, loc, type, code] of cases) {
      const r = await t.request("POST", Lg, { token: admin, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
      if (code) expect(r.body.code).toBe(code);
    }
    const bad = await t.request("POST", Lg, { token: admin, rawBody: "[", headers: JSON_HEADERS });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
    expect((await logs()).length).toBe(n);
  });

  test("401, 403 without insurance.write, 404 for a non-member org; nothing is written", async () => {
    const n = (await logs()).length;
    expect((await t.request("POST", Lg, { body: valid() })).status).toBe(401);
    expect((await t.request("POST", Lg, { token: reader, body: valid() })).status).toBe(403);
    expect((await t.request("POST", Lg, { token: outsider, body: valid() })).status).toBe(403);
    expect((await t.request("POST", Lg.replace(orgA, orgB), { token: reader, body: valid() })).status).toBe(404);
    expect((await logs()).length).toBe(n);
  });
});

describe("GET /estimate-books/{id}/adjustment-logs", () => {
  let P: string;
  let ids: string[];
  beforeAll(async () => {
    const b = await created(t, admin, booksPath(orgA), { name: "Listed", rule_type: "manual_fee_schedule" });
    P = `${booksPath(orgA)}/${b.id}/adjustment-logs`;
    ids = [];
    for (const extra of [{}, { procedure_code_uuid: d0120 }, {}]) ids.push((await created(t, admin, P, valid(extra))).id);
  });

  test("paged, newest first; other books' logs left out; procedure_code_uuid filters (404 when that code is missing)", async () => {
    const r = await t.request("GET", P, { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(r.body.items.map((l: any) => l.id)).toEqual([...ids].reverse());
    const p2 = await t.request("GET", `${P}?page=2&page_size=2`, { token: reader });
    expect([p2.body.total, p2.body.items.map((l: any) => l.id)]).toEqual([3, [ids[0]]]);
    const one = await t.request("GET", `${P}?procedure_code_uuid=${d0120}`, { token: reader });
    expect(one.body.items.map((l: any) => l.id)).toEqual([ids[1]]);
    expect((await t.request("GET", `${P}?procedure_code_uuid=${MISSING}`, { token: reader })).status).toBe(404);
  });

  test("GET by id: 200; 404 for a missing log or another book's", async () => {
    const r = await t.request("GET", `${P}/${ids[1]}`, { token: reader });
    expect([r.status, r.body.id, r.body.procedure_code.name]).toEqual([200, ids[1], "D0120"]);
    expect((await t.request("GET", `${P}/${MISSING}`, { token: reader })).body).toEqual({ detail: "Adjustment log not found", code: "not_found" });
    expect((await t.request("GET", `${Lg}/${ids[1]}`, { token: reader })).status).toBe(404);
    expect((await t.request("GET", `${P}/${ids[1]}`, { token: outsider })).status).toBe(403);
  });

  test("422 for malformed query parameters; 404 for a missing or another org's book; 401, 403, 404 non-member", async () => {
    for (const qs of ["page_size=500", "procedure_code_uuid=D2391", "sort=asc"])
      expect((await t.request("GET", `${P}?${qs}`, { token: admin })).status).toBe(422);
    expect((await t.request("GET", `${booksPath(orgA)}/${MISSING}/adjustment-logs`, { token: admin })).status).toBe(404);
    const foreign = await created(t, admin, booksPath(orgB), { name: "B", rule_type: "manual_fee_schedule" });
    expect((await t.request("GET", `${booksPath(orgA)}/${foreign.id}/adjustment-logs`, { token: admin })).status).toBe(404);
    expect((await t.request("GET", P)).status).toBe(401);
    expect((await t.request("GET", P, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", P.replace(orgA, orgB), { token: reader })).status).toBe(404);
  });
});

describe("append-only", () => {
  test.each([
    ["PUT", "collection"],
    ["PATCH", "collection"],
    ["DELETE", "collection"],
    ["PUT", "entry"],
    ["PATCH", "entry"],
    ["DELETE", "entry"],
  ])("%s on the %s is 405 with Allow; nothing changes", async (method, target) => {
    const entry = await created(t, admin, Lg, valid({ description: "Do not edit me" }));
    const before = await logs();
    const path = target === "entry" ? `${Lg}/${entry.id}` : Lg;
    const r = await t.request(method, path, { token: admin, body: method === "DELETE" ? undefined : { description: "edited" } });
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ detail: "Adjustment logs are append-only", code: "method_not_allowed" });
    expect(r.headers.get("allow")).toBe(target === "entry" ? "GET" : "GET, POST");
    expect(await logs()).toEqual(before);
    // still guarded: 401 anonymous, 403 without the write key, 404 for a non-member
    expect((await t.request(method, path)).status).toBe(401);
    expect((await t.request(method, path, { token: reader })).status).toBe(403);
    expect((await t.request(method, path.replace(orgA, orgB), { token: reader })).status).toBe(404);
  });
});
