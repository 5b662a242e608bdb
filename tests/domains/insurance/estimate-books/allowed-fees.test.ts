import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { allowedFees } from "@db/tenant/insurance";
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
let F: string; // the book's allowed-fees path
let d2391: string;
let d0120: string;
let run: string;

beforeAll(async () => {
  ({ t, admin, reader, outsider, orgA, orgB, events, book, d2391, d0120, run } = await bookWithRun());
  F = `${booksPath(orgA)}/${book.id}/allowed-fees`;
}, SETUP_TIMEOUT_MS);
afterAll(() => t.close());

const valid = (extra: Record<string, unknown> = {}) => ({
  allowed_fee: 142.5,
  computed_at: "2025-03-01T10:05:00Z",
  procedure_code_uuid: d2391,
  resolution_scope_type: "insurance_carrier",
  ...extra,
});
const fees = () => rowsOf(t, orgA, allowedFees);

describe("POST /estimate-books/{id}/allowed-fees", () => {
  test("201 with every field: money in cents, answered as a two-decimal string; audited and published with ids only", async () => {
    const before = events.length;
    const step = Bun.randomUUIDv7();
    const r = await t.request("POST", F, {
      token: admin,
      body: valid({
        allowed_fee: 142.5,
        computed_at: "2025-03-01T05:05:00-05:00",
        resolution_scope_type: "group_number",
        group_number: " G-100 ",
        confidence: 0.82,
        estimate_book_rule_step_uuid: step,
        estimate_book_run_uuid: run,
        expires_at: "2026-03-01T00:00:00Z",
        resolution_scope_identifier: 7781,
        sample_count: 12,
      }),
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBeNull();
    expect(r.body).toEqual({
      id: expect.any(String),
      estimate_book: { uuid: book.id, name: "Delta PPO" },
      procedure_code: { uuid: d2391, name: "D2391" },
      estimate_book_rule_step: { uuid: step, name: null },
      estimate_book_run: { uuid: run, name: "2025-03-01T10:00:00.000Z" },
      allowed_fee: "142.50",
      computed_at: "2025-03-01T10:05:00.000Z",
      confidence: 0.82,
      expires_at: "2026-03-01T00:00:00.000Z",
      group_number: "G-100",
      resolution_scope_type: "group_number",
      resolution_scope_identifier: 7781,
      sample_count: 12,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await fees()).find((f) => f.id === r.body.id).allowed_fee_cents).toBe(14250);
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["allowed_fee.created"]);
    const mine = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(mine.map((e) => [e.type, e.resource_type, e.data])).toEqual([
      ["allowed_fee.created", "allowed_fee", { id: r.body.id, estimate_book_id: book.id, procedure_code_id: d2391, resolution_scope_type: "group_number" }],
    ]);
  });

  test("only the required fields: optional ones null, sample_count 0; a book with status archived still takes fees", async () => {
    const r = await created(t, admin, F, valid({ allowed_fee: 80 }));
    expect(r).toMatchObject({
      allowed_fee: "80.00",
      confidence: null,
      expires_at: null,
      group_number: null,
      estimate_book_run: null,
      estimate_book_rule_step: null,
      resolution_scope_identifier: null,
      sample_count: 0,
    });
    const old = await created(t, admin, booksPath(orgA), { name: "Old", rule_type: "manual_fee_schedule", status: "archived" });
    expect((await t.request("POST", `${booksPath(orgA)}/${old.id}/allowed-fees`, { token: admin, body: valid() })).status).toBe(201);
  });

  test("404 when the book, the procedure code or the run is missing (a run of another book counts as missing); nothing is written", async () => {
    const n = (await fees()).length;
    const other = await created(t, admin, booksPath(orgA), { name: "Other", rule_type: "manual_fee_schedule" });
    const otherRun = await insertRun(t, orgA, other.id);
    const gone = await created(t, admin, booksPath(orgA), { name: "Gone", rule_type: "manual_fee_schedule" });
    await t.request("POST", `${booksPath(orgA)}/${gone.id}/archive`, { token: admin });
    const foreignBook = await created(t, admin, booksPath(orgB), { name: "B's", rule_type: "manual_fee_schedule" });
    const foreignCode = await codeId(t, orgB, "D2391");
    const archivedCode = await created(t, admin, `/api/v1/${orgA}/codes/procedure-codes`, { code: "D9999", short_name: "Gone code" });
    await t.request("POST", `/api/v1/${orgA}/codes/procedure-codes/${archivedCode.id}/archive`, { token: admin });
    const cases: [string, Record<string, unknown>, string][] = [
      [`${booksPath(orgA)}/${MISSING}/allowed-fees`, valid(), "Estimate book not found"],
      [`${booksPath(orgA)}/${gone.id}/allowed-fees`, valid(), "Estimate book not found"],
      [`${booksPath(orgA)}/${foreignBook.id}/allowed-fees`, valid(), "Estimate book not found"],
      [F, valid({ procedure_code_uuid: MISSING }), "Procedure code not found"],
      [F, valid({ procedure_code_uuid: foreignCode }), "Procedure code not found"],
      [F, valid({ procedure_code_uuid: archivedCode.id }), "Procedure code not found"],
      [F, valid({ estimate_book_run_uuid: MISSING }), "Estimate book run not found"],
      [F, valid({ estimate_book_run_uuid: otherRun }), "Estimate book run not found"],
    ];
    for (const [path, body, detail] of cases) {
      const r = await t.request("POST", path, { token: admin, body });
      expect([JSON.stringify(body), r.status, r.body]).toEqual([JSON.stringify(body), 404, { detail, code: "not_found" }]);
    }
    expect((await fees()).length).toBe(n);
  });

  test("422 for each rule and schema problem; nothing is written", async () => {
    const n = (await fees()).length;
    const cases: [Record<string, unknown>, unknown[], string, string?][] = [
      [{ ...valid(), allowed_fee: undefined }, ["body", "allowed_fee"], "missing"],
      [{ ...valid(), computed_at: undefined }, ["body", "computed_at"], "missing"],
      [{ ...valid(), procedure_code_uuid: undefined }, ["body", "procedure_code_uuid"], "missing"],
      [{ ...valid(), resolution_scope_type: undefined }, ["body", "resolution_scope_type"], "missing"],
      [valid({ allowed_fee: 10.005 }), ["body", "allowed_fee"], "value_error"],
      [valid({ allowed_fee: -1 }), ["body", "allowed_fee"], "out_of_range"],
      [valid({ allowed_fee: "10.00" }), ["body", "allowed_fee"], "type_error"],
      [valid({ computed_at: "2025-03-01" }), ["body", "computed_at"], "format"],
      [valid({ computed_at: "2999-01-01T00:00:00Z" }), ["body", "computed_at"], "value_error"],
      [valid({ resolution_scope_type: "plan" }), ["body", "resolution_scope_type"], "enum"],
      [valid({ resolution_scope_type: "group_number" }), ["body", "group_number"], "missing", "group_number_required"],
      [valid({ expires_at: "2025-03-01T10:05:00Z" }), ["body", "expires_at"], "value_error", "invalid_date_range"],
      [valid({ confidence: 1.5 }), ["body", "confidence"], "out_of_range"],
      [valid({ sample_count: 2.5 }), ["body", "sample_count"], "type_error"],
      [valid({ sample_count: -1 }), ["body", "sample_count"], "out_of_range"],
      [valid({ resolution_scope_identifier: "7781" }), ["body", "resolution_scope_identifier"], "type_error"],
      [valid({ estimate_book_run_uuid: "run-1" }), ["body", "estimate_book_run_uuid"], "format"],
      [valid({ estimate_book: { uuid: book.id } }), ["body", "estimate_book"], "read_only"],
      [valid({ id: MISSING }), ["body", "id"], "read_only"],
      [valid({ fee: 1 }), ["body", "fee"], "extra_forbidden"],
    ];
    for (const [body, loc, type, code] of cases) {
      const r = await t.request("POST", F, { token: admin, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
      if (code) expect(r.body.code).toBe(code);
    }
    const bad = await t.request("POST", F, { token: admin, rawBody: "{", headers: JSON_HEADERS });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
    expect((await fees()).length).toBe(n);
  });

  test("401, 403 without insurance.write, 404 for a non-member org; nothing is written", async () => {
    const n = (await fees()).length;
    expect((await t.request("POST", F, { body: valid() })).status).toBe(401);
    expect((await t.request("POST", F, { token: reader, body: valid() })).status).toBe(403);
    expect((await t.request("POST", F, { token: outsider, body: valid() })).status).toBe(403);
    expect((await t.request("POST", `${booksPath(orgB)}/${book.id}/allowed-fees`, { token: reader, body: valid() })).status).toBe(404);
    expect((await fees()).length).toBe(n);
  });
});

describe("GET /estimate-books/{id}/allowed-fees", () => {
  let L: string;
  let ids: string[];
  beforeAll(async () => {
    const b = await created(t, admin, booksPath(orgA), { name: "Listed", rule_type: "manual_fee_schedule" });
    L = `${booksPath(orgA)}/${b.id}/allowed-fees`;
    const a = await created(t, admin, L, valid({ computed_at: "2025-01-01T00:00:00Z" }));
    const c = await created(t, admin, L, valid({ computed_at: "2025-02-01T00:00:00Z", procedure_code_uuid: d0120, allowed_fee: 40 }));
    const e = await created(t, admin, L, valid({ computed_at: "2025-02-01T00:00:00Z", expires_at: "2025-02-02T00:00:00Z" }));
    ids = [a.id, c.id, e.id];
  });

  test("paged, latest computed_at first (then newest), expired fees included; other books' fees left out", async () => {
    const r = await t.request("GET", L, { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(r.body.items.map((f: any) => f.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(r.body.items[1]).toMatchObject({ procedure_code: { uuid: d0120, name: "D0120" }, allowed_fee: "40.00" });
    const p2 = await t.request("GET", `${L}?page=2&page_size=2`, { token: reader });
    expect([p2.body.total, p2.body.items.map((f: any) => f.id)]).toEqual([3, [ids[0]]]);
  });

  test("filters procedure_code_uuid; 404 when that code is missing", async () => {
    const r = await t.request("GET", `${L}?procedure_code_uuid=${d0120}`, { token: reader });
    expect(r.body.items.map((f: any) => f.id)).toEqual([ids[1]]);
    const miss = await t.request("GET", `${L}?procedure_code_uuid=${MISSING}`, { token: reader });
    expect([miss.status, miss.body.detail]).toEqual([404, "Procedure code not found"]);
  });

  test("422 for malformed query parameters; 404 for a missing or another org's book; 401, 403, 404 non-member", async () => {
    for (const qs of ["page=0", "procedure_code_uuid=abc", "scope=plan"]) expect((await t.request("GET", `${L}?${qs}`, { token: admin })).status).toBe(422);
    expect((await t.request("GET", `${booksPath(orgA)}/${MISSING}/allowed-fees`, { token: admin })).status).toBe(404);
    const foreign = await created(t, admin, booksPath(orgB), { name: "B", rule_type: "manual_fee_schedule" });
    expect((await t.request("GET", `${booksPath(orgA)}/${foreign.id}/allowed-fees`, { token: admin })).status).toBe(404);
    expect((await t.request("GET", L)).status).toBe(401);
    expect((await t.request("GET", L, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", L.replace(orgA, orgB), { token: reader })).status).toBe(404);
  });
});
