import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, expectGuarded } from "@tests/helpers";
import { feeWorld, MISSING, READ, WRITE, type FeeWorld } from "./fixtures";

// The fees of a schedule over HTTP: the paged list, the bulk upsert (all or
// nothing, one 422 naming every bad row) and the delete of one fee.

let w: FeeWorld;
let reader: string;
let downtown: string;
let uptown: string;

beforeAll(async () => {
  w = await feeWorld({ reader: [READ] });
  ({ reader } = w.tokens);
  downtown = (await w.createLocation({ name: "Downtown" })).id;
  uptown = (await w.createLocation({ name: "Uptown" })).id;
});
afterAll(() => w.t.close());

const feesOf = (id: string, org = w.orgA) => `${w.S(org)}/${id}/fees`;

describe("PUT /fee-schedules/{id}/fees", () => {
  test("creates, updates and leaves unchanged; answers each fee in request order; audited per fee; events carry ids, never amounts", async () => {
    const s = await w.createSchedule({ name: "Main office fees" });
    const [d2740, d1110] = [await w.codeId("D2740"), await w.codeId("D1110")];
    const from = w.events.length;
    const first = await w.putFees(s.id, [
      { procedure_code_uuid: d2740, amount: 1200 },
      { procedure_code_uuid: d2740, amount: 1150.5, location_uuid: downtown },
      { procedure_code_uuid: d1110.toUpperCase(), amount: 95.1, location_uuid: null },
    ]);
    expect(first).toMatchObject({ fee_schedule_uuid: s.id, created: 3, updated: 0, unchanged: 0 });
    expect(first.items).toEqual([
      {
        id: expect.any(String),
        fee_schedule: { uuid: s.id, name: "Main office fees" },
        procedure_code: { uuid: d2740, name: "D2740" },
        procedure_description: "Crown, porcelain/ceramic",
        location: null,
        amount: "1200.00",
        version: 1,
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
        deleted_at: null,
      },
      expect.objectContaining({ procedure_code: { uuid: d2740, name: "D2740" }, location: { uuid: downtown, name: "Downtown" }, amount: "1150.50" }),
      expect.objectContaining({ procedure_code: { uuid: d1110, name: "D1110" }, location: null, amount: "95.10" }),
    ]);
    const crown = first.items[0];
    const created = w.events.slice(from).filter((e) => e.resource_type === "fee");
    expect(created.map((e) => e.type)).toEqual(["fee.created", "fee.created", "fee.created"]);
    expect(created[0]!.data).toEqual({ id: crown.id, fee_schedule_id: s.id, procedure_code_id: d2740, location_id: null });
    expect(created[1]!.practice_id).toBe(downtown);
    // an amount as a JSON value (ids are hex and may hold the same digits)
    expect(JSON.stringify(created)).not.toMatch(/[:[,](1200|1150|95\.1|9510)(\.\d+)?[,\]}]|"(1200|1150|95\.1|9510)(\.\d\d?)?"|amount_cents/);

    const from2 = w.events.length;
    const second = await w.putFees(s.id, [
      { procedure_code_uuid: d1110, amount: 95.1 },
      { procedure_code_uuid: d2740, amount: 1250 },
      { procedure_code_uuid: d2740, amount: 1100, location_uuid: uptown },
    ]);
    expect(second).toMatchObject({ created: 1, updated: 1, unchanged: 1 });
    expect(second.items.map((f: any) => [f.procedure_code.name, f.location?.name ?? null, f.amount, f.version])).toEqual([
      ["D1110", null, "95.10", 1],
      ["D2740", null, "1250.00", 2],
      ["D2740", "Uptown", "1100.00", 1],
    ]);
    expect(second.items[1].id).toBe(crown.id);
    const changed = w.events.slice(from2).filter((e) => e.resource_type === "fee");
    expect(changed.map((e) => [e.type, e.data.changed_fields ?? null])).toEqual([
      ["fee.updated", ["amount"]],
      ["fee.created", null],
    ]);
    expect((await auditOf(w.t, w.orgA, crown.id)).map((a) => [a.action, a.before?.amount_cents ?? null, a.after.amount_cents])).toEqual([
      ["fee.created", null, 120000],
      ["fee.updated", 120000, 125000],
    ]);
  });

  test("all or nothing: one 422 names every bad row (its index in loc); nothing is stored", async () => {
    const s = await w.createSchedule();
    const d2740 = await w.codeId("D2740");
    await w.putFees(s.id, [{ procedure_code_uuid: d2740, amount: 1000 }]);
    const archivedLocation = (await w.createLocation()).id;
    await w.call("POST", `${w.P()}/locations/${archivedLocation}/archive`, undefined, 200);
    const theirCode = await w.codeId("D1110", w.orgB);
    const theirLocation = (await w.createLocation({}, w.orgB)).id;
    const before = await w.snapshot();

    // the schema's rules, every row at once: three decimals, over the limit, negative, not a number, missing, unknown fields
    const shape = await w.call("PUT", feesOf(s.id), {
      fees: [
        { procedure_code_uuid: d2740, amount: 10.005 },
        { procedure_code_uuid: d2740, amount: 1200, location_uuid: downtown },
        { procedure_code_uuid: d2740, amount: 1_000_000.01 },
        { procedure_code_uuid: d2740, amount: -1 },
        { procedure_code_uuid: d2740, amount: "12.00" },
        { amount: 5 },
        { procedure_code_uuid: "not-a-uuid", amount: 5, fee: 1 },
      ],
    });
    expect(shape.status).toBe(422);
    expect(shape.body.detail.map((d: any) => [d.loc, d.type])).toEqual([
      [["body", "fees", 0, "amount"], "value_error"],
      [["body", "fees", 2, "amount"], "out_of_range"],
      [["body", "fees", 3, "amount"], "out_of_range"],
      [["body", "fees", 4, "amount"], "type_error"],
      [["body", "fees", 5, "procedure_code_uuid"], "missing"],
      [["body", "fees", 6, "procedure_code_uuid"], "format"],
      [["body", "fees", 6, "fee"], "extra_forbidden"],
    ]);

    // what only the database can tell, every row at once: codes and locations missing, archived or another org's, repeats
    const rows = await w.call("PUT", feesOf(s.id), {
      fees: [
        { procedure_code_uuid: d2740, amount: 1300 },
        { procedure_code_uuid: MISSING, amount: 10 },
        { procedure_code_uuid: theirCode, amount: 10 },
        { procedure_code_uuid: d2740, amount: 10, location_uuid: archivedLocation },
        { procedure_code_uuid: d2740, amount: 10, location_uuid: theirLocation },
        { procedure_code_uuid: d2740, amount: 1400 },
        { procedure_code_uuid: d2740, amount: 10, location_uuid: downtown },
        { procedure_code_uuid: d2740, amount: 11, location_uuid: downtown },
      ],
    });
    expect(rows.status).toBe(422);
    expect(rows.body.code).toBe("invalid_fee_rows");
    expect(rows.body.detail).toEqual([
      { loc: ["body", "fees", 1, "procedure_code_uuid"], msg: "Procedure code not found", type: "not_found" },
      { loc: ["body", "fees", 2, "procedure_code_uuid"], msg: "Procedure code not found", type: "not_found" },
      { loc: ["body", "fees", 3, "location_uuid"], msg: "Location not found", type: "not_found" },
      { loc: ["body", "fees", 4, "location_uuid"], msg: "Location not found", type: "not_found" },
      { loc: ["body", "fees", 5, "procedure_code_uuid"], msg: "Row 0 already names this procedure code and location", type: "duplicate" },
      { loc: ["body", "fees", 7, "procedure_code_uuid"], msg: "Row 6 already names this procedure code and location", type: "duplicate" },
    ]);

    // an archived code is refused too
    const code = (await w.call("POST", `${w.P()}/codes/procedure-codes`, { code: "ZFEE1", short_name: "Soon archived" }, 201)).body;
    await w.call("POST", `${w.P()}/codes/procedure-codes/${code.id}/archive`, undefined, 200);
    const afterCode = await w.snapshot();
    const archived = await w.call("PUT", feesOf(s.id), { fees: [{ procedure_code_uuid: code.id, amount: 1 }] });
    expect(archived.body.detail).toEqual([{ loc: ["body", "fees", 0, "procedure_code_uuid"], msg: "Procedure code not found", type: "not_found" }]);
    expect(await w.snapshot()).toEqual(afterCode);
    // nothing of any refused request was stored: the good rows neither
    expect({ ...afterCode, audit: before.audit }).toEqual({ ...before, audit: before.audit });
    expect((await w.feeRows(s.id)).map((f) => f.amount_cents)).toEqual([100000]);
  });

  test("422 for an empty list, more than 1,000 rows, no list; 404 missing, archived or another org's schedule; 401, 403, 404 non-member", async () => {
    const s = await w.createSchedule();
    const d2740 = await w.codeId("D2740");
    const before = await w.snapshot();
    const tooMany = Array.from({ length: 1001 }, () => ({ procedure_code_uuid: d2740, amount: 1 }));
    for (const [body, loc, type] of [
      [{ fees: [] }, ["body", "fees"], "out_of_range"],
      [{ fees: tooMany }, ["body", "fees"], "out_of_range"],
      [{}, ["body", "fees"], "missing"],
      [{ fees: {} }, ["body", "fees"], "type_error"],
    ] as const) {
      const r = await w.call("PUT", feesOf(s.id), body);
      expect({ status: r.status, first: r.body.detail?.[0] }).toEqual({ status: 422, first: { loc: [...loc], msg: expect.any(String), type } });
    }
    const good = { fees: [{ procedure_code_uuid: d2740, amount: 1 }] };
    expect((await w.call("PUT", feesOf(MISSING), good)).body).toEqual({ detail: "Fee schedule not found", code: "not_found" });
    const theirs = await w.createSchedule({}, w.orgB);
    expect((await w.call("PUT", feesOf(theirs.id, w.orgA), good)).status).toBe(404);
    const gone = await w.createSchedule();
    await w.call("POST", `${w.S()}/${gone.id}/archive`, undefined, 200);
    const afterArchive = await w.snapshot();
    expect((await w.call("PUT", feesOf(gone.id), good)).status).toBe(404);
    expect(await w.snapshot()).toEqual(afterArchive);
    expect(afterArchive.fees).toEqual(before.fees);
    await expectGuarded(w.t, w.orgA, w.orgB, "PUT", feesOf(s.id), WRITE, good);
    expect((await w.call("PUT", feesOf(s.id), good, undefined, reader)).status).toBe(403);
    expect((await w.snapshot()).fees).toEqual(before.fees);
  });
});

describe("GET /fee-schedules/{id}/fees", () => {
  test("paged by code, the schedule-wide fee before the locations'; search by code prefix; location_uuid; deleted fees left out", async () => {
    const s = await w.createSchedule();
    const ids = Object.fromEntries(await Promise.all(["D2740", "D2750", "D1110", "D0120"].map(async (c) => [c, await w.codeId(c)])));
    const put = await w.putFees(s.id, [
      { procedure_code_uuid: ids.D2750, amount: 1300 },
      { procedure_code_uuid: ids.D2740, amount: 1200, location_uuid: uptown },
      { procedure_code_uuid: ids.D2740, amount: 1250 },
      { procedure_code_uuid: ids.D1110, amount: 100, location_uuid: downtown },
      { procedure_code_uuid: ids.D0120, amount: 60 },
    ]);
    const list = async (q = "") => (await w.call("GET", `${feesOf(s.id)}?${q}`, undefined, 200, reader)).body;
    const all = await list();
    expect(all.total).toBe(5);
    expect(all.items.map((f: any) => [f.procedure_code.name, f.location?.name ?? null, f.amount])).toEqual([
      ["D0120", null, "60.00"],
      ["D1110", "Downtown", "100.00"],
      ["D2740", null, "1250.00"],
      ["D2740", "Uptown", "1200.00"],
      ["D2750", null, "1300.00"],
    ]);
    expect(await list("page=2&page_size=2")).toMatchObject({ page: 2, page_size: 2, total: 5, items: [{ amount: "1250.00" }, { amount: "1200.00" }] });
    expect((await list("search=d27")).items.map((f: any) => f.amount)).toEqual(["1250.00", "1200.00", "1300.00"]);
    expect((await list("search=D2740")).total).toBe(2);
    expect((await list(`location_uuid=${uptown}`)).items.map((f: any) => f.amount)).toEqual(["1200.00"]);
    expect((await list(`location_uuid=${downtown}&search=D27`)).total).toBe(0);
    const d0120 = put.items[4];
    await w.call("DELETE", `${feesOf(s.id)}/${d0120.id}?base_version=1`, undefined, 204);
    expect((await list()).total).toBe(4);
  });

  test("422 bad parameters; 404 schedule or location missing or another org's; 401, 403, 404 non-member", async () => {
    const s = await w.createSchedule();
    for (const [q, loc, type] of [
      ["page_size=201", ["query", "page_size"], "out_of_range"],
      ["location_uuid=x", ["query", "location_uuid"], "format"],
      ["code=D1", ["query", "code"], "extra_forbidden"],
    ] as const) {
      const r = await w.call("GET", `${feesOf(s.id)}?${q}`);
      expect({ q, status: r.status, first: r.body.detail?.[0] }).toEqual({ q, status: 422, first: { loc: [...loc], msg: expect.any(String), type } });
    }
    expect((await w.call("GET", feesOf(MISSING))).body).toEqual({ detail: "Fee schedule not found", code: "not_found" });
    expect((await w.call("GET", `${feesOf(s.id)}?location_uuid=${MISSING}`)).body).toEqual({ detail: "Location not found", code: "not_found" });
    const theirs = await w.createSchedule({}, w.orgB);
    expect((await w.call("GET", feesOf(theirs.id))).status).toBe(404);
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", feesOf(s.id), READ);
  });
});

describe("DELETE /fee-schedules/{id}/fees/{fee_uuid}", () => {
  test("204: a soft delete, audited, fee.deleted with ids; the code and location can be set again as a new fee", async () => {
    const s = await w.createSchedule();
    const d2740 = await w.codeId("D2740");
    const [fee] = (await w.putFees(s.id, [{ procedure_code_uuid: d2740, amount: 900, location_uuid: downtown }])).items;
    const from = w.events.length;
    await w.call("DELETE", `${feesOf(s.id)}/${fee.id}?base_version=1`, undefined, 204);
    const [row] = await w.feeRows(s.id);
    expect(row).toMatchObject({ id: fee.id, version: 2, deleted_at: expect.stringMatching(/Z$/) });
    expect((await auditOf(w.t, w.orgA, fee.id)).map((a) => a.action)).toEqual(["fee.created", "fee.deleted"]);
    expect(w.events.slice(from).map((e) => [e.type, e.data])).toEqual([
      ["fee.deleted", { id: fee.id, fee_schedule_id: s.id, procedure_code_id: d2740, location_id: downtown }],
    ]);
    expect((await w.call("DELETE", `${feesOf(s.id)}/${fee.id}?base_version=2`)).status).toBe(404);
    const again = await w.putFees(s.id, [{ procedure_code_uuid: d2740, amount: 950, location_uuid: downtown }]);
    expect(again).toMatchObject({ created: 1, items: [{ amount: "950.00", version: 1 }] });
    expect(again.items[0].id).not.toBe(fee.id);
  });

  test("409 stale; 422 without base_version; 404 for another schedule's fee, a missing one or another org's; 401, 403, 404 non-member; nothing changes", async () => {
    const s = await w.createSchedule();
    const other = await w.createSchedule();
    const d2740 = await w.codeId("D2740");
    const [fee] = (await w.putFees(s.id, [{ procedure_code_uuid: d2740, amount: 900 }])).items;
    await w.putFees(s.id, [{ procedure_code_uuid: d2740, amount: 901 }]);
    const theirs = await w.createSchedule({}, w.orgB);
    const [theirFee] = (await w.putFees(theirs.id, [{ procedure_code_uuid: await w.codeId("D2740", w.orgB), amount: 5 }], w.orgB)).items;
    const before = await w.snapshot();
    const path = `${feesOf(s.id)}/${fee.id}`;
    const stale = await w.call("DELETE", `${path}?base_version=1`);
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    expect((await w.call("DELETE", path)).body.detail[0]).toMatchObject({ loc: ["query", "base_version"], type: "missing" });
    expect((await w.call("DELETE", `${feesOf(other.id)}/${fee.id}?base_version=2`)).body).toEqual({ detail: "Fee not found", code: "not_found" });
    expect((await w.call("DELETE", `${feesOf(s.id)}/${MISSING}?base_version=1`)).status).toBe(404);
    expect((await w.call("DELETE", `${feesOf(s.id)}/${theirFee.id}?base_version=1`)).status).toBe(404);
    expect((await w.call("DELETE", `${feesOf(theirs.id)}/${theirFee.id}?base_version=1`)).status).toBe(404);
    expect(await w.snapshot()).toEqual(before);
    await expectGuarded(w.t, w.orgA, w.orgB, "DELETE", `${path}?base_version=2`, WRITE);
    expect((await w.snapshot()).fees).toEqual(before.fees);
  });
});
