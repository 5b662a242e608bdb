import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestApp } from "@tests/helpers";
import { booksPath, bookWorld, codeId, created, insertCarrier, insertEvidence, MISSING, SETUP_TIMEOUT_MS } from "./fixtures";

let t: TestApp;
let admin: string;
let reader: string;
let outsider: string;
let orgA: string;
let orgB: string;
let book: any;
let E: string; // the book's evidence path
let d2391: string;
let carrier: string;
let ids: string[];

beforeAll(async () => {
  ({ t, admin, reader, outsider, orgA, orgB } = await bookWorld());
  book = await created(t, admin, booksPath(orgA), { name: "From claims", rule_type: "allowed_from_claims" });
  E = `${booksPath(orgA)}/${book.id}/evidence`;
  d2391 = await codeId(t, orgA, "D2391");
  carrier = await insertCarrier(t, orgA, { carrier_name: "Cigna Dental" });
}, SETUP_TIMEOUT_MS);
afterAll(() => t.close());

describe("GET /estimate-books/{id}/evidence", () => {
  test("empty for a book no claim has paid into yet", async () => {
    const r = await t.request("GET", E, { token: reader });
    expect([r.status, r.body]).toEqual([200, { items: [], page: 1, page_size: 50, total: 0 }]);
  });

  test("paged claim payment evidence, newest payment first; money as two-decimal strings; other books' evidence left out", async () => {
    const other = await created(t, admin, booksPath(orgA), { name: "Other", rule_type: "allowed_from_claims" });
    const base = { estimate_book_id: book.id, procedure_code_id: d2391 };
    ids = [
      await insertEvidence(t, orgA, { ...base, fee_billed_cents: 17500, paid_cents: 9800, date_paid: "2025-01-10" }),
      await insertEvidence(t, orgA, {
        ...base,
        carrier_id: carrier,
        group_number: "G-100",
        fee_billed_cents: 17500,
        allowed_cents: 14000,
        paid_cents: 11200,
        date_paid: "2025-03-02",
        source_ref: "CLM-2025-0042",
      }),
      await insertEvidence(t, orgA, { ...base, fee_billed_cents: 17500, paid_cents: 9000, date_paid: "2025-02-15" }),
    ];
    await insertEvidence(t, orgA, { ...base, estimate_book_id: other.id, fee_billed_cents: 1, paid_cents: 1, date_paid: "2025-04-01" });

    const r = await t.request("GET", E, { token: reader });
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(3);
    expect(r.body.items.map((e: any) => e.id)).toEqual([ids[1], ids[2], ids[0]]);
    expect(r.body.items[0]).toEqual({
      id: ids[1],
      estimate_book: { uuid: book.id, name: "From claims" },
      procedure_code: { uuid: d2391, name: "D2391" },
      carrier: { uuid: carrier, name: "Cigna Dental" },
      group_number: "G-100",
      fee_billed: "175.00",
      allowed_fee: "140.00",
      paid_amount: "112.00",
      date_paid: "2025-03-02",
      source_ref: "CLM-2025-0042",
      created_at: expect.stringMatching(/Z$/),
    });
    expect(r.body.items[1]).toMatchObject({ carrier: null, allowed_fee: null, source_ref: null, paid_amount: "90.00" });
    const p2 = await t.request("GET", `${E}?page=2&page_size=2`, { token: reader });
    expect([p2.body.total, p2.body.page_size, p2.body.items.map((e: any) => e.id)]).toEqual([3, 2, [ids[0]]]);
  });

  test("422 for malformed or unknown query parameters", async () => {
    for (const qs of ["page=0", "page_size=201", "page=x", "procedure_code_uuid=" + d2391]) {
      const r = await t.request("GET", `${E}?${qs}`, { token: reader });
      expect([qs, r.status]).toEqual([qs, 422]);
    }
  });

  test("404 for a missing, archived or another org's book; 401, 403, 404 non-member", async () => {
    const gone = await created(t, admin, booksPath(orgA), { name: "Gone", rule_type: "manual_fee_schedule" });
    await t.request("POST", `${booksPath(orgA)}/${gone.id}/archive`, { token: admin });
    const foreign = await created(t, admin, booksPath(orgB), { name: "B", rule_type: "manual_fee_schedule" });
    for (const id of [MISSING, gone.id, foreign.id]) {
      const r = await t.request("GET", `${booksPath(orgA)}/${id}/evidence`, { token: reader });
      expect([r.status, r.body]).toEqual([404, { detail: "Estimate book not found", code: "not_found" }]);
    }
    expect((await t.request("GET", E)).status).toBe(401);
    expect((await t.request("GET", E, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", E.replace(orgA, orgB), { token: reader })).status).toBe(404);
  });
});
